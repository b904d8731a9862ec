"""TweetyProject FOL through JPype, when its jars are configured (LEXLOGIC_TWEETY_CLASSPATH).

Tweety has no sub-sorts and checks argument sorts by exact equality, so the belief set is first lowered
(logic.fol.lowering): one Tweety sort per connected component of the hierarchy, sort predicates and
subsumption axioms. The signature is built programmatically (Tweety's parser rejects empty sorts) and
each lowered formula is handed to Tweety's own FolParser. Reasoner: EFOLReasoner on the local E 2.6
(checked to exist first: Tweety reads a missing binary as "false"), or SimpleFolReasoner on request.
Tweety's ParserException messages arrive wrapped; they are unwrapped into FolReasonerError.

Every query runs in a child process with a JVM heap cap and a deadline (`TweetyLimits`): a limit hit
answers "unknown (timeout)" / "unknown (memory)" instead of hanging or eating the machine.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lexlogic.bridges.fol_tools import FolTools
from lexlogic.logic.fol.answers import ConsistencyAnswer, EntailmentAnswer, FolReasonerError
from lexlogic.logic.fol.lowering import lower, lower_query
from lexlogic.logic.fol.model import BeliefSet, Formula
from lexlogic.logic.fol.printer import print_formula
from lexlogic.settings import child_environment

ENV = "LEXLOGIC_TWEETY_CLASSPATH"
MAVEN_ARTIFACTS = [
    ("org.tweetyproject.logics", "fol"),
    ("org.tweetyproject.logics", "commons"),
    ("org.tweetyproject", "commons"),
    ("org.tweetyproject", "math"),
    ("org.tweetyproject", "plugin"),
]
VERSION = "1.31"
_LOCK = threading.Lock()


def classpath(tools: FolTools | None = None) -> list[str]:
    """Jar files named by ``tools.tweety_classpath`` (``LEXLOGIC_TWEETY_CLASSPATH`` at the edge)."""
    return (tools or FolTools()).tweety_jars()


def status(tools: FolTools | None = None) -> dict[str, Any]:
    tools = tools or FolTools()
    jars = classpath(tools)
    import shutil

    java = shutil.which("java")
    return {
        "env": ENV,
        "value": tools.tweety_classpath or None,
        "jars": jars,
        "java": java,
        "artifacts": [f"{g}:{a}:{VERSION}" for g, a in MAVEN_ARTIFACTS],
        "usable": bool(jars) and java is not None,
    }


def available(tools: FolTools | None = None) -> tuple[bool, str]:
    """Configured (jars and java present)? Cheap: loads nothing. `probe()` actually loads the classes."""
    st = status(tools)
    if not st["jars"]:
        return False, f"no Tweety jars: set {ENV} to the jar files or their folder (see `lexlogic tweety install`)"
    if st["java"] is None:
        return False, "no Java runtime (java) on PATH"
    return True, f"{len(st['jars'])} jar(s) configured"


# ---------------------------------------------------------------- limits: one child process per query
# A Tweety query once ran 10 minutes to 6.6 GB and ignored SIGTERM: every query now runs in a fresh
# child (python + JPype + a JVM capped with -Xmx), in its own session, killed with SIGKILL (the whole
# group, E prover included) at the deadline. A query that hits a limit answers "unknown (timeout)" or
# "unknown (memory)", never hangs the caller. Cost: about one JVM start per query (0.5-1 s).


@dataclass(frozen=True)
class TweetyLimits:
    seconds: float = 60.0
    memory_mb: int = 512  # JVM heap (-Xmx); the child's E prover is bounded by the same deadline

    @classmethod
    def of(cls, tools: FolTools) -> TweetyLimits:
        return cls(seconds=tools.tweety_seconds, memory_mb=tools.tweety_memory_mb)


_ROOT = str(Path(__file__).resolve().parents[1])
_BOOT = f"import sys; sys.path.append({_ROOT!r}); from lexlogic.bridges.fol_tweety import _child; _child()"


def _call(job: dict[str, Any], limits: TweetyLimits, tools: FolTools) -> dict[str, Any]:
    """Run `job` in a child; {"ok": …} from it, or {"limit": "timeout"|"memory"|"crash", …}."""
    ok, why = available(tools)
    if not ok:
        raise FolReasonerError(f"Tweety is not available: {why}")
    job = {**job, "classpath": classpath(tools), "memory_mb": limits.memory_mb}
    proc = subprocess.Popen(
        [sys.executable, "-I", "-B", "-c", _BOOT],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        # the child gets its classpath and E prover in the job: no LEXLOGIC_* variable reaches it
        env=child_environment(("PATH", "JAVA", "LANG", "LC_", "HOME")),
    )
    try:
        out, _ = proc.communicate(json.dumps(job).encode(), timeout=limits.seconds)
    except subprocess.TimeoutExpired:
        _kill(proc)
        return {"limit": "timeout", "reason": f"unknown (timeout): no answer within {limits.seconds:g} s (stopped)"}
    try:
        reply: dict[str, Any] = json.loads(out.decode("utf-8", "replace").strip().splitlines()[-1])
    except (ValueError, IndexError):
        return {"limit": "crash", "reason": f"unknown (crash): the Tweety process exited with {proc.returncode}"}
    if reply.get("error"):
        raise FolReasonerError(reply["error"])
    return reply


def _kill(proc: subprocess.Popen) -> None:  # type: ignore[type-arg]
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        proc.communicate(timeout=5)
    except (subprocess.TimeoutExpired, ValueError):
        pass


def _lowered(bs: BeliefSet) -> dict[str, Any]:
    """What the child needs, all plain data: sorts with constants, predicates, formulas as text."""
    low = lower(bs)
    return {
        "sorts": {s: sorted(c) for s, c in low.signature.sorts.items()},
        "predicates": {p: list(ss) for p, ss in low.signature.predicates.items()},
        "formulas": [[print_formula(f), line] for f, line in zip(low.formulas, low.lines)],
    }


def _eprover(tools: FolTools) -> str:
    exe = tools.eprover_binary()
    if exe is None:
        raise FolReasonerError("E prover binary not found (Tweety's EFOLReasoner would silently answer false)")
    return exe


def probe(limits: TweetyLimits | None = None, tools: FolTools | None = None) -> dict[str, Any]:
    """Load the FOL classes in a child JVM and run a one-line entailment (SimpleFolReasoner):
    {"loaded": [...], "entailment": "Flies(tweety) |= Flies(tweety): true", "ms": …} or a limit."""
    return _call({"op": "probe"}, limits or TweetyLimits(seconds=60.0), tools or FolTools())


def _query(
    bs: BeliefSet, query: str, reasoner: str, limits: TweetyLimits | None, tools: FolTools | None
) -> dict[str, Any]:
    """One Tweety query of the lowered belief set (``-``: a contradiction), answered by a child JVM."""
    tools = tools or FolTools()
    job = {
        "op": "query",
        "kb": _lowered(bs),
        "query": query,
        "reasoner": reasoner,
        "eprover": _eprover(tools) if reasoner != "simple" else None,
    }
    with _LOCK:  # one JVM child at a time: each may take `memory_mb` of heap
        return _call(job, limits or TweetyLimits.of(tools), tools)


def entails(
    bs: BeliefSet,
    query: Formula,
    *,
    reasoner: str = "eprover",
    limits: TweetyLimits | None = None,
    tools: FolTools | None = None,
) -> EntailmentAnswer:
    t0 = time.perf_counter()
    reply = _query(bs, print_formula(lower_query(bs, query)), reasoner, limits, tools)
    return EntailmentAnswer(
        query=print_formula(query),
        entailed=reply.get("result") if "limit" not in reply else None,
        backend=f"tweety-{reasoner}",
        reason=reply.get("reason", "Tweety answered (no proof object)"),
        elapsed_ms=(time.perf_counter() - t0) * 1000,
    )


def consistent(
    bs: BeliefSet, *, reasoner: str = "eprover", limits: TweetyLimits | None = None, tools: FolTools | None = None
) -> ConsistencyAnswer:
    t0 = time.perf_counter()
    reply = _query(bs, "-", reasoner, limits, tools)
    return ConsistencyAnswer(
        consistent=(not reply["result"]) if "limit" not in reply else None,
        backend=f"tweety-{reasoner}",
        reason=reply.get("reason", "Tweety query of '-' (contradiction)"),
        elapsed_ms=(time.perf_counter() - t0) * 1000,
    )


# ---------------------------------------------------------------- the child's side (JPype + JVM)


def _unwrap(exc: BaseException) -> str:
    msg = str(exc)
    inner: Any = exc
    while hasattr(inner, "getCause") and inner.getCause() is not None:
        inner = inner.getCause()
    if hasattr(inner, "getMessage") and inner.getMessage():
        msg = str(inner.getMessage())
    for prefix in ("org.tweetyproject.commons.ParserException: ", "java.lang.IllegalArgumentException: "):
        while msg.startswith(prefix):
            msg = msg[len(prefix) :]
    return msg


def _child_build(jpype: Any, kb: dict[str, Any]) -> tuple[Any, Any]:
    syn = "org.tweetyproject.logics.commons.syntax."
    Sort, Constant, Predicate = (jpype.JClass(syn + n) for n in ("Sort", "Constant", "Predicate"))
    ArrayList = jpype.JClass("java.util.ArrayList")
    FolSignature = jpype.JClass("org.tweetyproject.logics.fol.syntax.FolSignature")
    FolBeliefSet = jpype.JClass("org.tweetyproject.logics.fol.syntax.FolBeliefSet")
    FolParser = jpype.JClass("org.tweetyproject.logics.fol.parser.FolParser")
    sig = FolSignature(True)  # equality on: `==`/`/==` parse, harmless otherwise
    sorts = {}
    for s, consts in kb["sorts"].items():
        sorts[s] = Sort(s)
        sig.add(sorts[s])
        for c in consts:
            sig.add(Constant(c, sorts[s]))
    for p, ss in kb["predicates"].items():
        lst = ArrayList()
        for s in ss:
            lst.add(sorts[s])
        sig.add(Predicate(p, lst))
    parser = FolParser()
    parser.setSignature(sig)
    bset = FolBeliefSet()
    for text, line in kb["formulas"]:
        try:
            bset.add(parser.parseFormula(text))
        except Exception as exc:  # JException
            raise FolReasonerError(
                f"Tweety rejected formula{f' (line {line})' if line else ''} {text!r}: {_unwrap(exc)}"
            ) from None
    bset.setSignature(sig)
    return bset, parser


def _child() -> None:
    job = json.loads(sys.stdin.buffer.read())

    def reply(obj: dict[str, Any]) -> None:
        sys.stdout.write("\n" + json.dumps(obj) + "\n")
        sys.stdout.flush()

    try:
        import jpype
        import jpype.imports

        jpype.startJVM(f"-Xmx{int(job['memory_mb'])}m", "-Xss4m", classpath=job["classpath"], convertStrings=True)
        pkg = "org.tweetyproject.logics.fol.reasoner."
        if job["op"] == "probe":
            t0 = time.perf_counter()
            names = [
                "org.tweetyproject.logics.fol.syntax.FolSignature",
                "org.tweetyproject.logics.fol.syntax.FolBeliefSet",
                "org.tweetyproject.logics.fol.parser.FolParser",
                pkg + "SimpleFolReasoner",
                pkg + "EFOLReasoner",
            ]
            loaded = [n for n in names if jpype.JClass(n) is not None]
            from java.util import ArrayList  # noqa: F401 - the import that used to fail

            kb = {"sorts": {"Bird": ["tweety"]}, "predicates": {"Flies": ["Bird"]}, "formulas": [["Flies(tweety)", 1]]}
            bset, parser = _child_build(jpype, kb)
            ok = bool(jpype.JClass(pkg + "SimpleFolReasoner")().query(bset, parser.parseFormula("Flies(tweety)")))
            reply(
                {
                    "loaded": loaded,
                    "entailment": f"Flies(tweety) |= Flies(tweety): {str(ok).lower()}",
                    "ok": ok,
                    "ms": (time.perf_counter() - t0) * 1000,
                }
            )
            return
        bset, parser = _child_build(jpype, job["kb"])
        q = job["query"]
        try:
            jq = parser.parseFormula(q)
        except Exception as exc:
            raise FolReasonerError(f"Tweety rejected query {q!r}: {_unwrap(exc)}") from None
        if job["reasoner"] == "simple":
            reasoner = jpype.JClass(pkg + "SimpleFolReasoner")()
        else:
            reasoner = jpype.JClass(pkg + "EFOLReasoner")(job["eprover"])
        try:
            result = bool(reasoner.query(bset, jq))
        except Exception as exc:
            text = _unwrap(exc)
            if "OutOfMemoryError" in type(exc).__name__ or "OutOfMemory" in text or "Java heap" in text:
                reply({"limit": "memory", "reason": f"unknown (memory): the JVM heap of {job['memory_mb']} MB"})
                return
            raise FolReasonerError(f"Tweety failed on query {q!r}: {text}") from None
        reply({"result": result})
    except FolReasonerError as exc:
        reply({"error": str(exc)})
    except Exception as exc:
        name = type(exc).__name__
        if "OutOfMemory" in name or "OutOfMemory" in str(exc):
            reply({"limit": "memory", "reason": f"unknown (memory): the JVM heap of {job['memory_mb']} MB"})
        else:
            reply({"error": f"Tweety failed: {name}: {_unwrap(exc)}"})


def install(directory: str, *, timeout: float = 5.0, repository: str = "https://repo1.maven.org/maven2") -> list[str]:
    """Download the Tweety FOL jars by Maven coordinates into `directory`; FolReasonerError when unreachable."""
    import httpx

    os.makedirs(directory, exist_ok=True)
    done = []
    with httpx.Client(timeout=timeout, follow_redirects=True) as http:
        for group, artifact in MAVEN_ARTIFACTS:
            url = f"{repository}/{group.replace('.', '/')}/{artifact}/{VERSION}/{artifact}-{VERSION}.jar"
            try:
                resp = http.get(url)
                resp.raise_for_status()
            except httpx.HTTPError as exc:
                raise FolReasonerError(
                    f"cannot fetch {group}:{artifact}:{VERSION} from {repository} "
                    f"({type(exc).__name__}: {exc or 'unreachable'}); Maven Central is not "
                    f"reachable from this machine — copy the jars by hand and set {ENV}"
                ) from None
            path = os.path.join(directory, f"{group}.{artifact}-{VERSION}.jar")  # two artifacts are named `commons`
            with open(path, "wb") as fh:
                fh.write(resp.content)
            done.append(path)
    return done

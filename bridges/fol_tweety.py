"""TweetyProject FOL through JPype, when its jars are configured (LEXLOGIC_TWEETY_CLASSPATH).

Tweety has no sub-sorts and checks argument sorts by exact equality, so the belief set is first lowered
(logic.fol.lowering): one Tweety sort per connected component of the hierarchy, sort predicates and
subsumption axioms. The signature is built programmatically (Tweety's parser rejects empty sorts) and
each lowered formula is handed to Tweety's own FolParser. Reasoner: EFOLReasoner on the local E 2.6
(checked to exist first: Tweety reads a missing binary as "false"), or SimpleFolReasoner on request.
Tweety's ParserException messages arrive wrapped; they are unwrapped into FolReasonerError.
"""

from __future__ import annotations

import glob
import os
import threading
import time
from typing import Any

from lexlogic.logic.fol.answers import ConsistencyAnswer, EntailmentAnswer, FolReasonerError
from lexlogic.logic.fol.lowering import lower, lower_query
from lexlogic.logic.fol.model import BeliefSet, Formula
from lexlogic.logic.fol.syntax import print_formula

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


def classpath() -> list[str]:
    """Jar files named by LEXLOGIC_TWEETY_CLASSPATH (os.pathsep-separated files, dirs or globs)."""
    raw = os.environ.get(ENV, "")
    jars: list[str] = []
    for part in filter(None, raw.split(os.pathsep)):
        if os.path.isdir(part):
            jars += sorted(glob.glob(os.path.join(part, "*.jar")))
        else:
            jars += (
                sorted(glob.glob(part)) if any(ch in part for ch in "*?[") else ([part] if os.path.isfile(part) else [])
            )
    return jars


def status() -> dict[str, Any]:
    jars = classpath()
    import shutil

    java = shutil.which("java")
    return {
        "env": ENV,
        "value": os.environ.get(ENV),
        "jars": jars,
        "java": java,
        "artifacts": [f"{g}:{a}:{VERSION}" for g, a in MAVEN_ARTIFACTS],
        "usable": bool(jars) and java is not None,
    }


def available() -> tuple[bool, str]:
    st = status()
    if not st["jars"]:
        return False, f"no Tweety jars: set {ENV} to the jar files or their folder (see `lexlogic tweety install`)"
    if st["java"] is None:
        return False, "no Java runtime (java) on PATH"
    return True, f"{len(st['jars'])} jar(s) configured"


def _jvm() -> Any:
    import jpype

    if not jpype.isJVMStarted():
        ok, why = available()
        if not ok:
            raise FolReasonerError(f"Tweety is not available: {why}")
        jpype.startJVM(classpath=classpath(), convertStrings=True)
    return jpype


def _unwrap(exc: BaseException) -> str:
    msg = str(exc)
    cause = getattr(exc, "getCause", None)
    inner = exc
    while cause is not None:
        c = inner.getCause()  # type: ignore[attr-defined]
        if c is None:
            break
        inner = c
        cause = getattr(inner, "getCause", None)
    msg = str(inner.getMessage() if hasattr(inner, "getMessage") and inner.getMessage() else msg)
    prefix = "org.tweetyproject.commons.ParserException: "
    while msg.startswith(prefix) or msg.startswith("java.lang.IllegalArgumentException: "):
        msg = msg.split(": ", 1)[1]
    return msg


class _Kb:
    def __init__(self, kb: Any, parser: Any, lowered: BeliefSet) -> None:
        self.kb, self.parser, self.lowered = kb, parser, lowered


def _build(bs: BeliefSet) -> _Kb:
    jpype = _jvm()
    from java.util import ArrayList  # type: ignore[import-not-found]

    syn = "org.tweetyproject.logics.commons.syntax."
    Sort, Constant, Predicate = (jpype.JClass(syn + n) for n in ("Sort", "Constant", "Predicate"))
    FolSignature = jpype.JClass("org.tweetyproject.logics.fol.syntax.FolSignature")
    FolBeliefSet = jpype.JClass("org.tweetyproject.logics.fol.syntax.FolBeliefSet")
    FolParser = jpype.JClass("org.tweetyproject.logics.fol.parser.FolParser")
    low = lower(bs)
    sig = FolSignature(True)  # equality on: `==`/`/==` parse, harmless otherwise
    sorts = {}
    for s, consts in low.signature.sorts.items():
        sorts[s] = Sort(s)
        sig.add(sorts[s])
        for c in consts:
            sig.add(Constant(c, sorts[s]))
    for p, ss in low.signature.predicates.items():
        lst = ArrayList()
        for s in ss:
            lst.add(sorts[s])
        sig.add(Predicate(p, lst))
    parser = FolParser()
    parser.setSignature(sig)
    kb = FolBeliefSet()
    for f, line in zip(low.formulas, low.lines):
        text = print_formula(f)
        try:
            kb.add(parser.parseFormula(text))
        except Exception as exc:  # JException
            raise FolReasonerError(
                f"Tweety rejected formula{f' (line {line})' if line else ''} {text!r}: {_unwrap(exc)}"
            ) from None
    kb.setSignature(sig)
    return _Kb(kb, parser, low)


def _reasoner(kind: str) -> Any:
    jpype = _jvm()
    pkg = "org.tweetyproject.logics.fol.reasoner."
    if kind == "simple":
        return jpype.JClass(pkg + "SimpleFolReasoner")()
    from lexlogic.bridges.fol_eprover import binary

    exe = binary()
    if exe is None:
        raise FolReasonerError("E prover binary not found (Tweety's EFOLReasoner would silently answer false)")
    return jpype.JClass(pkg + "EFOLReasoner")(exe)


def entails(bs: BeliefSet, query: Formula, *, reasoner: str = "eprover") -> EntailmentAnswer:
    t0 = time.perf_counter()
    with _LOCK:
        k = _build(bs)
        q = print_formula(lower_query(bs, query))
        try:
            jq = k.parser.parseFormula(q)
            result = bool(_reasoner(reasoner).query(k.kb, jq))
        except FolReasonerError:
            raise
        except Exception as exc:
            raise FolReasonerError(f"Tweety failed on query {q!r}: {_unwrap(exc)}") from None
    return EntailmentAnswer(
        query=print_formula(query),
        entailed=result,
        backend=f"tweety-{reasoner}",
        reason="Tweety answered (no proof object)",
        elapsed_ms=(time.perf_counter() - t0) * 1000,
    )


def consistent(bs: BeliefSet, *, reasoner: str = "eprover") -> ConsistencyAnswer:
    t0 = time.perf_counter()
    with _LOCK:
        k = _build(bs)
        try:
            incons = bool(_reasoner(reasoner).query(k.kb, k.parser.parseFormula("-")))
        except FolReasonerError:
            raise
        except Exception as exc:
            raise FolReasonerError(f"Tweety failed: {_unwrap(exc)}") from None
    return ConsistencyAnswer(
        consistent=not incons,
        backend=f"tweety-{reasoner}",
        reason="Tweety query of '-' (contradiction)",
        elapsed_ms=(time.perf_counter() - t0) * 1000,
    )


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

"""The sandbox worker: a fresh interpreter that runs rules under process limits. Stdlib + policy only.

Started by `sandbox.pool` as ``python -I -B -c …`` (isolated mode: no PYTHON* variables, no user site,
no current directory on sys.path), with a minimal environment, only fds 0/1/2 (0 and 1 are the
protocol pipes, 2 is /dev/null), in its own session. Before it accepts work it:

- imports everything it will ever need (no lazy import can open a file later);
- sets rlimits: address space (memory), no core files, no file writes (FSIZE 0), few fds, a
  lifetime CPU cap (hard) — the per-run CPU budget is the soft limit, re-armed before each run; the
  kernel's SIGXCPU then kills the worker, which the parent reports as "CPU time limit";
- drops root to nobody (when started as root), then forbids new processes (NPROC 0).

Each request carries the rule source, the facts (JSON text) and the per-run CPU budget; the reply is a
JSON meta frame, then (on success) the raw JSON output frame. After a memory or recursion limit the
worker exits after replying ("recycle"), so the next run gets a clean interpreter. After every run the
garbage is collected and the resident memory checked (`_bloated`); a worker never serves two tenants (the
pool recycles it when the tenant changes, `sandbox.pool.SandboxPool._acquire`).
"""

from __future__ import annotations

import gc
import json
import os
import resource
import sys
import time
import unicodedata
from collections import OrderedDict
from datetime import date
from typing import Any

from lexlogic.sandbox import oslayer
from lexlogic.sandbox.errors import one_line
from lexlogic.sandbox.policy import (
    RuleRefused,
    RunContext,
    SandboxViolation,
    code_bytes,
    compile_rule,
    freeze,
    make_globals,
)
from lexlogic.sandbox.protocol import FrameError, frame, read_frame, write_all

RFD, WFD = 0, 1
MAX_REQUEST = 64 * 1024 * 1024
NOBODY = 65534
# compiled rules, per (scope, source, filename): the scope is the tenant, so one tenant's compile never
# serves another's (a cache shared by all tenants answered « this exact rule exists » by timing, issue 34)
_cache: OrderedDict[tuple[str, str, str], tuple[Any, int]] = OrderedDict()
_hit = False  # whether the last _compile came from the cache (reported to the pool, never to a client)
_CACHE_SIZE = 256
_CACHE_BYTES = 16 * 1024 * 1024  # compiled code is bounded in BYTES, not only in entries
_cache_bytes = 0
_PAGE = os.sysconf("SC_PAGE_SIZE")
_cfg: dict[str, Any] = {}


def _rss() -> int:
    """Resident memory now (bytes), from /proc (0 where unavailable)."""
    try:
        with open("/proc/self/statm", "rb") as fh:
            return int(fh.read().split()[1]) * _PAGE
    except (OSError, ValueError, IndexError):
        return 0


def _cpu_used() -> float:
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return ru.ru_utime + ru.ru_stime


def _fds() -> list[int]:
    out = []
    for fd in range(0, 256):
        try:
            os.fstat(fd)
        except OSError:
            continue
        out.append(fd)
    return out


def _apply_limits(cfg: dict[str, Any]) -> None:
    mem = int(cfg["memory_mb"]) * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))
    resource.setrlimit(resource.RLIMIT_NOFILE, (8, 8))
    hard = int(cfg["lifetime_cpu_seconds"])
    resource.setrlimit(resource.RLIMIT_CPU, (hard, hard))
    sys.setrecursionlimit(int(cfg["recursion_limit"]))


def _drop_privileges() -> None:
    if os.geteuid() == 0:
        os.setgroups([])
        os.setgid(NOBODY)
        os.setuid(NOBODY)
    os.umask(0o777)
    resource.setrlimit(resource.RLIMIT_NPROC, (0, 0))


def _probe() -> dict[str, Any]:
    limits = {
        name: resource.getrlimit(getattr(resource, name))
        for name in ("RLIMIT_AS", "RLIMIT_CPU", "RLIMIT_FSIZE", "RLIMIT_NOFILE", "RLIMIT_NPROC", "RLIMIT_CORE")
    }
    return {
        "pid": os.getpid(),
        "uid": os.getuid(),
        "euid": os.geteuid(),
        "gid": os.getgid(),
        "fds": _fds(),
        "env": sorted(os.environ),
        "cwd": os.getcwd(),
        "rlimits": limits,
        "sys_path_has_cwd": "" in sys.path,
        "recursion_limit": sys.getrecursionlimit(),
        "os_layer": oslayer.report(),
    }


def _json_default(obj: Any) -> Any:
    if isinstance(obj, date):
        return obj.isoformat()
    raise TypeError(f"a {type(obj).__name__} is not JSON-serialisable")


def _rule_line(exc: BaseException, filename: str) -> int | None:
    line, tb = None, exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == filename:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


def _describe(exc: BaseException) -> str:
    try:
        text = one_line(str(exc))
    except BaseException:
        text = ""
    text = text[:300] + ("…" if len(text) > 300 else "")
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _arm_cpu(budget: int) -> None:
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    soft = int(_cpu_used()) + 1 + int(budget)
    if hard != resource.RLIM_INFINITY:
        soft = min(soft, hard)
    resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))


def _near_cpu_end(budget: int) -> bool:
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    return hard != resource.RLIM_INFINITY and _cpu_used() + 2 * budget + 2 > hard


def _compile(source: str, filename: str, scope: str = "") -> Any:
    global _cache_bytes, _hit
    key = (scope, source, filename)
    hit = _cache.get(key)
    _hit = hit is not None
    if hit is not None:
        _cache.move_to_end(key)
        return hit[0]
    code = compile_rule(source, filename)
    size = code_bytes(code) + len(source)
    if size <= _CACHE_BYTES // 8:  # a big one is used once and dropped, never kept for everybody
        _cache[key] = (code, size)
        _cache_bytes += size
        while _cache and (len(_cache) > _CACHE_SIZE or _cache_bytes > _CACHE_BYTES):
            _, (_, dropped) = _cache.popitem(last=False)
            _cache_bytes -= dropped
    return code


def _error(kind: str, code: str, message: str, line: int | None = None, **extra: Any) -> dict[str, Any]:
    return {"ok": False, "kind": kind, "code": code, "message": message, "line": line, **extra}


def _run(req: dict[str, Any]) -> tuple[dict[str, Any], bytes | None]:
    filename = str(req.get("filename") or "<rule>")
    budget = int(req["cpu_seconds"])
    max_output = int(req["max_output_bytes"])
    _arm_cpu(budget)
    try:
        code = _compile(req["source"], filename, str(req.get("scope") or ""))
    except RuleRefused as exc:
        problems = [{"line": p.line, "message": p.message} for p in exc.problems]
        return _error("refused", "compile", str(exc), exc.problems[0].line, problems=problems), None
    except MemoryError:
        return _error("limit", "memory", "memory limit exceeded while compiling", recycle=True), None
    except RecursionError:
        return _error("limit", "recursion", "recursion limit exceeded while compiling", recycle=True), None
    ctx = RunContext()
    reads: set = set()
    missing: set = set()
    try:
        facts = freeze(json.loads(req["facts"]), reads, missing)
        glb = make_globals(ctx)
        exec(code, glb)
        fn = glb.get("rule")
        if not callable(fn):
            return _error("runtime", "no_rule", "the rule module does not define a callable `rule`"), None
        result = fn(facts)
        if ctx.caught_limit is not None:
            return _caught(ctx.caught_limit), None
        if ctx.violations:
            return _error("runtime", "policy", f"blocked by the sandbox policy: {ctx.violations[0]}"), None
        try:
            text = json.dumps(result, ensure_ascii=False, allow_nan=False, separators=(",", ":"), default=_json_default)
            data = text.encode("utf-8")
        except (TypeError, ValueError, UnicodeEncodeError) as exc:
            return _error("output", "not_json", f"the rule's output is not JSON-serialisable: {_describe(exc)}"), None
        del text
        if len(data) > max_output:
            return _error(
                "limit", "output_size", f"output of {len(data)} bytes exceeds the cap of {max_output} bytes"
            ), None
        meta = {"ok": True, "reads": sorted(reads), "missing": sorted(missing), "output_bytes": len(data)}
        return meta, data
    except MemoryError:
        return _error("limit", "memory", "memory limit exceeded", recycle=True), None
    except RecursionError as exc:
        return _error("limit", "recursion", "recursion limit exceeded", _rule_line(exc, filename), recycle=True), None
    except SandboxViolation as exc:
        return _error(
            "runtime",
            "policy",
            f"blocked by the sandbox policy: {ctx.violations[0] if ctx.violations else exc}",
            _rule_line(exc, filename),
        ), None
    except BaseException as exc:
        if ctx.caught_limit is not None:
            return _caught(ctx.caught_limit), None
        if ctx.violations:
            return _error(
                "runtime", "policy", f"blocked by the sandbox policy: {ctx.violations[0]}", _rule_line(exc, filename)
            ), None
        return _error("runtime", "exception", _describe(exc), _rule_line(exc, filename)), None


def _caught(what: str) -> dict[str, Any]:
    return _error("limit", what, f"{what} limit exceeded (the rule caught the error; its result is void)", recycle=True)


def _bloated() -> bool:
    """Recycle when the worker holds more than half its memory limit after a run (leaks, fragmentation,
    a bomb that did not raise): the next run gets a clean interpreter, never a starved one. Garbage is
    collected first: a cycle a rule promoted to the oldest generation before dropping it (110 MB under the
    128 MB threshold) waited for a full collection that might not come before the next run, which then
    failed on memory it never used (issue 34)."""
    gc.collect()
    limit = int(_cfg.get("memory_mb", 256)) * 1024 * 1024
    return _rss() > limit // 2


def _check(req: dict[str, Any]) -> dict[str, Any]:
    _arm_cpu(int(req.get("cpu_seconds", 2)))
    try:
        _compile(req["source"], str(req.get("filename") or "<rule>"), str(req.get("scope") or ""))
    except RuleRefused as exc:
        problems = [{"line": p.line, "message": p.message} for p in exc.problems]
        return _error("refused", "compile", str(exc), exc.problems[0].line, problems=problems)
    except MemoryError:
        return _error("limit", "memory", "memory limit exceeded while compiling", recycle=True)
    except RecursionError:
        return _error("limit", "recursion", "recursion limit exceeded while compiling", recycle=True)
    return {"ok": True}


def _send(meta: dict[str, Any], data: bytes | None = None) -> None:
    raw = frame(json.dumps(meta).encode())
    if data is not None:
        raw += frame(data)
    write_all(WFD, raw)


def _preload() -> None:
    """What the parser loads lazily, loaded now: a non-ASCII identifier (« ancienneté », « préavis ») is
    NFKC-normalised through ``unicodedata``, which the tokenizer imports on first use, after privileges are
    dropped and files closed to us, so the worker died on the first French rule (issue 34)."""
    assert unicodedata.normalize("NFKC", "ancienneté") == "ancienneté"
    compile("ancienneté = préavis = 1\n", "<preload>", "exec")
    compile_rule("def rule(facts):\n    préavis = 1\n    return {'x': préavis}\n", "<preload>")


def serve(cfg: dict[str, Any]) -> None:
    sys.stdout = sys.stderr  # fd 1 is the protocol pipe: stray writes go to /dev/null
    _cfg.update(cfg)
    _preload()
    gc.freeze()  # what the worker is before any rule: never scanned again, so the collection after a run is cheap
    _apply_limits(cfg)
    if cfg.get("os_layer", True):
        oslayer.unshare_network()  # while still root: needs CAP_SYS_ADMIN
    if cfg.get("drop_privileges", True):
        _drop_privileges()
    if cfg.get("os_layer", True):
        oslayer.install_seccomp()
    _send({"ready": True, **_probe()})
    runs, max_runs = 0, int(cfg.get("max_runs", 10_000))
    while True:
        try:
            req = json.loads(read_frame(RFD, MAX_REQUEST))
        except FrameError:
            return  # parent gone or closed us: exit quietly
        op = req.get("op")
        recycle = False
        if op == "run":
            started = time.perf_counter()
            meta, data = _run(req)
            meta["worker_ms"] = (time.perf_counter() - started) * 1000
            meta["cache_hit"] = _hit
            runs += 1
            recycle = (
                bool(meta.pop("recycle", False))
                or runs >= max_runs
                or _near_cpu_end(int(req["cpu_seconds"]))
                or _bloated()
            )
            meta["recycle"] = recycle
            _send(meta, data)
        elif op == "check":
            meta = _check(req)
            runs += 1
            recycle = bool(meta.pop("recycle", False)) or runs >= max_runs or _bloated()
            meta["recycle"] = recycle
            _send(meta)
        elif op == "probe":
            _send({"ok": True, **_probe()})
        else:
            _send(_error("runtime", "protocol", f"unknown op {op!r}"))
        if recycle:
            return


def main() -> None:
    serve(json.loads(sys.argv[1]))


if __name__ == "__main__":
    main()

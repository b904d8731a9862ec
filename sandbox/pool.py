"""A small pool of reusable sandbox workers, and the one call the rest of lexlogic uses: `run`.

Workers are fresh interpreters (``subprocess`` + exec, never a fork of this — possibly large, possibly
secret-holding — process): only the two protocol pipes and /dev/null are inherited, the environment
is reduced to PATH and a locale, and each worker lives in its own session so it can be killed whole.

The parent trusts nothing that comes back: it reads with a wall-clock deadline and size caps, kills a
worker that overruns or dies (CPU rlimit → SIGXCPU) and replaces it, and validates the output against
the rule's declared schema itself. Thread-safe: concurrent callers each borrow one worker.
"""

from __future__ import annotations

import atexit
import hashlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, replace
from datetime import date
from pathlib import Path
from typing import Any

from pydantic import BaseModel, TypeAdapter

from lexlogic.sandbox.errors import ErrorKind, SandboxError, one_line
from lexlogic.sandbox.protocol import FrameError, FrameReader, write_frame
from lexlogic.sandbox.schema import OutputInvalid, build_output_adapter, validate_output

_ROOT = str(Path(__file__).resolve().parent.parent)
_BOOT = f"import sys; sys.path.append({_ROOT!r}); from lexlogic.sandbox.worker import main; main()"
_META_CAP = 256 * 1024
_WORKER_ENV = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"}


@dataclass(frozen=True)
class Limits:
    """Resource limits of one run (cpu, wall, output) and of each worker (memory, lifetime)."""

    cpu_seconds: int = 2  # per run, RLIMIT_CPU soft limit (whole seconds; the kernel's granularity)
    wall_seconds: float = 5.0  # per run, measured by the parent; the worker is killed past it
    memory_mb: int = 256  # per worker, RLIMIT_AS
    max_output_bytes: int = 1_000_000  # per run, JSON text of the result
    max_facts_bytes: int = 4_000_000  # per run, JSON text of the input
    recursion_limit: int = 500
    lifetime_cpu_seconds: int = 600  # per worker, RLIMIT_CPU hard limit; recycled before reaching it
    max_runs_per_worker: int = 10_000
    startup_seconds: float = 20.0  # time a fresh worker may take to become ready


class RuleRun(BaseModel):
    """A successful sandboxed run."""

    output: Any
    output_json: str
    reads: list[str]  # top-level facts the rule read (present in the input): the premises
    missing: list[str] = []  # absent facts the rule asked for (bounded, printable names)
    sha256: str
    elapsed_ms: float  # round trip seen by the parent (IPC + scheduling + the run)
    worker_ms: float  # time spent inside the worker on this run
    worker_pid: int
    cache_hit: bool = False  # the compiled rule came from the worker's cache (of this scope): for tests only


def source_sha256(source: str) -> str:
    return hashlib.sha256(source.encode("utf-8", "surrogatepass")).hexdigest()


def _facts_default(obj: Any) -> Any:
    if isinstance(obj, date):
        return obj.isoformat()
    if isinstance(obj, (set, frozenset, tuple)):
        return list(obj)
    if isinstance(obj, BaseModel):
        return obj.model_dump(mode="json")
    raise TypeError(f"a {type(obj).__name__} cannot be given to a rule as a fact")


class _SandboxWorker:
    def __init__(self, limits: Limits, drop_privileges: bool) -> None:
        cfg = {
            "memory_mb": limits.memory_mb,
            "lifetime_cpu_seconds": limits.lifetime_cpu_seconds,
            "recursion_limit": limits.recursion_limit,
            "max_runs": limits.max_runs_per_worker,
            "drop_privileges": drop_privileges,
        }
        self.proc = subprocess.Popen(
            [sys.executable, "-I", "-B", "-c", _BOOT, json.dumps(cfg)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            close_fds=True,
            cwd="/",
            env=dict(_WORKER_ENV),
            start_new_session=True,
        )
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.wfd = self.proc.stdin.fileno()
        self.rfd = self.proc.stdout.fileno()
        self.reader = FrameReader(self.rfd)
        self.info: dict[str, Any] | None = None
        self.runs = 0
        self.scope: str | None = None  # the tenant whose rules it ran (None: fresh, nobody's yet)

    @property
    def pid(self) -> int:
        return self.proc.pid

    def ensure_ready(self, timeout: float) -> None:
        if self.info is None:
            self.info = json.loads(self.reader.read(_META_CAP, time.monotonic() + timeout))
            if not self.info.get("ready"):
                raise FrameError("eof", "the worker did not announce itself")

    def kill(self) -> None:
        if self.proc.returncode is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        self.wait(5.0)
        for stream in (self.proc.stdin, self.proc.stdout):
            try:
                stream.close()  # type: ignore[union-attr]
            except OSError:
                pass

    def wait(self, timeout: float) -> int | None:
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            return None


class SandboxPool:
    """A pool of `size` warm workers. Use as a context manager, or call `close()`."""

    def __init__(
        self,
        size: int = 2,
        limits: Limits | None = None,
        *,
        acquire_timeout: float = 120.0,
        drop_privileges: bool = True,
    ) -> None:
        if size < 1:
            raise ValueError("a sandbox pool needs at least one worker")
        self.size = size
        self.limits = limits or Limits()
        self.acquire_timeout = acquire_timeout
        self.drop_privileges = drop_privileges
        self._idle: list[_SandboxWorker] = []  # the last released at the end: the hottest worker first
        self._lock = threading.Lock()
        self._freed = threading.Condition(self._lock)
        self._all: set[_SandboxWorker] = set()
        self._closed = False
        self.replaced = 0  # workers killed (or recycled) and replaced: an operations figure
        self.recycled_for_tenant = 0  # of which: a worker that served one tenant, replaced for another
        for _ in range(size):
            self._put_idle(self._spawn())

    # ------------------------------------------------------------------ lifecycle

    def _spawn(self) -> _SandboxWorker:
        worker = _SandboxWorker(self.limits, self.drop_privileges)
        with self._lock:
            self._all.add(worker)
        return worker

    def _put_idle(self, worker: _SandboxWorker) -> None:
        with self._freed:
            self._idle.append(worker)
            self._freed.notify()

    def _take_idle(self, scope: str | None, deadline: float) -> _SandboxWorker:
        """The idle worker for ``scope``: the hottest that served this scope, else a fresh one, else the one
        idle the LONGEST (the caller recycles it: the tenant it served is the least likely to come back; taking
        the hottest made two active tenants recycle each other's worker on every call while a third tenant's
        stale worker sat idle). ``scope`` None (a probe) runs nothing of anybody's: the hottest worker."""
        with self._freed:
            while not self._idle:
                left = deadline - time.monotonic()
                if left <= 0 or not self._freed.wait(left):
                    if not self._idle:
                        raise SandboxError(
                            ErrorKind.LIMIT, "busy", f"no sandbox worker free within {self.acquire_timeout} s"
                        )
            if scope is None:
                return self._idle.pop()
            for want in (scope, None):
                for i in range(len(self._idle) - 1, -1, -1):
                    if self._idle[i].scope == want:
                        return self._idle.pop(i)
            return self._idle.pop(0)

    def _acquire(self, scope: str | None = None) -> _SandboxWorker:
        """A live worker that has run no other tenant's rules than ``scope``'s: one that served another
        tenant is recycled (killed, a fresh one started), never handed over — nothing one tenant's rule
        left in the interpreter (garbage under the memory limit, anything a policy bypass could plant) is
        met by the next tenant's."""
        if self._closed:
            raise RuntimeError("the sandbox pool is closed")
        deadline = time.monotonic() + self.acquire_timeout
        while True:
            worker = self._take_idle(scope, deadline)
            if worker.proc.poll() is not None:
                self._release(worker, healthy=False)  # died while idle (killed from outside): replace it
                continue
            if scope is not None and worker.scope not in (None, scope):
                self._discard(worker)
                with self._lock:
                    self.recycled_for_tenant += 1
                worker = self._spawn()
            if scope is not None:
                worker.scope = scope
            return worker

    def _discard(self, worker: _SandboxWorker) -> None:
        worker.kill()
        with self._lock:
            self._all.discard(worker)

    def _release(self, worker: _SandboxWorker, healthy: bool) -> None:
        if healthy and not self._closed:
            self._put_idle(worker)
            return
        self._discard(worker)
        if not self._closed:
            self.replaced += 1
            self._put_idle(self._spawn())

    def close(self) -> None:
        self._closed = True
        with self._lock:
            workers = list(self._all)
            self._all.clear()
        for worker in workers:
            worker.kill()

    def __enter__(self) -> SandboxPool:
        return self

    def __exit__(self, *_exc: Any) -> None:
        self.close()

    def worker_pids(self) -> list[int]:
        with self._lock:
            return sorted(w.pid for w in self._all)

    # ------------------------------------------------------------------ requests

    def _roundtrip(
        self, request: dict[str, Any], wall: float, max_output: int, cpu: int
    ) -> tuple[dict[str, Any], bytes | None, int, float]:
        payload = json.dumps(request, ensure_ascii=False).encode("utf-8", "surrogatepass")
        # a run or a check belongs to its scope (the tenant; "" = no tenant, the CLI); a probe to nobody
        worker = self._acquire(str(request.get("scope") or "") if request["op"] in ("run", "check") else None)
        healthy = False
        try:
            try:
                worker.ensure_ready(self.limits.startup_seconds)
            except (FrameError, ValueError):
                raise SandboxError(ErrorKind.RUNTIME, "worker_start", "a sandbox worker failed to start") from None
            start = time.perf_counter()
            deadline = time.monotonic() + wall
            try:
                write_frame(worker.wfd, payload, deadline)
                meta = json.loads(worker.reader.read(_META_CAP, deadline))
                data = None
                if meta.get("ok") and request["op"] == "run":
                    data = worker.reader.read(max_output, deadline)
            except FrameError as exc:
                raise self._diagnose(worker, exc, wall, cpu, max_output) from None
            elapsed = (time.perf_counter() - start) * 1000
            worker.runs += 1
            healthy = not meta.get("recycle")
            return meta, data, worker.pid, elapsed
        finally:
            self._release(worker, healthy)

    def _diagnose(
        self, worker: _SandboxWorker, exc: FrameError, wall: float, cpu: int, max_output: int
    ) -> SandboxError:
        if exc.reason == "timeout":
            worker.kill()
            return SandboxError(
                ErrorKind.LIMIT, "wall", f"wall-clock timeout: no answer within {wall:g} s (worker killed and replaced)"
            )
        if exc.reason == "too_large":
            worker.kill()
            return SandboxError(
                ErrorKind.LIMIT, "output_size", f"output of {exc.size} bytes exceeds the cap of {max_output} bytes"
            )
        status = worker.wait(2.0)
        if status is None:
            worker.kill()
            status = worker.proc.returncode
        if status == -signal.SIGXCPU:
            return SandboxError(
                ErrorKind.LIMIT, "cpu", f"CPU time limit of {cpu} s exceeded (worker killed and replaced)"
            )
        if status == -signal.SIGKILL:
            return SandboxError(
                ErrorKind.LIMIT, "killed", "the worker was killed (hard CPU or memory limit) and replaced"
            )
        return SandboxError(ErrorKind.RUNTIME, "crash", f"the worker died (exit status {status}) and was replaced")

    def run(
        self,
        source: str,
        facts: Any,
        *,
        output_schema: Any = None,
        adapter: TypeAdapter | None = None,
        filename: str = "<rule>",
        cpu_seconds: int | None = None,
        wall_seconds: float | None = None,
        max_output_bytes: int | None = None,
        scope: str = "",
    ) -> RuleRun:
        """Run one rule on `facts` in the sandbox; raise SandboxError saying why if it did not succeed.
        ``scope``: whose compile cache the rule may use (the tenant): no compile is shared across scopes."""
        overrides: dict[str, Any] = {
            "cpu_seconds": cpu_seconds,
            "wall_seconds": wall_seconds,
            "max_output_bytes": max_output_bytes,
        }
        lim = replace(self.limits, **{k: v for k, v in overrides.items() if v is not None})
        adapter = adapter if adapter is not None else build_output_adapter(output_schema)
        try:
            facts_json = json.dumps(facts, ensure_ascii=False, allow_nan=False, default=_facts_default)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"facts are not JSON data: {exc}") from None
        if len(facts_json.encode("utf-8", "surrogatepass")) > lim.max_facts_bytes:
            raise SandboxError(
                ErrorKind.LIMIT, "facts_size", f"facts exceed {lim.max_facts_bytes} bytes", filename=filename
            )
        request = {
            "op": "run",
            "source": source,
            "filename": filename,
            "scope": scope,
            "facts": facts_json,
            "cpu_seconds": int(lim.cpu_seconds),
            "max_output_bytes": int(lim.max_output_bytes),
        }
        try:
            meta, data, pid, elapsed = self._roundtrip(request, lim.wall_seconds, lim.max_output_bytes, lim.cpu_seconds)
        except SandboxError as exc:
            exc.filename = exc.filename or filename
            raise SandboxError(
                exc.kind, exc.code, exc.message, line=exc.line, filename=exc.filename, details=exc.details
            ) from None
        if not meta.get("ok"):
            raise _error_from_meta(meta, filename)
        assert data is not None
        try:
            output = validate_output(adapter, data)
        except OutputInvalid as exc:
            raise SandboxError(
                ErrorKind.OUTPUT,
                "schema",
                f"does not match the declared output: {exc}",
                filename=filename,
                details=exc.errors,
            ) from None
        present = facts.keys() if isinstance(facts, dict) else ()
        reads = [k for k in meta.get("reads", []) if isinstance(k, str) and k in present]
        missing = [
            one_line(k, 200)
            for k in meta.get("missing", [])[:64]
            if isinstance(k, str) and k not in present and len(k) <= 200
        ]
        return RuleRun(
            output=output,
            output_json=data.decode("utf-8"),
            reads=reads,
            missing=missing,
            sha256=source_sha256(source),
            elapsed_ms=elapsed,
            worker_ms=float(meta.get("worker_ms", 0.0)),
            worker_pid=pid,
            cache_hit=bool(meta.get("cache_hit", False)),
        )

    def check(self, source: str, filename: str = "<rule>", scope: str = "") -> None:
        """Compile the rule in a worker under the policy; raise SandboxError(REFUSED) if refused."""
        request = {"op": "check", "source": source, "filename": filename, "scope": scope}
        meta, _, _, _ = self._roundtrip(
            {**request, "cpu_seconds": int(self.limits.cpu_seconds)},
            self.limits.wall_seconds,
            0,
            self.limits.cpu_seconds,
        )
        if not meta.get("ok"):
            raise _error_from_meta(meta, filename)

    def probe(self) -> dict[str, Any]:
        """What a worker looks like from inside (fds, environment, uid, rlimits): for tests and audits."""
        meta, _, _, _ = self._roundtrip({"op": "probe"}, self.limits.wall_seconds, 0, self.limits.cpu_seconds)
        return meta


def _error_from_meta(meta: dict[str, Any], filename: str) -> SandboxError:
    kind = ErrorKind(meta.get("kind", "runtime"))
    problems = meta.get("problems") or []
    message = str(meta.get("message", "unknown error"))
    if problems:
        first = problems[0]
        message = str(first["message"])
        rest = [f"line {p['line']}: {p['message']}" if p.get("line") else p["message"] for p in problems[1:]]
        if rest:
            message += f" (+{len(rest)} more: " + "; ".join(rest) + ")"
    return SandboxError(
        kind, str(meta.get("code", "unknown")), message, line=meta.get("line"), filename=filename, details=problems
    )


_default: SandboxPool | None = None
_default_lock = threading.Lock()


def default_pool(size: int = 2) -> SandboxPool:
    """The process-wide pool (created on first use with ``size`` workers — ``Settings.sandbox_workers``,
    passed by the edge — and closed at exit)."""
    global _default
    with _default_lock:
        if _default is None or _default._closed:
            _default = SandboxPool(size=size)
            atexit.register(_default.close)
        return _default


__all__ = ["Limits", "RuleRun", "SandboxPool", "SandboxError", "ErrorKind", "default_pool", "source_sha256"]

"""Load on the HTTP API: N concurrent clients asking for the verdict of the example case for T seconds.

Starts its own uvicorn server in a child process on 127.0.0.1 (free port, temporary SQLite database, one
tenant; a separate process so the load generator does not share the server's GIL), creates
the example case, warms the verdict cache once, then runs the clients and stops by itself. Prints throughput,
p50/p99 latency, errors, and the CPU each request cost the server (``/proc/<pid>/stat``) and the load
generator: on 2 shared cores the latency follows the machine's load, the CPU per request follows the code.
Target: 0 errors, p99 < 500 ms (cached case).

The clients are ``api_load_client.RawClient`` (asyncio streams, one keep-alive connection each, ~0.5 ms of CPU
a request) rather than httpx (7–17 ms a request here): the load generator shares the cores it measures.
``--src DIR`` runs the server from another source tree (old code exported with ``git archive``, its
``lexlogic/`` holding links to its folders): before/after from one harness. ``--profile FILE``: the server
under cProfile (the event loop's thread only: a cached request, not a computation in the thread pool).

``--scenarios all`` (issue 33) adds, one after the other on the same server, each for the same duration:
* what-if, cached: the clients cycle over 8 what-ifs asked once before (POST …/what-if, persist=false);
* what-if, new: every request a prior never asked (a slider of the verdict's ``priors`` group, in turn);
* slider ranking: ONE client, each request new hypotheses (POST …/sensitivity, a cache miss every time);
* new case: the clients POST a case from the example's facts, then GET its verdict (two latencies).
Targets (issue 33, 16 clients): verdict p99 ≤ 250 ms, what-if p99 ≤ 300 ms, slider ranking < 1 s.

    .venv/bin/python benchmarks/api_load.py            # 16 clients, 30 s
    .venv/bin/python benchmarks/api_load.py --quick    # 16 clients, 5 s
    .venv/bin/python benchmarks/api_load.py --db postgres --hostile 4   # PostgreSQL (fresh schema), plus 4
                                                                         # clients sending poisoned requests

Hostile clients (issue 21) send, in turn, NaN/Infinity answers, NUL bytes, 9999-12-31 dates, 5,000-character
ids and what-if Infinity weights; each must answer 4xx (a 5xx counts as an error) and the verdict clients
must keep their latency.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import api_load_scenarios as scenarios
from api_load_client import ClientError, Meter, connect

from lexlogic.engine.store.tenants import TenantStore


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def _client(
    base: str, path: str, headers: dict[str, str], stop_at: float, lat: list[float], errors: list[str]
) -> None:
    async with connect(base, headers, timeout=10) as c:
        while time.perf_counter() < stop_at:
            t = time.perf_counter()
            try:
                r = await c.get(path)
                if r.status_code != 200 or b'"label":"LIABLE"' not in r.content:
                    errors.append(f"{r.status_code}")
            except ClientError as exc:
                errors.append(str(exc))
            lat.append(time.perf_counter() - t)


HOSTILE = [
    ("POST", "/v1/cases/{cid}/answers", b'{"answers": {"notice_given_months": NaN}}'),
    ("POST", "/v1/cases/{cid}/answers", b'{"answers": {"notification_date": "9999-12-31"}}'),
    ("POST", "/v1/cases/{cid}/answers", b'{"answers": {"notice_written": "a\\u0000b"}}'),
    ("POST", "/v1/cases/{cid}/what-if", b'{"weights": {"confiance_vs_liberte.I1": Infinity}}'),
    ("GET", "/v1/cases/" + "a" * 5000, None),
    ("POST", "/v1/cases", b'{"name": "a\\u0000b"}'),
]


async def _hostile(
    base: str, cid: str, headers: dict[str, str], stop_at: float, lat: list[float], errors: list[str]
) -> None:
    async with connect(base, headers, timeout=10) as c:
        i = 0
        while time.perf_counter() < stop_at:
            method, path, body = HOSTILE[i % len(HOSTILE)]
            i += 1
            t = time.perf_counter()
            try:
                r = await c.request(
                    method, path.format(cid=cid), content=body, headers={"content-type": "application/json"}
                )
                if not 400 <= r.status_code < 500:
                    errors.append(f"hostile {r.status_code}")
            except ClientError as exc:
                errors.append(f"hostile {exc}")
            lat.append(time.perf_counter() - t)


def _database(choice: str, tmp: Path) -> tuple[str, str]:
    """(URL, label): an SQLite file, a fresh schema on the local PostgreSQL, or the given URL."""
    if choice == "sqlite":
        return f"sqlite:///{tmp / 'api.db'}", "SQLite"
    if choice == "postgres":
        import uuid

        import psycopg

        base = os.environ.get("LEXLOGIC_TEST_PG", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
        schema = f"load_{uuid.uuid4().hex[:10]}"
        with psycopg.connect(base.replace("postgresql+psycopg", "postgresql"), autocommit=True) as conn:
            conn.execute(f'CREATE SCHEMA "{schema}"')
        return f"{base}?options=-csearch_path%3D{schema}", f"PostgreSQL (schema {schema})"
    return choice, choice.split("://")[0]


def _server_command(args: argparse.Namespace, port: int) -> list[str]:
    """The server's command line: uvicorn's own (the default) or ``lexlogic serve`` (``--launch serve``)."""
    if args.launch == "serve":
        serve = ["serve", "--host", "127.0.0.1", "--port", str(port), "--log-level", "warning", "--no-local"]
        return [sys.executable, "-m", "lexlogic.api", *serve, "--workers", str(args.workers)]
    return [
        sys.executable,
        *(["-m", "cProfile", "-o", str(args.profile.resolve())] if args.profile else []),
        "-m",
        "uvicorn",
        "lexlogic.api.app:create_app",
        "--factory",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--log-level",
        "warning",
        "--no-access-log",
        "--http",
        args.http,
        *(["--workers", str(args.workers)] if args.workers > 1 else []),
    ]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--clients", type=int, default=16)
    ap.add_argument("--seconds", type=float, default=30.0)
    ap.add_argument("--quick", action="store_true", help="5 seconds")
    ap.add_argument("--db", default="sqlite", help="sqlite | postgres | an SQLAlchemy URL")
    ap.add_argument("--hostile", type=int, default=0, help="extra clients sending poisoned requests")
    ap.add_argument(
        "--scenarios",
        default="verdict",
        help="verdict | all | a comma list of " + ", ".join(scenarios.NAMES) + " (after the verdict clients)",
    )
    ap.add_argument(
        "--src",
        type=Path,
        default=None,
        help="run the server from another source tree (e.g. an older commit exported with git archive, with a "
        "lexlogic/ of links to its folders): before/after figures from one harness",
    )
    ap.add_argument("--http", default="auto", help="uvicorn's HTTP parser: auto | h11 | httptools")
    ap.add_argument(
        "--workers",
        type=int,
        default=1,
        help="uvicorn worker processes (as `lexlogic serve --workers N`; each its own services and caches); the "
        "CPU figures add up every process of the server; > 1 also measures each process's first what-if",
    )
    ap.add_argument(
        "--busy",
        type=int,
        default=0,
        help="synthetic load: this many busy-loop processes (`nice -n --busy-nice`) started once the server is "
        "up and stopped at the end, beside the server",
    )
    ap.add_argument(
        "--launch",
        choices=["uvicorn", "serve"],
        default="uvicorn",
        help="uvicorn: `python -m uvicorn … --workers N` (one shared socket); serve: `lexlogic serve --workers N` "
        "as deployed (h11 with read timeouts; with N > 1 whatever that tree's serve does)",
    )
    ap.add_argument("--busy-nice", type=int, default=19, help="niceness of the --busy loops (19: the lowest)")
    ap.add_argument("--profile", type=Path, default=None, help="run the server under cProfile, its stats to FILE")
    args = ap.parse_args()
    seconds = 5.0 if args.quick else args.seconds
    tmp = Path(tempfile.mkdtemp(prefix="lexlogic-load-"))
    db, db_label = _database(args.db, tmp)
    store = TenantStore(db)
    _, key = store.create_key("load")
    store.close()
    port = _free_port()
    env = {**os.environ, "LEXLOGIC_DATABASE_URL": db, "LEXLOGIC_API_DATA": str(tmp / "data")}
    if args.src is not None:
        env["PYTHONPATH"] = str(args.src.resolve())
    server = subprocess.Popen(
        _server_command(args, port),
        cwd=args.src or ROOT,
        env=env,
    )
    scenarios.SERVER_PID = server.pid
    busy: list[subprocess.Popen] = []  # type: ignore[type-arg]
    try:
        _load(args, server, port, key, seconds, db_label, busy)
    finally:
        for b in busy:
            b.kill()
            b.wait()
        if server.poll() is None:  # never leave the server behind, even when the load failed
            # SIGINT under cProfile: uvicorn re-raises the signal it caught, and only KeyboardInterrupt lets
            # cProfile write its stats
            server.send_signal(signal.SIGINT) if args.profile else server.terminate()
            try:
                server.wait(timeout=15)
            except subprocess.TimeoutExpired:
                server.kill()
        _drop_schema(db_label)


def _drop_schema(db_label: str) -> None:
    """The benchmark's own PostgreSQL schema is dropped once its server has stopped (the database is shared)."""
    if not db_label.startswith("PostgreSQL (schema "):
        return
    import psycopg

    schema = db_label.removeprefix("PostgreSQL (schema ").rstrip(")")
    base = os.environ.get("LEXLOGIC_TEST_PG", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
    with psycopg.connect(base.replace("postgresql+psycopg", "postgresql"), autocommit=True) as conn:
        conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


def _start_busy(n: int, niceness: int) -> list[subprocess.Popen]:  # type: ignore[type-arg]
    """``n`` busy loops at ``niceness``: a machine that is not idle, made on purpose and said."""
    loop = [sys.executable, "-c", "while True: pass"]
    return [subprocess.Popen(["nice", "-n", str(niceness), *loop]) for _ in range(n)]


def _load(
    args: argparse.Namespace,
    server: subprocess.Popen,  # type: ignore[type-arg]
    port: int,
    key: str,
    seconds: float,
    db_label: str,
    busy: list[subprocess.Popen],  # type: ignore[type-arg]
) -> None:
    base, headers = f"http://127.0.0.1:{port}", {"X-API-Key": key}
    for _ in range(300):
        try:
            httpx.get(base + "/v1/health", timeout=1)
            break
        except httpx.HTTPError:
            time.sleep(0.1)
    busy += _start_busy(args.busy, args.busy_nice)
    if busy:
        print(f"synthetic load: {args.busy} busy loops at nice {args.busy_nice}, started with the server up")
    example = json.loads((ROOT / "examples/rupture_brutale/facts.json").read_text())
    if args.workers > 1 and args.scenarios != "verdict":
        asyncio.run(scenarios.first_whatif_per_worker(base, headers, example, args.workers))
    case_id = httpx.post(base + "/v1/cases", json={"case_file": example}, headers=headers, timeout=30).json()["id"]
    path = f"/v1/cases/{case_id}/verdict"
    t = time.perf_counter()
    first = httpx.get(base + path, headers=headers, timeout=30)
    cold = time.perf_counter() - t
    assert first.status_code == 200, first.text
    lat: list[float] = []
    hostile_lat: list[float] = []
    errors: list[str] = []
    stop_at = time.perf_counter() + seconds

    async def run() -> None:
        await asyncio.gather(
            *(_client(base, path, headers, stop_at, lat, errors) for _ in range(args.clients)),
            *(_hostile(base, case_id, headers, stop_at, hostile_lat, errors) for _ in range(args.hostile)),
        )

    with Meter(server.pid) as meter:
        t0 = time.perf_counter()
        asyncio.run(run())
        wall = time.perf_counter() - t0
    lat.sort()
    p = lambda q: lat[min(len(lat) - 1, int(q * len(lat)))] * 1000  # noqa: E731
    print(
        f"verdict of the example case, {args.clients} concurrent clients, {wall:.1f} s on 127.0.0.1 "
        f"(uvicorn, {args.workers} worker process{'es' if args.workers > 1 else ''})"
    )
    print(f"  database                       : {db_label}")
    if args.hostile:
        hostile_lat.sort()
        print(
            f"  hostile clients                : {args.hostile}, {len(hostile_lat)} poisoned requests "
            f"(p50 {hostile_lat[len(hostile_lat) // 2] * 1000:.1f} ms), all expected 4xx"
        )
    print(f"  server source                  : {args.src or ROOT}, load average {os.getloadavg()[0]:.1f}")
    print(f"  cold (first, uncached) request : {cold * 1000:.0f} ms")
    print(f"  requests                       : {len(lat)}  ({len(lat) / wall:.0f} req/s)")
    print(
        f"  latency p50 / p99 / max        : {p(0.50):.1f} / {p(0.99):.1f} / {lat[-1] * 1000:.1f} ms "
        f"(mean {statistics.mean(lat) * 1000:.1f})"
    )
    print(f"  errors                         : {len(errors)}" + (f" {sorted(set(errors))}" if errors else ""))
    print(f"  {meter.line(len(lat) + len(hostile_lat))}")
    ok = not errors and p(0.99) < 500
    print(f"  target (0 errors, p99 < 500 ms): {'met' if ok else 'NOT met'}")
    print(f"  issue 33 target (p99 ≤ 250 ms) : {'met' if not errors and p(0.99) <= 250 else 'NOT met'}")
    if args.scenarios != "verdict":
        only = None if args.scenarios == "all" else set(args.scenarios.split(","))
        scenarios.run_all(base, headers, case_id, args.clients, seconds, first.json(), only)


if __name__ == "__main__":
    main()

"""The what-if, slider-ranking and new-case scenarios of ``benchmarks/api_load.py --scenarios all`` (issue 33).

Each scenario runs on the server api_load started, after its verdict clients, for the same duration, and
prints p50 / p99 / max and errors next to the issue's target. Load average printed with each (2 shared cores:
read the figures with it).
"""

from __future__ import annotations

import asyncio
import collections
import os
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
from api_load_client import ClientError, Meter, RawClient, connect, serving_process

ROOT = Path(__file__).resolve().parents[1]
Request = Callable[[RawClient, int], Awaitable[bool]]
SERVER_PID: int | None = None  # set by api_load: the uvicorn process whose CPU each phase reports
STARTED: list[tuple[float, float]] = []  # (start, latency) of each request of the current phase
WORKER_OF: collections.Counter[str] = collections.Counter()  # answers per server process (its pid)
_SERVED: dict[int, str] = {}  # a client's local port → the pid of the process serving its connection


def served_by(c: RawClient) -> str:
    """The server process holding ``c``'s connection, looked up once per connection (``serving_process``; the
    ETags no longer tell the processes apart: they agree)."""
    hit = _SERVED.get(c.local_port)
    if hit is None:
        pid = serving_process(SERVER_PID, c.port, c.local_port) if SERVER_PID else None
        hit = _SERVED[c.local_port] = str(pid or "?")
    return hit


async def _loop(
    base: str, headers: dict[str, str], stop_at: float, lat: list[float], errors: list[str], req: Request
) -> None:
    """One client: ``req(client, i)`` until the time is up (False or an HTTP error counts as an error)."""
    async with connect(base, headers, timeout=60) as c:
        i = 0
        while time.perf_counter() < stop_at:
            t = time.perf_counter()
            try:
                if not await req(c, i):
                    errors.append("bad answer")
            except ClientError as exc:
                errors.append(str(exc))
            lat.append(time.perf_counter() - t)
            STARTED.append((t, lat[-1]))
            i += 1


def _phase(
    base: str, headers: dict[str, str], clients: int, seconds: float, make: Callable[[int], Request]
) -> tuple[list[float], list[str], float, Meter]:
    lat: list[float] = []
    errors: list[str] = []
    STARTED.clear()
    stop_at = time.perf_counter() + seconds

    async def run() -> None:
        await asyncio.gather(*(_loop(base, headers, stop_at, lat, errors, make(k)) for k in range(clients)))

    with Meter(SERVER_PID) as meter:
        t0 = time.perf_counter()
        asyncio.run(run())
        wall = time.perf_counter() - t0
    return sorted(lat), errors, wall, meter


def _report(
    title: str, lat: list[float], errors: list[str], wall: float, target_ms: float | None, meter: Meter | None = None
) -> None:
    if not lat:
        print(f"{title}: no request completed")
        return
    p = lambda q: lat[min(len(lat) - 1, int(q * len(lat)))] * 1000  # noqa: E731
    load = os.getloadavg()[0]
    print(f"{title}")
    print(f"  requests {len(lat)} ({len(lat) / wall:.1f} req/s), load average {load:.1f}")
    print(f"  latency p50 / p99 / max : {p(0.5):.1f} / {p(0.99):.1f} / {lat[-1] * 1000:.1f} ms")
    print(f"  errors                  : {len(errors)}" + (f" {sorted(set(errors))[:4]}" if errors else ""))
    if meter is not None:
        print(f"  {meter.line(len(lat))}")
    if target_ms is not None:
        ok = not errors and p(0.99) <= target_ms
        print(f"  target p99 ≤ {target_ms:.0f} ms   : {'met' if ok else 'NOT met'}")


def _steady(skip: float) -> None:
    """p50 / p99 of the requests started after the phase's first ``skip`` seconds (each process's first
    what-ifs on each slider, which build that slider's re-weighting draws, fall in those seconds)."""
    t0 = min(t for t, _ in STARTED)
    late = sorted(x for t, x in STARTED if t - t0 >= skip)
    if late:
        p50, p99 = late[len(late) // 2] * 1000, late[min(len(late) - 1, int(0.99 * len(late)))] * 1000
        print(f"  after the first {skip:.0f} s: {len(late)} requests, p50 / p99 {p50:.1f} / {p99:.1f} ms")


NAMES = ("whatif-cached", "whatif-new", "ranking", "new-case")


def run_all(
    base: str,
    headers: dict[str, str],
    case_id: str,
    clients: int,
    seconds: float,
    verdict: dict[str, Any],
    only: set[str] | None = None,
) -> None:
    """The four scenarios (``only`` these of ``NAMES``), one after the other."""
    want = only or set(NAMES)
    sliders = [s["name"] for s in verdict.get("sliders") or [] if s.get("group") == "priors"]
    if not sliders:
        print("what-if scenarios: the verdict has no prior slider")
        return
    path = f"/v1/cases/{case_id}/what-if"

    def whatif(values: Callable[[int, int], tuple[str, float]]) -> Callable[[int], Request]:
        def make(k: int) -> Request:
            async def req(c: RawClient, i: int) -> bool:
                name, x = values(k, i)
                r = await c.post(path, json={"priors": {name: x}})
                WORKER_OF[served_by(c)] += 1
                return r.status_code == 200 and b'"probability"' in r.content

            return req

        return make

    cached = [(sliders[j % len(sliders)], round(0.1 + 0.1 * j, 2)) for j in range(8)]
    if "whatif-cached" in want:
        with httpx.Client(base_url=base, headers=headers, timeout=120) as c:  # asked once: then cached
            for name, x in cached:
                assert c.post(path, json={"priors": {name: x}}).status_code == 200
        lat, err, wall, m = _phase(base, headers, clients, seconds, whatif(lambda k, i: cached[(k + i) % len(cached)]))
        _report(f"what-if, cached (8 what-ifs asked before), {clients} clients", lat, err, wall, 300, m)

    def fresh(k: int, i: int) -> tuple[str, float]:  # a value never asked: unique per client and request
        return sliders[(k + i) % len(sliders)], round(0.05 + 0.9 * ((k * 7919 + i * 104729) % 100003) / 100003, 6)

    if "whatif-new" in want:
        WORKER_OF.clear()
        _SERVED.clear()
        lat, err, wall, m = _phase(base, headers, clients, seconds, whatif(fresh))
        title = f"what-if, new (a prior never asked, {len(sliders)} sliders in turn), {clients} clients"
        _report(title, lat, err, wall, 300, m)
        print(f"  answers per server process: {sorted(WORKER_OF.values(), reverse=True)}")
        _steady(2.0)

    def ranking(k: int) -> Request:
        async def req(c: RawClient, i: int) -> bool:
            name, x = fresh(1000 + k, i)
            r = await c.post(f"/v1/cases/{case_id}/sensitivity", json={"priors": {name: x}})
            return r.status_code == 200 and b'"sliders"' in r.content

        return req

    if "ranking" in want:
        lat, err, wall, m = _phase(base, headers, 1, seconds, ranking)
        _report("slider ranking (POST …/sensitivity, new hypotheses each time), 1 client", lat, err, wall, 1000, m)
        lat, err, wall, m = _phase(base, headers, clients, seconds, ranking)
        _report(f"slider ranking, {clients} clients at once (no target: for the record)", lat, err, wall, None, m)
    if "new-case" in want:
        _new_cases(base, headers, clients, seconds)


def _new_cases(base: str, headers: dict[str, str], clients: int, seconds: float) -> None:
    """POST a case from the example's facts, then GET its verdict: the two latencies apart."""
    import json

    example = json.loads((ROOT / "examples/rupture_brutale/facts.json").read_text())
    posts: list[float] = []
    gets: list[float] = []

    def make(k: int) -> Request:
        async def req(c: RawClient, i: int) -> bool:
            t = time.perf_counter()
            r = await c.post("/v1/cases", json={"case_file": example, "name": f"load-{k}-{i}"})
            posts.append(time.perf_counter() - t)
            if r.status_code != 201:
                return False
            t = time.perf_counter()
            v = await c.get(f"/v1/cases/{r.json()['id']}/verdict")
            gets.append(time.perf_counter() - t)
            return v.status_code == 200

        return req

    lat, err, wall, m = _phase(base, headers, clients, seconds, make)
    _report(f"new case: POST + GET verdict, {clients} clients", lat, err, wall, None, m)
    _report("  of which POST /v1/cases", sorted(posts), [], wall, None)
    _report("  of which GET …/verdict (first)", sorted(gets), [], wall, None)


async def first_whatif_per_worker(
    base: str, headers: dict[str, str], case_file: dict[str, Any], workers: int, tries: int = 40
) -> None:
    """What a server process pays for its FIRST what-if on a case it has never seen, against one that has it.

    A case is created and its verdict read on one connection (process P: the verdict computed there, by the
    background warmer or the GET); then new connections, one at a time, each ask a new prior until every
    process has answered twice (the kernel hands a new connection to whichever process accepts first). Run
    before any other phase, so a process other than P has computed nothing yet: its first what-if is that of a
    fresh worker (the pack's first use in that process included)."""
    async with connect(base, headers, timeout=120) as c:
        r = await c.post("/v1/cases", json={"case_file": case_file, "name": "first-per-worker"})
        case_id = r.json()["id"]
        v = await c.get(f"/v1/cases/{case_id}/verdict")
        seen = served_by(c)
    _SERVED.clear()
    sliders = [s["name"] for s in v.json().get("sliders") or [] if s.get("group") == "priors"]
    firsts: dict[str, list[float]] = collections.defaultdict(list)
    for i in range(tries):
        async with connect(base, headers, timeout=120) as c:
            t = time.perf_counter()
            r = await c.post(
                f"/v1/cases/{case_id}/what-if", json={"priors": {sliders[i % len(sliders)]: 0.3 + i / 997}}
            )
            ms = (time.perf_counter() - t) * 1000
            firsts[served_by(c)].append(ms)
        _SERVED.clear()  # the next connection may get this one's port
        if len(firsts) >= workers and all(len(x) >= 2 for x in firsts.values()):
            break
    print(f"first what-ifs per server process ({workers} processes; new connections; before every other phase):")
    for boot, ms in firsts.items():
        who = "had the case's verdict" if boot == seen else "had never seen the case"
        print(f"  process {boot} ({who}): first {ms[0]:.0f} ms, second {ms[1] if len(ms) > 1 else float('nan'):.0f} ms")

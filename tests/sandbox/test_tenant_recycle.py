"""Issue 34, point 6: a worker recycled between tenants, its heap checked after each run.

The attack (measured on the old pool): tenant A's rule leaves 110 MB of garbage on a warm worker — a
cycle promoted to the oldest GC generation while still reachable, then dropped, so no collection frees it
before the next run, and the worker stays under its 128 MB recycle threshold. Tenant B's legitimate rule
that needs 150 MB then fails on memory it never used (« memory limit exceeded », first try). Now the pool
never hands a worker that ran one tenant's rules to another (a fresh interpreter instead), and the worker
collects its garbage after every run before it checks its size."""

from __future__ import annotations

from lexlogic.sandbox.pool import SandboxPool
from tests.sandbox.conftest import TEST_LIMITS

LEAVE = """def rule(facts):
    x = ['y' * 110000000]
    x.append(x)
    keep = [[i] for i in range(8000)]
    return {'left': len(keep)}
"""
NEED = "def rule(facts):\n    s = 'z' * 150000000\n    return {'n': len(s)}\n"
SMALL = "def rule(facts):\n    return {'ok': facts.get('x', 0)}\n"


def test_garbage_left_by_one_tenant_never_starves_the_next() -> None:
    with SandboxPool(size=1, limits=TEST_LIMITS) as pool:  # one worker: the victim would meet the garbage
        left = pool.run(LEAVE, {}, scope="attacker")
        victim = pool.run(NEED, {}, scope="victim")
        assert victim.output == {"n": 150_000_000}
        assert victim.worker_pid != left.worker_pid
        assert pool.recycled_for_tenant == 1


def test_garbage_is_collected_after_a_run_even_within_one_tenant() -> None:
    with SandboxPool(size=1, limits=TEST_LIMITS) as pool:
        left = pool.run(LEAVE, {}, scope="t")
        again = pool.run(NEED, {}, scope="t")  # the same worker: the heap was collected after the first run
        assert (again.output, again.worker_pid) == ({"n": 150_000_000}, left.worker_pid)


def test_no_worker_ever_serves_two_tenants() -> None:
    with SandboxPool(size=2, limits=TEST_LIMITS) as pool:
        pids: dict[str, set[int]] = {"a": set(), "b": set(), "": set()}
        for i, scope in enumerate("abab" + "aabb" + "ba"):
            pids[scope].add(pool.run(SMALL, {"x": i}, scope=scope).worker_pid)
        pool.check(SMALL, scope="")  # a compile check (the CLI's scope) is a use too
        pids[""].add(pool.run(SMALL, {"x": 0}).worker_pid)
        assert not (pids["a"] & pids["b"]) and not (pids[""] & (pids["a"] | pids["b"])), pids
        assert pool.recycled_for_tenant >= 1


def test_one_tenant_keeps_its_warm_workers() -> None:
    """Recycling is per change of tenant, not per call: a tenant's runs reuse its worker (and its cache)."""
    with SandboxPool(size=2, limits=TEST_LIMITS) as pool:
        runs = [pool.run(SMALL, {"x": i}, scope="a") for i in range(6)]
        assert len({r.worker_pid for r in runs}) == 1
        assert runs[-1].cache_hit and pool.recycled_for_tenant == 0


def test_a_stale_tenants_worker_is_the_one_recycled() -> None:
    """Found by the hostile suite: with one worker left idle by a tenant gone quiet, two active tenants took
    (and recycled) each other's hottest worker on every call. The worker idle the longest goes first."""
    with SandboxPool(size=2, limits=TEST_LIMITS) as pool:
        pool.run(SMALL, {}, scope="gone")
        pool.run(SMALL, {}, scope="a")  # the fresh worker: now one idle worker of "gone", one of "a"
        recycled = pool.recycled_for_tenant
        for i in range(6):
            pool.run(SMALL, {"x": i}, scope="ab"[i % 2])
        assert pool.recycled_for_tenant - recycled == 1  # "gone"'s worker, once; then a and b keep theirs

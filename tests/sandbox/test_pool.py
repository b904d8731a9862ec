"""The worker pool: results, isolation of the worker process, limits, replacement, concurrency."""

from __future__ import annotations

import copy
import os
import signal
import threading
import time
from datetime import date

import pytest

from lexlogic.sandbox.errors import ErrorKind, SandboxError
from lexlogic.sandbox.pool import Limits, SandboxPool, source_sha256
from lexlogic.sandbox.protocol import FrameError, read_frame, write_frame
from tests.sandbox.hostile_corpus import CORPUS, FACTS

NOTICE = """
def rule(facts):
    seniority = whole_months_between(facts["relation_start"], facts["notification_date"])
    reasonable = min(18, max(3, seniority // 12))
    return {"reasonable_notice_months": reasonable,
            "notice_sufficient": facts.get("notice_given_months", 0) >= reasonable}
"""
NOTICE_SCHEMA = {"reasonable_notice_months": "int", "notice_sufficient": "bool"}


def expected_notice(start: date, end: date, given: int) -> dict:
    months = (end.year - start.year) * 12 + end.month - start.month - (1 if end.day < start.day else 0)
    reasonable = min(18, max(3, months // 12))
    return {"reasonable_notice_months": reasonable, "notice_sufficient": given >= reasonable}


def test_a_rule_runs_and_its_output_is_validated(pool: SandboxPool) -> None:
    facts = {
        "relation_start": date(2012, 3, 1),
        "notification_date": "2021-06-15",
        "notice_given_months": 3,
        "unrelated": "secret",
    }
    run = pool.run(NOTICE, facts, output_schema=NOTICE_SCHEMA, filename="notice.py")
    assert run.output == {"reasonable_notice_months": 9, "notice_sufficient": False}
    assert run.reads == ["notice_given_months", "notification_date", "relation_start"]
    assert run.sha256 == source_sha256(NOTICE)
    assert run.worker_pid in pool.worker_pids()


def test_worker_is_a_fresh_isolated_process(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    monkeypatch.setenv("LEXLOGIC_LLM_API_KEY", "s3cret")
    monkeypatch.setenv("LEXLOGIC_DATABASE_URL", "postgresql://postgres@127.0.0.1/test")
    leak = open(tmp_path / "leak.txt", "w")  # an fd the parent deliberately makes inheritable
    os.set_inheritable(leak.fileno(), True)
    try:
        with SandboxPool(size=1, limits=Limits(memory_mb=200)) as pool:
            info = pool.probe()
    finally:
        leak.close()
    assert info["fds"] == [0, 1, 2], "only the two protocol pipes and /dev/null"
    assert set(info["env"]) <= {"PATH", "LANG", "LC_ALL"}
    assert info["cwd"] == "/" and info["sys_path_has_cwd"] is False
    assert info["pid"] != os.getpid()
    limits = info["rlimits"]
    assert limits["RLIMIT_AS"] == [200 * 1024 * 1024] * 2
    assert limits["RLIMIT_FSIZE"] == [0, 0] and limits["RLIMIT_NPROC"] == [0, 0] and limits["RLIMIT_CORE"] == [0, 0]
    assert limits["RLIMIT_CPU"][1] == Limits().lifetime_cpu_seconds
    if os.geteuid() == 0:
        assert info["uid"] == info["euid"] == 65534, "root is dropped to nobody before any rule runs"


def test_no_state_survives_from_one_run_to_the_next() -> None:
    with SandboxPool(size=1) as pool:
        tamper = (
            "len = lambda x: 42\nSTASH = {}\ndef rule(facts):\n    STASH['s'] = facts['secret']\n    return len([1])\n"
        )
        first = pool.run(tamper, {"secret": "client-name"})
        assert first.output == 42  # its own rebinding, in its own globals
        clean = pool.run("def rule(facts):\n    return len([1, 2])\n", {})
        assert clean.output == 2 and clean.worker_pid == first.worker_pid  # same worker, fresh builtins
        with pytest.raises(SandboxError, match="NameError: name 'STASH' is not defined"):
            pool.run("def rule(facts):\n    return STASH\n", {})


def test_the_input_is_a_read_only_copy(pool: SandboxPool) -> None:
    facts = {"items": [3, 1, 2], "d": {"k": 1}}
    before = copy.deepcopy(facts)
    run = pool.run(
        "def rule(facts):\n    xs = facts['items']\n    xs += [9]\n    d = dict(facts['d'])\n"
        "    d['k'] = 2\n    return {'xs': xs, 'd': d, 'again': facts['items'], 'k': facts['d']['k']}\n",
        facts,
    )
    assert run.output == {"xs": [3, 1, 2, 9], "d": {"k": 2}, "again": [3, 1, 2], "k": 1}
    assert facts == before


def test_wall_clock_timeout_kills_and_replaces_the_worker(pool: SandboxPool) -> None:
    before, replaced = pool.worker_pids(), pool.replaced
    start = time.monotonic()
    with pytest.raises(SandboxError) as info:
        pool.run("def rule(facts):\n    while True:\n        pass\n", {}, wall_seconds=0.5, cpu_seconds=30)
    assert time.monotonic() - start < 3.0
    assert info.value.kind is ErrorKind.LIMIT and info.value.code == "wall"
    assert "wall-clock timeout" in str(info.value)
    assert pool.replaced == replaced + 1 and pool.worker_pids() != before
    assert pool.run("def rule(facts):\n    return 1\n", {}).output == 1


def test_cpu_limit_is_enforced_by_the_kernel() -> None:
    # An idle machine reports "cpu"; a saturated one may reach the wall clock first: allow a wide wall.
    with SandboxPool(size=1, limits=Limits(cpu_seconds=1, wall_seconds=30)) as pool:
        with pytest.raises(SandboxError) as info:
            pool.run("def rule(facts):\n    while True:\n        pass\n", {})
        assert info.value.code == "cpu", info.value
        assert "CPU time limit of 1 s exceeded" in str(info.value)
        assert pool.replaced == 1


def test_a_worker_killed_from_outside_is_replaced(pool: SandboxPool) -> None:
    victim = pool.run("def rule(facts):\n    return 0\n", {}).worker_pid  # the hottest worker: used next
    os.kill(victim, signal.SIGKILL)
    time.sleep(0.2)
    run = pool.run("def rule(facts):\n    return facts['x'] * 2\n", {"x": 21})
    assert run.output == 42 and run.worker_pid != victim
    assert victim not in pool.worker_pids() and len(pool.worker_pids()) == pool.size


def test_protocol_caps_a_flooding_or_silent_peer() -> None:
    r, w = os.pipe()
    try:
        write_frame(w, b"x" * 100)
        with pytest.raises(FrameError) as info:
            read_frame(r, 10, time.monotonic() + 1)
        assert info.value.reason == "too_large" and info.value.size == 100
    finally:
        os.close(r)
        os.close(w)
    r, w = os.pipe()
    try:
        with pytest.raises(FrameError) as info:
            read_frame(r, 10, time.monotonic() + 0.2)  # a silent peer
        assert info.value.reason == "timeout"
        os.close(w)
        with pytest.raises(FrameError) as info:
            read_frame(r, 10, time.monotonic() + 1)  # a dead peer
        assert info.value.reason == "eof"
    finally:
        os.close(r)


def test_valid_stream_succeeds_while_hostile_rules_run() -> None:
    """Hostile rules (runaways, bombs, escapes) run on two threads while three threads stream valid
    executions through the same pool: every valid execution must succeed with the right answer."""
    hostile_ids = [
        "loop-while",
        "mem-str",
        "recursion",
        "import-plain",
        "out-str",
        "mutate-update",
        "mem-list-range",
        "subclasses-tuple",
        "loop-c-sum",
        "format-class",
    ]
    by_id = {h.id: h for h in CORPUS}
    hostile = [by_id[i] for i in hostile_ids]
    valid_results: list[tuple[dict, dict]] = []
    hostile_errors: list[SandboxError] = []
    failures: list[BaseException] = []
    lock = threading.Lock()

    with SandboxPool(size=3, limits=Limits(cpu_seconds=1, wall_seconds=5.0)) as pool:

        def attacker(cases: list) -> None:
            for case in cases:
                try:
                    pool.run(case.source, FACTS)
                except SandboxError as exc:
                    with lock:
                        hostile_errors.append(exc)
                except BaseException as exc:
                    failures.append(exc)

        def streamer(seed: int) -> None:
            for i in range(25):
                start = date(2000 + (seed * 7 + i) % 20, 1 + i % 12, 1 + (i * 3) % 28)
                end = date(2022, 1 + (i + seed) % 12, 1 + (i * 5) % 28)
                facts = {
                    "relation_start": start.isoformat(),
                    "notification_date": end.isoformat(),
                    "notice_given_months": (i + seed) % 20,
                }
                try:
                    run = pool.run(NOTICE, facts, output_schema=NOTICE_SCHEMA)
                    with lock:
                        valid_results.append((run.output, expected_notice(start, end, facts["notice_given_months"])))
                except BaseException as exc:
                    failures.append(exc)

        threads = [
            threading.Thread(target=attacker, args=(hostile[0::2],)),
            threading.Thread(target=attacker, args=(hostile[1::2],)),
        ]
        threads += [threading.Thread(target=streamer, args=(s,)) for s in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=120)
        assert not any(t.is_alive() for t in threads)

    assert failures == []
    assert len(valid_results) == 75
    assert all(got == want for got, want in valid_results)
    assert len(hostile_errors) == len(hostile)
    assert {e.kind for e in hostile_errors} >= {ErrorKind.LIMIT, ErrorKind.REFUSED, ErrorKind.RUNTIME}


def test_default_pool_is_shared_and_recreated_after_close() -> None:
    from lexlogic.sandbox.pool import default_pool

    first = default_pool()
    assert default_pool() is first
    assert first.run("def rule(facts):\n    return 'ok'\n", {}).output == "ok"
    first.close()
    with pytest.raises(RuntimeError, match="closed"):
        first.run("def rule(facts):\n    return 1\n", {})
    second = default_pool()
    try:
        assert second is not first and second.run("def rule(facts):\n    return 2\n", {}).output == 2
    finally:
        second.close()

"""Issue 33: portfolio chunks on real Celery workers (the machine's RabbitMQ and PostgreSQL).

- ``lexlogic batch DIR --portfolio`` with a broker sends the 40-case portfolio's chunks to a worker started
  here: its result lines equal the per-case path's (local pool) and the local portfolio's, line for line; the
  client says each chunk as it ends.
- two workers, one killed -9 while it holds a chunk whose cases are not recorded: still 40 lines, identical,
  each case recorded once (no repeat), the killed chunk's cases evaluated again (attempts ≥ 2), no lease left.
"""

from __future__ import annotations

import io
import json
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from lexlogic.engine.jobs.batch import BatchStore, run_batch, write_results
from lexlogic.engine.jobs.portfolio import run_portfolio
from lexlogic.engine.store.cases import CaseLease, CaseStore
from lexlogic.settings import Settings
from tests.distributed.conftest import LEXLOGIC, Cluster
from tests.support.packs import SHIPPED

pytestmark = pytest.mark.timeout(900)


def _jsonl(results) -> str:  # type: ignore[no-untyped-def]
    buf = io.StringIO()
    write_results(results, buf, "jsonl")
    return buf.getvalue()


@pytest.fixture(scope="module")
def references(portfolio: Path, tmp_path_factory) -> tuple[str, str]:  # type: ignore[no-untyped-def]
    """The per-case path (local pool, no broker) and the local portfolio: their results files."""
    d = tmp_path_factory.mktemp("refs")
    per_case = run_batch(
        portfolio,
        packs=SHIPPED,
        settings=Settings(),
        db_url=f"sqlite:///{d / 'a.db'}",
        distributed=False,
        concurrency=2,
    )
    local = run_portfolio(portfolio, packs=SHIPPED, db_url=f"sqlite:///{d / 'b.db'}", concurrency=1, distributed=False)
    assert local.mode == "portfolio"
    return _jsonl(per_case.results), _jsonl(local.results)


def test_cli_portfolio_on_a_worker_gives_the_per_case_lines(
    as_client: Cluster, portfolio: Path, references: tuple[str, str], tmp_path: Path
) -> None:
    per_case, local = references
    c = as_client
    c.start("pf1")
    out = tmp_path / "results.jsonl"
    res = subprocess.run(
        [LEXLOGIC, "batch", str(portfolio), "--portfolio", "--batch-id", "pf-cli", "-o", str(out), "--timeout", "600"],
        env=c.env(),
        capture_output=True,
        timeout=700,
    )
    err = res.stderr.decode(errors="replace")
    assert res.returncode == 0, err[-3000:]
    assert "Traceback" not in err
    assert "sur les workers Celery" in res.stdout.decode(errors="replace")
    lines = out.read_text(encoding="utf-8")
    assert lines == per_case and lines == local  # byte for byte: the per-case path and the local portfolio
    assert {json.loads(x)["status"] for x in lines.splitlines()} >= {"verdict", "awaiting_answer"}
    chunks = [x for x in err.splitlines() if x.startswith("batch: chunk ")]
    assert chunks and all(" done (" in x and "case(s): case-" in x for x in chunks), err[-2000:]
    assert sum(1 for x in err.splitlines() if x.startswith("[")) == 40  # one progress line per case
    store = CaseStore(c.db_url)
    rows = BatchStore.on(store.engine).items("pf-cli")
    assert len(rows) == 40 and all(r.attempts == 1 and r.repeats == 0 for r in rows)  # evaluated by the worker
    with store.Session() as s:
        assert s.query(CaseLease).filter(CaseLease.case_id.like("chunk-pf-cli-%")).count() == 0
    store.close()
    c.stop_all()


def _held_by(store: CaseStore, pids: set[int], prefix: str) -> list[dict[str, Any]]:
    with store.Session() as s:
        rows = s.query(CaseLease).filter(CaseLease.case_id.like(f"{prefix}%")).all()
        out = []
        for r in rows:
            parts = r.owner.rsplit(":", 2)
            if len(parts) == 3 and parts[1].isdigit() and int(parts[1]) in pids:
                out.append({"chunk": r.case_id, "keys": list(r.job.get("keys") or [])})
        return out


def test_worker_killed_mid_chunk_every_case_once(
    as_client: Cluster, portfolio: Path, references: tuple[str, str]
) -> None:
    per_case, _ = references
    c = as_client
    c.stop_all()
    c.start("k1")
    c.start("k2")
    pids = c.group("k1")
    store = CaseStore(c.db_url)
    bstore = BatchStore.on(store.engine)
    box: dict[str, Any] = {}

    def go() -> None:
        try:
            box["report"] = run_portfolio(
                portfolio,
                packs=SHIPPED,
                settings=Settings(),
                db_url=c.db_url,
                batch_id="pf-kill",
                distributed=True,
                timeout=600,
            )
        except Exception as exc:  # pragma: no cover - reported below
            box["error"] = exc

    t = threading.Thread(target=go)
    t.start()
    victim: dict[str, Any] | None = None
    deadline = time.monotonic() + 300
    while victim is None and time.monotonic() < deadline and t.is_alive():
        for held in _held_by(store, pids, "chunk-pf-kill-"):
            rows = bstore.items("pf-kill", held["keys"])  # k1 inside the evaluation: counted, nothing recorded
            if held["keys"] and all(r.status == "pending" and r.attempts >= 1 for r in rows):
                victim = held
                break
        else:
            time.sleep(0.01)
    assert victim, f"k1 never held a chunk ({'batch over' if not t.is_alive() else 'timeout'}): {box}"
    c.kill9("k1")  # mid-chunk: its lease stays (its owner dead), its message unacknowledged
    killed_done = {r.key: r.status for r in bstore.items("pf-kill", victim["keys"])}
    assert all(v == "pending" for v in killed_done.values()), "k1 recorded its chunk before the kill"
    t.join(700)
    assert "error" not in box, box.get("error")
    report = box["report"]
    assert report.mode == "portfolio_celery" and len(report.results) == 40
    assert _jsonl(report.results) == per_case  # every line, identical to the per-case path
    rows = bstore.items("pf-kill")
    assert len(rows) == 40 and all(r.status == "done" for r in rows)
    assert all(r.repeats == 0 for r in rows)  # no result written twice
    redone = {r.key: r.attempts for r in rows if r.key in victim["keys"]}
    assert all(n >= 2 for n in redone.values()), redone  # the killed chunk was evaluated again, by k2
    assert store.orphans() == [] and store.lease(victim["chunk"]) is None
    again = run_portfolio(
        portfolio, packs=SHIPPED, settings=Settings(), db_url=c.db_url, batch_id="pf-kill", distributed=True, timeout=60
    )
    assert again.skipped == 40 and _jsonl(again.results) == per_case  # resumable: nothing left to do
    store.close()

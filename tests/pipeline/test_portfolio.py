"""Portfolio mode (``lexlogic batch --portfolio``) gives the per-case path's results on the 40-case portfolio.

The per-case path runs every case as a stored run (a snapshot per transition, a process pool); portfolio
mode groups the case files by pack and skeleton and runs each group in one process without snapshots.
Compared item by item: the whole result line (status, verdict, P(target) as printed, missing facts,
question, steps), and P(target) unrounded to 1e-12 against the per-case run's stored final state.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lexlogic.engine.case.machine import Phase
from lexlogic.engine.jobs.batch import run_batch, write_results
from lexlogic.engine.jobs.batch_store import BatchStore
from lexlogic.engine.jobs.portfolio import run_portfolio
from lexlogic.engine.jobs.portfolio_groups import InMemoryMachine, final_state, group_items, library, run_case
from lexlogic.engine.store.cases import CaseStore
from lexlogic.settings import Settings
from tests.distributed.make_cases import write_cases
from tests.support.packs import SHIPPED

pytestmark = pytest.mark.timeout(900)


@pytest.fixture(scope="module")
def forty(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("portfolio") / "cases"
    write_cases(d, 40)
    return d


@pytest.fixture(scope="module")
def per_case(forty: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, dict[str, float]]:
    """The per-case path: its results file and each item's unrounded P(target) from its stored final state."""
    db = f"sqlite:///{tmp_path_factory.mktemp('per-case') / 'b.db'}"
    report = run_batch(forty, packs=SHIPPED, settings=Settings(), db_url=db, distributed=False, concurrency=2)
    store = CaseStore(db)
    p: dict[str, float] = {}
    for row in BatchStore(store.engine).items(report.batch_id):
        latest = store.latest(row.run_id)
        assert latest is not None
        prob = (latest[1].get("evaluation") or {}).get("probability") or {}
        p[row.key] = prob.get("p_target")
    store.close()
    return _jsonl(report.results), p


def _jsonl(results) -> str:  # type: ignore[no-untyped-def]
    buf = io.StringIO()
    write_results(results, buf, "jsonl")
    return buf.getvalue()


def test_portfolio_results_are_the_per_case_results(forty: Path, per_case, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    expected, _ = per_case
    report = run_portfolio(forty, packs=SHIPPED, db_url=f"sqlite:///{tmp_path / 'p.db'}", concurrency=2)
    assert report.mode == "portfolio" and report.total == 40
    got = _jsonl(report.results)
    for a, b in zip(got.splitlines(), expected.splitlines(), strict=True):
        assert json.loads(a) == json.loads(b)
    lines = [json.loads(x) for x in got.splitlines()]
    assert {x["status"] for x in lines} >= {"verdict", "awaiting_answer"}  # both kinds of ending are compared
    assert sum(bool(x["missing"]) for x in lines) >= 8
    assert all("proof" not in x for x in lines)  # asked for only (--proofs)


def test_probabilities_to_1e_12_and_groups_share_a_process(forty: Path, per_case) -> None:  # type: ignore[no-untyped-def]
    _, p_case = per_case
    store = CaseStore(f"sqlite:///{forty.parent / 'rows.db'}")
    from lexlogic.engine.jobs.batch import discover

    bstore = BatchStore(store.engine)
    bstore.open("rows", str(forty), discover(forty))
    groups, invalid = group_items(bstore.items("rows"), SHIPPED)
    store.close()
    assert not invalid and 1 < len(groups) < 40 and sum(len(g.items) for g in groups) == 40
    packs = library(str(SHIPPED.root))
    checked = 0
    for g in groups:  # each group's cases one after the other in this process, as a pool worker runs them
        for key, path, run_id in g.items:
            state = final_state(InMemoryMachine(packs), packs, key, path, run_id)
            ev = state.evaluation
            p = ev.probability.p_target if ev is not None and ev.probability is not None else None
            if p_case[key] is None:
                assert p is None, key
                continue
            assert p is not None and abs(p - p_case[key]) <= 1e-12, (key, p, p_case[key])
            checked += 1
    assert checked >= 30


def test_cli_portfolio_with_and_without_proofs(tmp_path: Path) -> None:
    from lexlogic.api.cli import app

    d = tmp_path / "cases"
    write_cases(d, 3)
    for extra, has_proof in (([], False), (["--proofs"], True)):
        out = tmp_path / f"out{len(extra)}.jsonl"
        db = f"sqlite:///{tmp_path / f'b{len(extra)}.db'}"
        r = CliRunner().invoke(app, ["batch", str(d), "--portfolio", *extra, "-c", "1", "--db", db, "-o", str(out)])
        assert r.exit_code == 0, r.output
        lines = [json.loads(x) for x in out.read_text().splitlines()]
        assert len(lines) == 3
        assert all(("proof" in x) is has_proof for x in lines)
        if has_proof:
            assert all(x["proof"]["proof"] is not None for x in lines if x["status"] == "verdict")
    r = CliRunner().invoke(app, ["batch", str(d), "--proofs", "--db", f"sqlite:///{tmp_path / 'x.db'}"])
    assert r.exit_code != 0 and "--portfolio" in r.output


def test_an_invalid_case_file_is_the_same_line_both_ways(tmp_path: Path) -> None:
    d = tmp_path / "cases"
    write_cases(d, 2)
    bad = json.loads((d / "case-0000.json").read_text())
    bad["facts"]["notice_given_months"] = "beaucoup"
    (d / "case-0002.json").write_text(json.dumps(bad))
    one = run_batch(
        d, packs=SHIPPED, settings=Settings(), db_url=f"sqlite:///{tmp_path / 'a.db'}", distributed=False, concurrency=1
    )
    two = run_portfolio(d, packs=SHIPPED, db_url=f"sqlite:///{tmp_path / 'b.db'}", concurrency=1)
    assert _jsonl(one.results) == _jsonl(two.results)
    line = json.loads(_jsonl(two.results).splitlines()[2])
    assert line["status"] == "invalid" and "notice_given_months" in line["message"]


def _turnover_cases(d: Path, n: int = 12) -> list[Path]:
    """Portfolio cases with the turnover instead of the gross margin: liability settled, the margin rate left to
    a law — the damages' own question (``finish_verdict``'s output questions) enters their result lines."""
    from tests.distributed.make_cases import variation

    d.mkdir(parents=True, exist_ok=True)
    paths = []
    for i in range(n):
        case = variation(i)
        margin = case["facts"].pop("annual_gross_margin")
        case["facts"]["annual_turnover"] = {year: amount * 4 for year, amount in margin.items()}
        case["case_id"] += "-turnover"
        paths.append(d / f"turnover-{i:04d}.json")
        paths[-1].write_text(json.dumps(case), encoding="utf-8")
    return paths


def test_result_only_lines_are_the_whole_verdicts_lines(forty: Path, tmp_path: Path) -> None:
    """Without --proofs a case's verdict is built as far as its line reads it (no trees, no distributions unless
    a question about the damages can come from them, solutions shared by input assignment, plans' orders
    remembered); each line equals the one the whole verdict gives (``build_verdict``, the per-case path's
    evaluator), case by case, in one process — the shared memos warm, as in a group. The turnover cases make
    the damages' questions part of the lines."""
    packs = library(str(SHIPPED.root))
    paths = sorted(forty.glob("*.json"))[:20] + _turnover_cases(tmp_path / "turnover")
    damages_asked = 0
    for p in paths:
        lean = run_case(packs, p.name, str(p), f"r-{p.stem}", False)
        whole = run_case(packs, p.name, str(p), f"r-{p.stem}", True)
        assert lean.pop("proof") is None and whole.pop("proof") is not None
        assert lean == whole, p.name
        damages_asked += p.name.startswith("turnover") and "margin_rate_pct" in lean["missing"]
    assert damages_asked >= 4


def test_the_in_memory_loop_detector_stops_where_the_hashing_one_does(forty: Path) -> None:
    """A portfolio run compares its states' loop keys unhashed (``InMemoryMachine.loop_key``): a cycling run
    stops at the same step, with the same message (the state's hash in it), as with the hashes the store keeps."""

    class Cycling(InMemoryMachine):
        def _evaluate(self, state):  # type: ignore[no-untyped-def]
            state.plan, state.phase = None, Phase.PLANNING  # a faulty step: back to planning, again and again
            return state

    class CyclingHashed(Cycling):
        def loop_key(self, state):  # type: ignore[no-untyped-def]
            return state.logical_hash()

    packs = library(str(SHIPPED.root))
    path = sorted(forty.glob("*.json"))[0]
    ends = [final_state(m(packs), packs, path.name, str(path), "r-loop") for m in (Cycling, CyclingHashed)]
    assert ends[0].status == "stopped_loop" and "loop detected: state " in ends[0].message
    assert (ends[0].status, ends[0].message, ends[0].budget.steps) == (
        ends[1].status,
        ends[1].message,
        ends[1].budget.steps,
    )

"""Issue 28: a large snapshot field is stored as a DAG (shared sub-trees once) and reads back identical —
the typed Verdict with its proof trees, through the real store."""

from __future__ import annotations

import base64
import json
import zlib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lexlogic.api.cli import app
from lexlogic.engine.store import compact
from lexlogic.engine.store.cases import CaseStore
from lexlogic.engine.verdict.model import Verdict

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def verdict() -> Verdict:
    facts = ROOT / "examples" / "rupture_brutale" / "facts.json"
    result = CliRunner().invoke(app, ["analyze", str(facts), "--no-input", "--format", "json"])
    assert result.exit_code == 0, result.output
    return Verdict.model_validate(json.loads(result.stdout))


def test_a_verdict_reads_back_as_the_same_typed_verdict(verdict: Verdict) -> None:
    plain = verdict.model_dump(mode="json")
    stored = compact.pack(plain)
    assert set(stored) == {compact.DAG}
    back = compact.unpack(json.loads(json.dumps(stored)))  # through JSON, as the database holds it
    assert back == plain
    assert json.dumps(back) == json.dumps(plain)  # same keys in the same order, not only equal
    assert Verdict.model_validate(back) == verdict


def test_the_proof_trees_are_shared_not_repeated(verdict: Verdict) -> None:
    plain = verdict.model_dump(mode="json")
    dag = compact.to_dag(plain)
    assert dag is not None and dag["nodes"]
    raw = len(json.dumps(plain, separators=(",", ":")))
    assert len(json.dumps(dag, separators=(",", ":"))) < raw / 2
    deflated_plain = len(zlib.compress(json.dumps(plain, separators=(",", ":")).encode(), 6))
    assert len(base64.b64decode(compact.pack(plain)[compact.DAG])) < deflated_plain


def test_references_expand_into_separate_copies() -> None:
    leaf = {"atom": "notice_written", "label": "x" * 80, "children": []}
    value = {"a": [leaf, leaf], "b": {"proof": leaf}, "pad": "y" * 9000}
    back = compact.unpack(compact.pack(value))
    assert back == value
    back["a"][0]["label"] = "changed"
    assert back["a"][1]["label"] == "x" * 80 and back["b"]["proof"]["label"] == "x" * 80


def test_data_that_looks_like_a_reference_is_kept_as_it_is() -> None:
    value = {"a": [{compact.REF: 0}, {compact.REF: 0}], "pad": "y" * 9000}
    stored = compact.pack(value)
    assert set(stored) == {compact.DEFLATED}
    assert compact.unpack(stored) == value


def test_older_deflated_rows_still_read() -> None:
    value = {"pad": "z" * 10000}
    old = {compact.DEFLATED: base64.b64encode(zlib.compress(json.dumps(value).encode())).decode()}
    assert compact.unpack(old) == value


def test_the_store_returns_the_verdict_it_was_given(verdict: Verdict, tmp_path: Path) -> None:
    store = CaseStore(f"sqlite:///{tmp_path / 'store.db'}")
    plain = verdict.model_dump(mode="json")
    state = {"phase": "done", "evaluation": plain}
    store.save("c1", {"phase": "init"}, phase="init", status="running", state_hash="h0")
    store.save("c1", state, phase="done", status="verdict", state_hash="h1")
    with store.engine.connect() as conn:
        row = conn.exec_driver_sql("select state from case_states where seq = 2").scalar_one()
    row = json.loads(row) if isinstance(row, str) else row
    assert compact.DAG in row["__changes__"]["set"]["evaluation"]
    store._last.clear()  # read from the database, not the writer's memory
    assert Verdict.model_validate(store.get("c1", 2)["evaluation"]) == verdict
    store.close()

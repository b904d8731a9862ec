"""The offline extractor on a corpus of small, varied French documents it was not written against:
letters, e-mails (.eml and plain text), contract excerpts, a lawyer's note, an accountant's statement.

Expected findings live in ``data/extractor/expected.yaml`` (written from the documents before the rules),
including negative cases: arbitration mentioned only to deny it, « nous ne vous avons jamais adressé de
mise en demeure », a notice offered in the conditional. Every grounding must quote its document exactly.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.support.packs import SHIPPED

DATA = Path(__file__).parent / "data" / "extractor"
EXPECTED = yaml.safe_load((DATA / "expected.yaml").read_text(encoding="utf-8"))


def _run(case: str):
    from lexlogic.engine.documents.ingest import ingest_dossier
    from lexlogic.engine.perception.model import to_case_file
    from lexlogic.engine.perception.offline import extract

    docs = ingest_dossier(DATA / case)
    return docs, to_case_file(extract(docs, SHIPPED.pack("rupture_brutale")), case, SHIPPED.pack("rupture_brutale"))


def score() -> dict[str, float]:
    """Precision and recall over the corpus: a fact counts as right only if its merged value is the expected one;
    any emitted fact that is not expected is a false positive."""
    tp = fp = fn = 0
    for case, exp in EXPECTED.items():
        facts = {k: v["value"] for k, v in _run(case)[1]["facts"].items()}
        want = exp["facts"]
        tp += sum(1 for k, v in want.items() if k in facts and facts[k] == v)
        fn += sum(1 for k, v in want.items() if k not in facts or facts[k] != v)
        fp += sum(1 for k, v in facts.items() if k not in want or want[k] != v)
    return {"tp": tp, "fp": fp, "fn": fn, "precision": tp / max(tp + fp, 1), "recall": tp / max(tp + fn, 1)}


@pytest.fixture(scope="module")
def runs():
    return {case: _run(case) for case in EXPECTED}


def test_corpus_has_enough_varied_documents():
    files = [p for p in DATA.rglob("*") if p.is_file() and p.name != "expected.yaml"]
    assert len(files) >= 12 and {p.suffix for p in files} >= {".md", ".txt", ".eml"}


@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_expected_facts_and_values(case, runs):
    facts = runs[case][1]["facts"]
    for name, value in EXPECTED[case]["facts"].items():
        assert name in facts, f"{case}: {name} not found"
        assert facts[name]["value"] == value, f"{case}: {name}"
    for name in EXPECTED[case].get("absent", []):
        assert name not in facts, f"{case}: {name} should not be emitted ({facts.get(name)})"
    unexpected = set(facts) - set(EXPECTED[case]["facts"])
    assert not unexpected, f"{case}: unexpected facts {sorted(unexpected)}"


@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_every_grounding_quote_is_the_document_text(case, runs):
    docs, case_file = runs[case]
    by_id = {d.id: d for d in docs}
    for name, fv in case_file["facts"].items():
        for reading in [fv, *fv.get("alternatives", [])]:
            assert reading["grounding"], f"{case}: {name} has no grounding"
            for g in reading["grounding"]:
                assert by_id[g["document_id"]].text[g["char_start"] : g["char_end"]] == g["quote"], (case, name)
                assert g["quote"].strip() == g["quote"] and g["quote"], (case, name)


def test_negative_cases_read_as_denials(runs):
    f5 = runs["05-lettre-avocat-sans-preavis"][1]["facts"]
    assert f5["formal_notice_sent"]["value"] is False
    assert "jamais adressé" in f5["formal_notice_sent"]["grounding"][0]["quote"]
    f6 = runs["06-courriel-jamais-mise-en-demeure"][1]["facts"]
    assert "Nous ne vous avons jamais adressé de mise en demeure" in f6["formal_notice_sent"]["grounding"][0]["quote"]
    f7 = runs["07-note-avocat-partielle"][1]["facts"]
    assert f7["arbitration_clause"]["value"] is False
    f8 = runs["08-courriel-conditionnel"][1]["facts"]
    assert set(f8) == {
        "private_label",
        "private_label_author_distributes",
    }  # « nous pourrions … mettre fin »: no rupture


def test_oral_notice_is_grounded_on_the_oral_words(runs):
    fv = runs["01-lettre-orale"][1]["facts"]["notice_written"]
    assert fv["value"] is False and any(g["quote"] == "oralement" for g in fv["grounding"])


def test_precision_and_recall_over_the_corpus():
    s = score()
    assert s["recall"] >= 0.95 and s["precision"] >= 0.95, s


if __name__ == "__main__":  # figures for the notes
    print(score())


HELDOUT = Path(__file__).parent / "data" / "extractor_heldout"


def test_heldout_set_floor_and_exact_groundings():
    """Written after the rules and scored blind first (P 0.93, R 0.52; see notes/issue-6.md). Two general fixes
    followed; the remaining misses are known limits, so only a floor is asserted here."""
    from lexlogic.engine.documents.ingest import ingest_dossier
    from lexlogic.engine.perception.model import to_case_file
    from lexlogic.engine.perception.offline import extract

    expected = yaml.safe_load((HELDOUT / "expected.yaml").read_text(encoding="utf-8"))
    tp = fp = fn = 0
    for case, exp in expected.items():
        docs = ingest_dossier(HELDOUT / case)
        facts = to_case_file(extract(docs, SHIPPED.pack("rupture_brutale")), case, SHIPPED.pack("rupture_brutale"))[
            "facts"
        ]
        by_id = {d.id: d for d in docs}
        for fv in facts.values():
            for g in fv["grounding"]:
                assert by_id[g["document_id"]].text[g["char_start"] : g["char_end"]] == g["quote"]
        for name in exp.get("absent", []):
            assert name not in facts, (case, name)
        got = {k: v["value"] for k, v in facts.items()}
        tp += sum(1 for k, v in exp["facts"].items() if got.get(k) == v)
        fn += sum(1 for k, v in exp["facts"].items() if got.get(k) != v)
        fp += sum(1 for k, v in got.items() if exp["facts"].get(k) != v)
    assert tp / (tp + fp) >= 0.9 and tp / (tp + fn) >= 0.7, (tp, fp, fn)

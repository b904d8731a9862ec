"""Issue 29: every face says only what is known, on both shipped dossiers.

The CLI text (with and without the proof), the JSON of the run and the HTML report are scanned: no fact the
machine read is worded as established, no ✔ or ✘ above a passage read by the machine, no template
placeholder. The checks read the rendered text only (indentation, marks, words), not the code that chose
the marks, and the case file's own confidences tell which facts were read.
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from lexlogic.api.report_html import render_report
from lexlogic.api.verdict_text import render_verdict
from lexlogic.engine.case.dossier import run_dossier
from lexlogic.engine.verdict.build import build_verdict, read_case
from tests.support.packs import SHIPPED

ROOT = Path(__file__).resolve().parents[2]
DOSSIERS = [ROOT / "examples" / "rupture_brutale" / "dossier", ROOT / "examples" / "late_payment" / "dossier"]
PLACEHOLDER = re.compile(r"\{[A-Za-z_][A-Za-z_0-9.]*\}|\bN jours\b|\bNone\b|\bnan\b|\bnull\b")
SETTLED_MARK = re.compile(r"^(\s*)([✔✘]) ")


@pytest.fixture(scope="module", params=DOSSIERS, ids=lambda p: p.parent.name)
def run(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("run")
    result = run_dossier(
        request.param,
        packs=SHIPPED,
        db_url=f"sqlite:///{tmp / 'db.sqlite'}",
        out_dir=tmp,
        fresh=True,
        render_report=render_report,
    )
    assert result.verdict is not None
    pack = SHIPPED.pack(result.verdict.pack)
    return {
        "result": result,
        "pack": pack,
        "text": render_verdict(result.verdict, pack) + "\n" + render_verdict(result.verdict, pack, proof=True),
        "json": result.model_dump_json(),
        "report": Path(str(result.report)).read_text(encoding="utf-8"),
    }


def read_facts(case_file: dict[str, Any]) -> set[str]:
    """The facts a reader proposed: a confidence below 1 (the reader's), or several readings."""
    out = set()
    for name, raw in (case_file.get("facts") or {}).items():
        readings = [raw, *(raw.get("alternatives") or [])] if isinstance(raw, dict) else []
        if len(readings) > 1 or any(float(r.get("confidence", 1.0)) < 1.0 for r in readings):
            out.add(name)
    return out


def settled_blocks(text: str) -> list[list[str]]:
    """Each line marked ✔ or ✘ with the lines indented below it (its premises and their evidence)."""
    lines = text.splitlines()
    blocks = []
    for i, line in enumerate(lines):
        m = SETTLED_MARK.match(line)
        if not m:
            continue
        depth, block = len(m.group(1)), [line]
        for nxt in lines[i + 1 :]:
            if not nxt.strip() or len(nxt) - len(nxt.lstrip()) <= depth:
                break
            block.append(nxt)
        blocks.append(block)
    return blocks


def test_read_facts_are_never_worded_established(run: dict[str, Any]) -> None:
    result = run["result"]
    read = read_facts(result.case_file)
    assert read, "the dossier's facts are all machine readings"
    rows = [r for r in result.verdict.facts if r.fact in read and r.status != "remplacé par la réponse donnée"]
    assert rows
    for row in rows:
        assert "lu dans" in row.status and row.status.endswith("(à confirmer)"), (row.fact, row.status)
    for face in ("text", "json", "report"):
        assert "établi par les pièces" not in run[face], face
    # the faces: a read fact is « lu dans … (à confirmer) » in the facts table of the report
    for row in rows:
        assert row.status in run["report"] or row.status.replace("'", "&#39;") in run["report"]


def test_no_settled_mark_above_a_reading(run: dict[str, Any]) -> None:
    """CLI (short view and proof): a ✔/✘ line never has a machine reading or a point to confirm below it."""
    for block in settled_blocks(run["text"]):
        below = "\n".join(block[1:])
        assert "lu dans" not in below and "(à confirmer)" not in below and "?" not in below[:1], block
    v = run["result"].verdict
    read = read_facts(run["result"].case_file)
    for name, state in v.outcome_states.items():  # an outcome worded settled has no reading in its proof
        proof = v.outcomes[name].proof
        if state in ("établi", "non établi") and proof is not None:
            leaves = {n.atom.removeprefix("not ").split("(")[0] for n in proof.walk()}
            assert not leaves & read, (name, sorted(leaves & read))


class _Marks(HTMLParser):
    """The report's proof and reasons: every <li> with its mark and the text of everything inside it."""

    def __init__(self) -> None:
        super().__init__()
        self.open: list[list[str]] = []
        self.items: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "li":
            self.open.append([])

    def handle_endtag(self, tag: str) -> None:
        if tag == "li" and self.open:
            text = "".join(self.open.pop())
            self.items.append(text)
            if self.open:
                self.open[-1].append(text)

    def handle_data(self, data: str) -> None:
        if self.open:
            self.open[-1].append(data)


def test_report_marks_rest_on_established_facts(run: dict[str, Any]) -> None:
    parser = _Marks()
    parser.feed(run["report"])
    settled = [t.strip() for t in parser.items if t.strip()[:1] in ("✔", "✘")]
    for item in settled:
        assert "lu dans" not in item and "(à confirmer)" not in item, item[:300]
    assert any(t.strip()[:1] == "◇" for t in parser.items), "the readings to confirm are marked"


def test_no_placeholder_reaches_the_user(run: dict[str, Any]) -> None:
    verdict = json.loads(run["json"])["verdict"]
    words = [verdict["headline"], verdict.get("remedy_text") or "", verdict["status_text"]]
    words += [r["sentence"] for r in verdict["reasons"]] + [f["value"] for f in verdict["facts"]]
    words += [f["status"] for f in verdict["facts"]]
    for text in [*words, run["text"]]:
        assert not PLACEHOLDER.search(text), PLACEHOLDER.search(text)
    body = re.sub(r"<[^>]+>", " ", run["report"].split('<section class="documents">')[0])
    assert not PLACEHOLDER.search(body), PLACEHOLDER.search(body)


@pytest.mark.parametrize("example", ["rupture_brutale", "late_payment"])
def test_a_facts_file_is_given_and_established(example: str) -> None:
    """The other side of the line: facts a person wrote in the case file are given, and what rests on them
    alone is « établi » with ✔ (the marks above are not simply gone)."""
    case = json.loads((ROOT / "examples" / example / "facts.json").read_text(encoding="utf-8"))
    v = build_verdict(read_case(SHIPPED, case), packs=SHIPPED, sliders=False)
    assert "établi" in v.outcome_states.values()
    assert all(k.on_record for k in v.outcome_knowledge.values() if k.basis.value == "given")
    text = render_verdict(v, SHIPPED.pack(v.pack))
    assert "✔" in text and "lu dans" not in text


def test_colours_and_words_are_the_packs(run: dict[str, Any]) -> None:
    """The verdict's colour is the pack's polarity (no red for a target that is not a liability), its words
    the pack's target label and defeaters heading; the badge never says more than the headline."""
    verdict, pack, report = run["result"].verdict, run["pack"], run["report"]
    colours = pack.manifest.target_colours
    label = str(verdict.label.value)
    expected = {"LIABLE": colours.holds, "NOT_LIABLE": colours.fails, "UNDETERMINED": "open"}.get(label, "neutral")
    section = re.search(r'<section class="verdict ([^"]*)" id="verdict"', report)
    assert section, "no verdict section in the report"
    classes = section.group(1).split()
    assert f"tone-{expected}" in classes and "verdict-holds" not in classes, (label, classes)
    if pack.name == "late_payment":
        assert "tone-red" not in classes
    for face in (run["text"], report):
        assert "LIABLE" not in face and "P(liability)" not in face and "P(liable)" not in face
    assert f"Probabilité ({pack.target_label})" in report or "Probabilité" not in report
    # badge and headline agree: « Verdict » only when the headline settles the target on established premises
    headline = re.search(r'<h2 id="headline">([^<]*)</h2>', report)
    assert headline is not None
    badge, _, said = headline.group(1).partition(" : ")
    if badge == "Verdict":
        assert label in ("LIABLE", "NOT_LIABLE") and "indétermin" not in said.lower() and "confirmer" not in said
    if label == "UNDETERMINED":
        assert badge != "Verdict"
    # the defeaters set aside under the pack's own heading
    sentences = [r.sentence for r in verdict.reasons if r.check == "defeaters"]
    assert sentences, "no defeater examined"
    assert all(s.startswith(pack.manifest.defeaters_heading) for s in sentences), sentences
    assert "Examinés et écartés" not in run["text"] + report

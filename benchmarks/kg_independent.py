"""Scorer of the evidence-graph extractor on the frozen independent sentence sets (issue 23).

The sets (``tests/kg/data/independent/sentences.yaml`` and ``sentences.b.yaml``) were written by people
who had not read the extractor; they are never tuned on (tuning uses ``tests/kg/data/dev/``).

Two figures, per set and overall:

- **STRICT from not-asserted sentences** (target 0). Every not-asserted sentence (reported speech,
  negation, hypothesis, question, intention, quotation) is extracted twice, as two documents, and all
  of them are promoted together — so the promotion thresholds are met and only the extractor, its
  guard and the tier rules stand between such a sentence and a STRICT relation (the sentinel's method).
- **Explicit accepted** (target ≥ 80 %): an explicit sentence counts when the extractor asserts (as the
  document's own statement, not attributed to a speaker) the gold relation with the right subject and
  object, and that relation is promoted STRICT.

Subject/object matching — *normalised head-word overlap*: both spans are reduced to their content
words (lower case, accents removed, elisions l'/d'/qu' cut, determiners, prepositions, conjunctions and
auxiliaries removed, a final plural -s/-x dropped on words longer than 3 letters). The predicted span
matches the gold span when the shared content words are at least half of the gold's AND at least half of
the prediction's — so a span that swallows a reporting clause or a whole sentence does not match.

    .venv/bin/python benchmarks/kg_independent.py                     # today's extractor
    .venv/bin/python benchmarks/kg_independent.py --extractor patterns  # the discursive extractor alone
    .venv/bin/python benchmarks/kg_independent.py --set dev -v          # the development set, failures listed
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import unicodedata
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lexlogic.engine.kg.aggregate import Aggregator
from lexlogic.engine.kg.model import DefensibilityTier, RawAssertion, RelationType
from lexlogic.engine.kg.promote import promote

INDEPENDENT = ROOT / "tests" / "kg" / "data" / "independent"
DEV = ROOT / "tests" / "kg" / "data" / "dev"
SETS = {
    "a": [INDEPENDENT / "sentences.yaml"],
    "b": [INDEPENDENT / "sentences.b.yaml"],
    "frozen": [INDEPENDENT / "sentences.yaml", INDEPENDENT / "sentences.b.yaml"],
    "dev": sorted(DEV.glob("*.yaml")),
}

_STOP = set(
    """
    the a an this that these those any each every all its their his her of to in on at by for from with as into
    under within than and or nor but be is are was were been being has have had shall will would may can must
    which who whom whose le la les un une des du de d l au aux ce cet cette ces son sa ses leur leurs tout toute
    tous toutes chaque et ou ni mais à a en par pour dans sur avec sous que qu qui dont est sont été être a ont
    avait avaient se s y n ne pas
    """.split()
)


def _fold(text: str) -> str:
    text = unicodedata.normalize("NFKD", text.lower().replace("’", "'"))
    return "".join(c for c in text if not unicodedata.combining(c))


def head_words(span: str) -> set[str]:
    """The content words of a span, normalised (see the module docstring)."""
    words = re.findall(r"[a-z0-9]+(?:-[a-z0-9]+)*'?", _fold(span))
    out: set[str] = set()
    for w in words:
        if w.endswith("'"):  # elided article or pronoun: l', d', qu', n', s'
            continue
        if w in _STOP or (len(w) == 1 and not w.isdigit()):
            continue
        if len(w) > 3 and w[-1] in "sx" and not w.isdigit():
            w = w[:-1]
        out.add(w)
    return out


def spans_match(predicted: str, gold: str) -> bool:
    """Normalised head-word overlap: ≥ half of the gold's content words and ≥ half of the prediction's."""
    g, p = head_words(gold), head_words(predicted)
    if not g or not p:
        return False
    shared = len(g & p)
    return shared * 2 >= len(g) and shared * 2 >= len(p)


def gold_relation(name: str) -> RelationType | None:
    try:
        return RelationType(name.upper())
    except ValueError:
        return None


def load_items(paths: list[Path]) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    for path in paths:
        for item in yaml.safe_load(path.read_text(encoding="utf-8")) or []:
            items.append({**item, "_file": path.name})
    return items


def _attributed(a: RawAssertion) -> bool:
    return bool(getattr(a, "attributed_to", None))


Extractor = Callable[[str, str], Any]


def default_extractor(name: str) -> Extractor:
    if name == "patterns":
        from lexlogic.engine.kg.patterns import extract as patterns_extract

        return patterns_extract
    from lexlogic.engine.kg.extract import extract as full_extract

    return full_extract


def score(items: list[dict[str, Any]], extract: Extractor) -> dict[str, Any]:
    """The two figures of the module docstring, plus the failures and the abstention reasons."""
    explicit = [i for i in items if i.get("asserted")]
    not_asserted = [i for i in items if not i.get("asserted")]
    failures: list[dict[str, Any]] = []
    accepted = 0
    for item in explicit:
        first = extract(item["text"], f"{item['id']}/A")
        second = extract(item["text"], f"{item['id']}/B")
        want = gold_relation(item["relation"])
        hits = [
            a
            for a in first.assertions
            if want is not None
            and a.relation is want
            and not _attributed(a)
            and spans_match(a.subject, item["subject"])
            and spans_match(a.object, item["object"])
        ]
        ok = False
        if hits:
            result = promote(Aggregator().add_all(first.assertions + second.assertions))
            keys = {h.key for h in hits}
            ok = any(
                (r.subject, r.relation, r.object) in keys and r.tier is DefensibilityTier.STRICT
                for r in result.relations
            )
        accepted += ok
        if not ok:
            failures.append(
                {
                    "id": item["id"],
                    "text": item["text"],
                    "want": f"{item['subject']} {item['relation']} {item['object']}",
                    "got": [f"{a.subject} | {a.relation.value} | {a.object}" for a in first.assertions],
                    "abstained": [f"{x.reason.value}: {x.detail}" for x in first.abstentions],
                }
            )

    journal: list[RawAssertion] = []
    origin: dict[str, str] = {}
    reasons: Counter[str] = Counter()
    by_category: dict[str, Counter[str]] = {}
    attributed_ok = attributed_total = 0
    for item in not_asserted:
        runs = [extract(item["text"], f"{item['id']}/A"), extract(item["text"], f"{item['id']}/B")]
        for a in runs[0].assertions + runs[1].assertions:
            journal.append(a)
            origin[a.id] = item["id"]
        cat = by_category.setdefault(item["category"], Counter())
        for x in runs[0].abstentions:
            reasons[x.reason.value] += 1
            cat[x.reason.value] += 1
        if item.get("attributed_to"):
            attributed_total += 1
            speakers = [getattr(x, "attributed_to", None) for x in runs[0].abstentions]
            if any(s and spans_match(s, item["attributed_to"]) for s in speakers):
                attributed_ok += 1
    result = promote(Aggregator().add_all(journal))
    strict_items: dict[str, list[str]] = {}
    for rel in result.relations:
        if rel.tier is DefensibilityTier.STRICT:
            for aid in rel.assertion_ids:
                strict_items.setdefault(origin[aid], []).append(rel.id)
    for item_id, rels in sorted(strict_items.items()):
        item = next(i for i in not_asserted if i["id"] == item_id)
        failures.append({"id": item_id, "text": item["text"], "strict": sorted(set(rels))})
    return {
        "explicit": len(explicit),
        "explicit_accepted": accepted,
        "explicit_rate": accepted / len(explicit) if explicit else 0.0,
        "not_asserted": len(not_asserted),
        "strict_from_not_asserted": len(strict_items),
        "attributed_speaker_found": attributed_ok,
        "attributed_total": attributed_total,
        "abstentions_by_reason": dict(reasons),
        "abstentions_by_category": {k: dict(v) for k, v in by_category.items()},
        "failures": failures,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", choices=sorted(SETS), default="frozen")
    parser.add_argument("--extractor", choices=["full", "patterns"], default="full")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("-v", "--verbose", action="store_true", help="list every failure")
    args = parser.parse_args(argv)
    extract = default_extractor(args.extractor)
    parts = {"a": SETS["a"], "b": SETS["b"]} if args.set == "frozen" else {args.set: SETS[args.set]}
    report = {name: score(load_items(paths), extract) for name, paths in parts.items()}
    if len(parts) > 1:
        report["all"] = score(load_items(SETS["frozen"]), extract)
    if args.json:
        print(
            json.dumps(
                {k: {kk: vv for kk, vv in v.items() if kk != "failures" or args.verbose} for k, v in report.items()},
                ensure_ascii=False,
                indent=2,
            )
        )
        return 0
    for name, r in report.items():
        print(
            f"[{name}] explicit accepted {r['explicit_accepted']}/{r['explicit']} ({r['explicit_rate']:.1%}) · "
            f"STRICT from not-asserted {r['strict_from_not_asserted']}/{r['not_asserted']} · "
            f"speaker found {r['attributed_speaker_found']}/{r['attributed_total']}"
        )
        print(f"    abstentions: {r['abstentions_by_reason']}")
        if args.verbose:
            for f in r["failures"]:
                print("   ", json.dumps(f, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Perception scored on text nobody here wrote (issue 18): per-fact precision/recall, per fact type,
allegation handling and outcome agreement.

Each evaluation file (``tests/perception/heldout/*.yaml`` or a development set) holds one text with its
``kind``, ``author_party``, ``document_date``, the ``gold`` facts (value, date precision, status
evidenced|alleged, by) and ``not_asserted`` (facts mentioned but not asserted). Scoring, per text:

- a gold fact found with the right value is a true positive; a wrong value is a false positive AND a miss;
  not found is a miss;
- a gold fact with ``status: alleged`` found as proven (not marked alleged) is a false positive (and a
  miss): an allegation is never a fact; found as alleged with the right value, it is a true positive;
- a gold evidenced fact found as alleged with the right value counts as found (reported as
  ``under_claimed``: weaker, never dangerous);
- a fact in ``not_asserted`` emitted as proven is a false positive; any other emitted fact that is not in
  the gold is a false positive;
- dates: a day-precision gold date needs the same day; a month- (year-) only gold date matches an interval
  covering exactly that month (year). Months within 0.05, percents within 0.5, amounts within 1 %, names
  compared without legal form, « société », accents or case.

Outcome agreement: the pack's symbolic analysis runs on the gold facts and on the extracted facts (same
policy on both sides: an alleged fact is contested, so it is left out; a date interval is read at its
middle) and every outcome the gold facts decide (yes/no) is compared.

    .venv/bin/python benchmarks/perception.py [DIR ...] [--json] [--llm] [--show FILE_ID]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
import unicodedata
from collections import defaultdict
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
HELDOUT = ROOT / "tests" / "perception" / "heldout"
PACK = "rupture_brutale"

KIND_OF = {"letter": "letter", "email": "email", "summary": "other", "decision": "other", "note": "submission"}


def load_set(directory: Path) -> list[dict[str, Any]]:
    items = []
    vocab = vocabulary(directory)
    for path in sorted(directory.glob("*.yaml")):
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
        if isinstance(raw, dict) and "text" in raw:
            raw.setdefault("id", path.stem)
            raw["_vocabulary"] = vocab
            items.append(raw)
    return items


def vocabulary(directory: Path) -> set[str] | None:
    """The facts a frozen set's writers could know: the pack's facts as they were when the set was frozen
    (the date in its FROZEN file, read from git history). A fact added to the pack later can have no gold in
    that set, so emitting it there is neither right nor wrong: it is left out of the scores (and of the
    outcomes on both sides). None (score every fact) for a set that is not frozen or without git."""
    import subprocess

    stamps = [
        m.group(1)
        for f in sorted(directory.glob("FROZEN*"))
        if (m := re.search(r"Frozen:\s*(\S+)", f.read_text(encoding="utf-8")))
    ]
    if not stamps:
        return None
    rel = f"rules/{PACK}/facts.yaml"
    try:
        commit = subprocess.run(
            ["git", "rev-list", "-1", f"--before={max(stamps)}", "HEAD", "--", rel],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        if not commit:
            return None
        text = subprocess.run(
            ["git", "show", f"{commit}:{rel}"], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    facts = (yaml.safe_load(text) or {}).get("facts") or {}
    return set(facts) or None


def not_asserted_of(item: dict[str, Any]) -> set[str]:
    """``not_asserted`` as a list of ``{fact, why}`` or a mapping ``fact: {why}`` (both formats are in use)."""
    raw = item.get("not_asserted") or []
    if isinstance(raw, dict):
        return {str(k) for k in raw}
    return {str(n["fact"]) for n in raw if isinstance(n, dict) and "fact" in n}


def to_document(item: dict[str, Any]):  # type: ignore[no-untyped-def]
    """The text as the pipeline would ingest it, with its kind, date and author as metadata."""
    from lexlogic.engine.documents.layout import detect_blocks
    from lexlogic.engine.documents.model import Document, DocumentKind, Page

    text = item["text"]
    meta = {"author_party": str(item.get("author_party") or "neutral"), "genre": str(item.get("kind") or "")}
    if item.get("document_date"):
        meta["document_date"] = str(item["document_date"])
    return Document(
        id=str(item["id"]),
        kind=DocumentKind(KIND_OF.get(str(item.get("kind")), "other")),
        text=text,
        pages=[Page(number=1, char_start=0, char_end=len(text))],
        blocks=detect_blocks(text, page=1),
        metadata=meta,
    )


def use_pack(name: str) -> None:
    """Score another pack's reader (its facts, its sets): the module's functions read ``PACK`` at call time."""
    global PACK
    PACK = name


def _pack_obj() -> Any:
    from lexlogic.engine.packs.library import PackLibrary
    from lexlogic.settings import SHIPPED_RULES

    return PackLibrary(SHIPPED_RULES).pack(PACK)


def extract_offline(item: dict[str, Any]) -> dict[str, dict[str, Any]]:
    from lexlogic.engine.perception.model import to_case_file
    from lexlogic.engine.perception.offline import extract

    pack = _pack_obj()
    return to_case_file(extract([to_document(item)], pack), str(item["id"]), pack)["facts"]


def extract_llm(item: dict[str, Any]) -> dict[str, dict[str, Any]]:
    from lexlogic.bridges.llm import LLMClient
    from lexlogic.engine.perception.llm import extract as llm_extract
    from lexlogic.engine.perception.model import to_case_file
    from lexlogic.settings import Settings

    s = Settings()
    client = LLMClient(s.llm_base_url, s.llm_model, s.llm_api_key) if s.llm_base_url else None
    pack = _pack_obj()
    return to_case_file(llm_extract([to_document(item)], pack, client), str(item["id"]), pack)["facts"]


# --- value comparison --------------------------------------------------------------------------------
def _fold(s: str) -> str:
    s = unicodedata.normalize("NFKD", s).encode("ascii", "ignore").decode().lower()
    s = re.sub(r"\b(societe|ste|sasu|sas|sarl|sa|snc|eurl|sca|scop|selarl|groupe|la|le|les|l)\b", " ", s)
    return " ".join(re.sub(r"[^a-z0-9]+", " ", s).split())


def _month_end(y: int, m: int) -> date:
    return (date(y + (m == 12), m % 12 + 1, 1)) - timedelta(days=1)


def gold_interval(value: Any, precision: str | None) -> tuple[date, date]:
    s = str(value)
    if precision == "year" or re.fullmatch(r"\d{4}", s):
        return date(int(s[:4]), 1, 1), date(int(s[:4]), 12, 31)
    if precision == "month" or re.fullmatch(r"\d{4}-\d{2}", s):
        y, m = int(s[:4]), int(s[5:7])
        return date(y, m, 1), _month_end(y, m)
    d = date.fromisoformat(s[:10])
    return d, d


def extracted_interval(fv: dict[str, Any]) -> tuple[date, date] | None:
    iv = fv.get("interval")
    try:
        if isinstance(iv, dict) and iv.get("start") and iv.get("end"):
            return date.fromisoformat(str(iv["start"])), date.fromisoformat(str(iv["end"]))
        d = date.fromisoformat(str(fv.get("value"))[:10])
    except (TypeError, ValueError):
        return None
    return d, d


def same_value(fact_type: str, gold: dict[str, Any], found: dict[str, Any]) -> bool:
    g, v = gold.get("value"), found.get("value")
    if fact_type == "date":
        return extracted_interval(found) == gold_interval(g, gold.get("precision"))
    if fact_type in ("months", "percent", "amount", "int"):
        try:
            tol = {"months": 0.05, "percent": 0.5, "int": 0.0}.get(fact_type, 0.01 * abs(float(g)))
            return abs(float(v) - float(g)) <= tol + 1e-9
        except (TypeError, ValueError):
            return False
    if fact_type == "amounts_by_year":
        if not isinstance(v, dict) or not isinstance(g, dict):
            return False
        gg = {str(k): float(x) for k, x in g.items()}
        vv = {str(k): float(x) for k, x in v.items()}
        return gg.keys() == vv.keys() and all(abs(gg[k] - vv[k]) <= 0.01 * gg[k] + 1 for k in gg)
    if fact_type == "str":
        a, b = _fold(str(g)), _fold(str(v))
        return bool(a) and (a == b or (len(b) >= 4 and (a in b or b in a)))
    return g == v


def is_alleged(found: dict[str, Any]) -> bool:
    return str(found.get("allegation") or "") == "alleged"


# --- scoring -----------------------------------------------------------------------------------------
def score_item(item: dict[str, Any], facts: dict[str, dict[str, Any]], types: dict[str, str]) -> dict[str, Any]:
    gold: dict[str, dict[str, Any]] = {k: (v if isinstance(v, dict) else {"value": v}) for k, v in item["gold"].items()}
    not_asserted = not_asserted_of(item)
    rows: list[dict[str, Any]] = []
    for name, g in gold.items():
        found = facts.get(name)
        alleged_gold = g.get("status") == "alleged"
        row = {"fact": name, "gold": g.get("value"), "status": g.get("status", "evidenced"), "tp": 0, "fp": 0, "fn": 0}
        if found is None:
            row["fn"] = 1
        else:
            row["found"] = found.get("value")
            right = same_value(types.get(name, "str"), g, found)
            if alleged_gold and not is_alleged(found):
                row.update(fp=1, fn=1, why="alleged fact extracted as proven")
            elif right:
                row["tp"] = 1
                if not alleged_gold and is_alleged(found):
                    row["under_claimed"] = 1
            else:
                row.update(fp=1, fn=1, why="wrong value")
        rows.append(row)
    for name, found in facts.items():
        if name in gold:
            continue
        if name in not_asserted and is_alleged(found):
            continue  # reported as an allegation: what the convention asks
        rows.append(
            {
                "fact": name,
                "gold": None,
                "found": found.get("value"),
                "tp": 0,
                "fp": 1,
                "fn": 0,
                "why": "not asserted, emitted as proven" if name in not_asserted else "not in the gold",
            }
        )
    return {"id": item["id"], "rows": rows}


def _analysis_facts(facts: dict[str, dict[str, Any]], types: dict[str, str], gold_side: bool) -> dict[str, Any]:
    """One policy on both sides: alleged = contested (left out); a date interval at its middle."""
    out: dict[str, Any] = {}
    for name, fv in facts.items():
        if name not in types:
            continue
        if (gold_side and fv.get("status") == "alleged") or (not gold_side and is_alleged(fv)):
            continue
        value = fv.get("value")
        if types[name] == "date":
            iv = gold_interval(value, fv.get("precision")) if gold_side else extracted_interval(fv)
            if iv is None:
                continue
            value = (iv[0] + (iv[1] - iv[0]) / 2).isoformat()
        if types[name] == "amounts_by_year" and isinstance(value, dict):
            value = {str(k): v for k, v in value.items()}
        out[name] = value
    return out


def outcomes_of(facts: dict[str, Any]) -> dict[str, str] | None:
    from lexlogic.engine.symbolic.analysis import analyse
    from lexlogic.logic.facts import parse_case
    from tests.support.packs import pack_by_name

    pack, program = pack_by_name(PACK)
    try:
        case = parse_case({"pack": PACK, "case_id": "bench", "facts": facts}, pack)
        result = analyse(pack, program, case)
    except Exception:  # an extracted value the pack refuses: no outcome at all
        return None
    return {k: o.status for k, o in result.outcomes.items()} | {"__verdict__": result.verdict}


def run(
    dirs: list[Path], extractor: str = "offline", show: str | None = None, all_facts: bool = False
) -> dict[str, Any]:
    from tests.support.packs import pack_by_name

    pack, _ = pack_by_name(PACK)
    types = {name: spec.type.value for name, spec in pack.facts.items()}
    items = [it for d in dirs for it in load_set(d)]
    read = extract_llm if extractor == "llm" else extract_offline
    per_type: dict[str, dict[str, int]] = defaultdict(lambda: {"tp": 0, "fp": 0, "fn": 0})
    total = {"tp": 0, "fp": 0, "fn": 0, "under_claimed": 0}
    agree = determinable = 0
    empty = 0
    t0 = time.perf_counter()
    details = []
    unscored = 0
    for item in items:
        facts = read(item)
        empty += not facts
        if item.get("_vocabulary") and not all_facts:  # facts newer than a frozen set: no gold can exist for them there
            unscored += sum(1 for k in facts if k not in item["_vocabulary"])
            facts = {k: v for k, v in facts.items() if k in item["_vocabulary"]}
        scored = score_item(item, facts, types)
        for row in scored["rows"]:
            for k in ("tp", "fp", "fn"):
                per_type[row["fact"]][k] += row[k]
                total[k] += row[k]
            total["under_claimed"] += row.get("under_claimed", 0)
        gold_facts = {k: (v if isinstance(v, dict) else {"value": v}) for k, v in item["gold"].items()}
        want = outcomes_of(_analysis_facts(gold_facts, types, True))
        got = outcomes_of(_analysis_facts(facts, types, False))
        mism = []
        if want is not None:
            for atom, status in want.items():
                if status in ("yes", "no", "LIABLE", "NOT_LIABLE"):
                    determinable += 1
                    if got is not None and got.get(atom) == status:
                        agree += 1
                    else:
                        mism.append(f"{atom}: gold {status}, extracted {None if got is None else got.get(atom)}")
        scored["outcome_mismatches"] = mism
        details.append(scored)
        if show and (show == "all" or show in str(item["id"])):
            bad = [r for r in scored["rows"] if r["fp"] or r["fn"]]
            print(f"--- {item['id']}")
            for r in bad:
                print("   ", r)
            for m in mism:
                print("    outcome", m)
    seconds = time.perf_counter() - t0

    def pr(c: dict[str, int]) -> tuple[float, float]:
        return c["tp"] / max(c["tp"] + c["fp"], 1), c["tp"] / max(c["tp"] + c["fn"], 1)

    p, r = pr(total)
    return {
        "extractor": extractor,
        "texts": len(items),
        "texts_with_nothing": empty,
        "seconds": round(seconds, 2),
        "tp": total["tp"],
        "fp": total["fp"],
        "fn": total["fn"],
        "under_claimed": total["under_claimed"],
        "unscored_newer_facts": unscored,
        "precision": round(p, 3),
        "recall": round(r, 3),
        "outcome_agreement": round(agree / max(determinable, 1), 3),
        "determinable_outcomes": determinable,
        "per_fact": {
            k: {**v, "precision": round(pr(v)[0], 3), "recall": round(pr(v)[1], 3)} for k, v in sorted(per_type.items())
        },
        "details": details,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dirs", nargs="*", type=Path, default=[HELDOUT])
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--llm", action="store_true", help="score the LLM path (needs LEXLOGIC_LLM_BASE_URL)")
    ap.add_argument("--show", default=None, help="print the errors of the texts whose id contains this (or 'all')")
    ap.add_argument(
        "--all-facts", action="store_true", help="also score facts added to the pack after a frozen set was frozen"
    )
    args = ap.parse_args()
    if args.llm and not os.environ.get("LEXLOGIC_LLM_BASE_URL"):
        sys.exit("--llm: no endpoint configured (LEXLOGIC_LLM_BASE_URL)")
    res = run(args.dirs, "llm" if args.llm else "offline", args.show, args.all_facts)
    if args.json:
        print(json.dumps({k: v for k, v in res.items() if k != "details"}, indent=1))
        return
    print(
        f"{res['extractor']}: {res['texts']} texts ({res['texts_with_nothing']} with nothing), "
        f"tp {res['tp']} fp {res['fp']} fn {res['fn']} (under-claimed {res['under_claimed']}, "
        f"unscored facts newer than a frozen set {res['unscored_newer_facts']})\n"
        f"precision {res['precision']:.3f}  recall {res['recall']:.3f}  "
        f"outcome agreement {res['outcome_agreement']:.3f} over {res['determinable_outcomes']} determinable outcomes"
        f"  ({res['seconds']} s)"
    )
    print(f"{'fact':36} {'tp':>4} {'fp':>4} {'fn':>4} {'prec':>6} {'rec':>6}")
    for k, v in res["per_fact"].items():
        print(f"{k:36} {v['tp']:4} {v['fp']:4} {v['fn']:4} {v['precision']:6.2f} {v['recall']:6.2f}")


if __name__ == "__main__":
    main()

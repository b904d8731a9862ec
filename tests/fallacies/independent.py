"""Scorer for the FROZEN independent fallacy set (tests/fallacies/data/independent/texts.yaml, never edited).

The writer labelled 12 families of their own (``ad_hominem``, ``appeal_to_authority``, …). Each maps to a
SUBTREE of the shipped taxonomy (below): a prediction is the right family when the confirmed fallacy lies
in that subtree. This is stricter than the taxonomy's 9 top families (``appels_illegitimes`` holds
authority, tradition and popularity, which the frozen set tells apart); both figures are printed.

    .venv/bin/python -m tests.fallacies.independent [--rows]
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import yaml

INDEPENDENT = Path(__file__).parent / "data" / "independent" / "texts.yaml"

# frozen label -> node ids of the built-in taxonomy whose subtrees count as that family
FAMILY_NODES: dict[str, set[str]] = {
    "ad_hominem": {"attaque_personne"},
    "appeal_to_authority": {"fausse_autorite", "autorite_anonyme"},
    "appeal_to_emotion": {"emotion"},
    "appeal_to_popularity": {"appel_popularite"},
    "appeal_to_tradition": {"appel_tradition"},
    "circular_reasoning": {"petition_principe"},
    "false_dilemma": {"faux_dilemme"},
    "hasty_generalisation": {"generalisation_hative", "preuve_anecdotique"},
    "post_hoc": {"post_hoc", "cum_hoc"},
    "red_herring": {"hareng_rouge", "conclusion_hors_sujet"},
    "slippery_slope": {"pente_glissante"},
    "straw_man": {"homme_de_paille"},
}
# frozen label -> top family of the built-in taxonomy (the coarse figure)
TOP_FAMILY: dict[str, str] = {
    "ad_hominem": "attaque_personne",
    "appeal_to_authority": "appels_illegitimes",
    "appeal_to_emotion": "emotion",
    "appeal_to_popularity": "appels_illegitimes",
    "appeal_to_tradition": "appels_illegitimes",
    "circular_reasoning": "raisonnement",
    "false_dilemma": "raisonnement",
    "hasty_generalisation": "insuffisance",
    "post_hoc": "causalite",
    "red_herring": "diversion",
    "slippery_slope": "causalite",
    "straw_man": "diversion",
}

# text -> (predicted node id or None); the implementation under test
Analyser = Callable[[str], str | None]


def load_texts(path: Path | None = None) -> list[dict]:
    return yaml.safe_load((path or INDEPENDENT).read_text(encoding="utf-8"))


def ancestors(node_id: str) -> set[str]:
    from lexlogic.engine.fallacies.taxonomy import builtin_taxonomy

    tax = builtin_taxonomy()
    out: set[str] = set()
    nid: str | None = node_id
    while nid and nid in tax.nodes:
        out.add(nid)
        nid = tax.nodes[nid].parent_id
    return out


def score(analyse: Analyser, items: list[dict]) -> dict:
    t0 = time.perf_counter()
    rows = []
    for it in items:
        pred = analyse(it["text"])
        fam = it["family"]
        up = ancestors(pred) if pred else set()
        right = bool(pred) and fam != "none" and bool(up & FAMILY_NODES[fam])
        coarse = bool(pred) and fam != "none" and TOP_FAMILY[fam] in up
        rows.append({"id": it["id"], "gold": fam, "pred": pred, "right": right, "coarse": coarse, "text": it["text"]})
    sound = [r for r in rows if r["gold"] == "none"]
    bad = [r for r in rows if r["gold"] != "none"]
    return {
        "n_sound": len(sound),
        "n_fallacious": len(bad),
        "clean": sum(r["pred"] is None for r in sound) / len(sound),
        "detected": sum(r["pred"] is not None for r in bad) / len(bad),
        "right_family": sum(r["right"] for r in bad) / len(bad),
        "right_top_family": sum(r["coarse"] for r in bad) / len(bad),
        "seconds": time.perf_counter() - t0,
        "rows": rows,
    }


def summary(rep: dict) -> str:
    ns, nf = rep["n_sound"], rep["n_fallacious"]
    return (
        f"sound kept clean {rep['clean']:.1%} ({round(rep['clean'] * ns)}/{ns}); "
        f"fallacies detected {rep['detected']:.1%} ({round(rep['detected'] * nf)}/{nf}); "
        f"right family {rep['right_family']:.1%} ({round(rep['right_family'] * nf)}/{nf}); "
        f"right top family of the taxonomy {rep['right_top_family']:.1%}; {rep['seconds']:.1f} s"
    )


def legacy_analyser() -> Analyser:
    """Issue 11's offline navigator (cue patterns + exemplar embeddings): what the first blind run measured."""
    from lexlogic.engine.fallacies.analyse import analyse
    from lexlogic.engine.fallacies.navigators.offline import OfflineNavigator
    from lexlogic.engine.fallacies.taxonomy import builtin_taxonomy

    tax, nav = builtin_taxonomy(), OfflineNavigator()

    def run(text: str) -> str | None:
        top = analyse(text, tax, nav).top
        return top.node_id if top else None

    return run


def current_analyser() -> Analyser:
    """The current offline analysis (what ``lexlogic fallacies TEXT`` runs without an LLM)."""
    from lexlogic.engine.fallacies.analyse import analyse
    from lexlogic.engine.fallacies.taxonomy import builtin_taxonomy

    tax = builtin_taxonomy()

    def run(text: str) -> str | None:
        top = analyse(text, tax).top
        return top.node_id if top else None

    return run


def main() -> None:
    import argparse

    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", action="store_true", help="per-text rows (errors on the FROZEN set)")
    ap.add_argument("--set", default=None, help="another texts YAML with the same schema (e.g. the dev set)")
    ap.add_argument("--legacy", action="store_true", help="issue 11's navigator (the first blind run)")
    args = ap.parse_args()
    analyser = legacy_analyser() if args.legacy else current_analyser()
    rep = score(analyser, load_texts(Path(args.set) if args.set else None))
    print(summary(rep))
    if args.rows:
        for r in rep["rows"]:
            mark = "ok " if (r["right"] or (r["gold"] == "none" and r["pred"] is None)) else "ERR"
            print(f"{mark} {r['id']} {r['gold']:>20} -> {r['pred'] or '-':<24} {r['text'][:80]}")


if __name__ == "__main__":
    main()

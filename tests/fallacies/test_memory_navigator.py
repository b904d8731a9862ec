"""Issue 19: the memory navigator (nearest neighbours over e5 + structural detectors).

* Detectors: each recognises its FORM (two parts) and stays silent on sound texts that use the same words.
* DEV set (tests/fallacies/data/dev/, what τ/β/m were calibrated on): regression guards at measured values.
* FROZEN independent set (data/independent/, never tuned on): FLOORS at the final run's measured values
  (notes/issue-19.md), so a regression fails CI. Not the issue's targets.
"""

from __future__ import annotations

import pytest

from lexlogic.engine.fallacies.detectors import detect
from lexlogic.engine.fallacies.memory import SOURCES
from lexlogic.engine.fallacies.navigation import navigate
from lexlogic.engine.fallacies.navigators.knn import KnnNavigator, KnnThresholds, load_knn_thresholds
from lexlogic.engine.fallacies.taxonomy import DATA_DIR, builtin_taxonomy
from tests.fallacies import independent as ind

# measured in the final run: 31/32 clean (target 90 %: met), 24/32 detected (target 85 %: not met),
# 23/32 right family (target 70 %: met)
FROZEN = {"clean": 31 / 32 - 1e-9, "detected": 24 / 32 - 1e-9, "right_family": 23 / 32 - 1e-9}
DEV = {"clean": 0.92, "detected": 0.96, "right_family": 0.92}  # measured 26/28, 28/28, 27/28


@pytest.mark.parametrize(
    "text,node",
    [
        ("Le préavis était insuffisant puisqu'il ne suffisait pas.", "petition_principe"),
        (
            "La clause est illicite parce qu'elle est contraire à la loi, ce qui prouve qu'elle est illicite.",
            "petition_principe",
        ),
        (
            "Son président a d'ailleurs été condamné pour fraude fiscale ; ses demandes doivent être rejetées.",
            "ad_hominem_abusif",
        ),
        ("La plupart des distributeurs pratiquent ce délai ; il est donc raisonnable.", "appel_popularite"),
        (
            "Un champion olympique a déclaré à la radio que ce contrat était équilibré ; il l'est donc.",
            "fausse_autorite",
        ),
        (
            "Le fournisseur prétend en réalité qu'aucune enseigne ne devrait jamais pouvoir changer de fournisseur, ce qui est absurde.",
            "homme_de_paille",
        ),
        ("Soit vous signez, soit votre entreprise disparaît : il n'y a pas d'autre issue.", "faux_dilemme"),
    ],
)
def test_detectors_recognise_the_form(text, node):
    assert node in [d.node for d in detect(text)]


@pytest.mark.parametrize(
    "text",
    [
        "Tous les bons de livraison portent la signature du réceptionnaire ; la livraison est donc établie.",
        "Depuis 2011, les livraisons sont hebdomadaires ; la relation présente donc la régularité exigée.",
        "L'expert judiciaire, spécialiste de la comptabilité, évalue la marge à 31 % ; le préjudice doit être calculé sur cette base.",
        "La demande est recevable puisque l'assignation a été délivrée dans le délai de prescription.",
        "Le distributeur pouvait soit respecter le préavis, soit indemniser le fournisseur ; il n'a fait ni l'un ni l'autre.",
        "Le gérant a été condamné pour abus de biens sociaux ; cette condamnation justifie l'action des associés.",
    ],
)
def test_detectors_stay_silent_on_sound_texts(text):
    assert detect(text) == ()


def test_memory_ships_inside_the_package():
    for name in (*SOURCES, "sound_arguments.yaml", "knn_thresholds.json"):
        assert (DATA_DIR / name).exists(), name
    assert "argumentum" in (DATA_DIR / "argumentum_examples.yaml").read_text(encoding="utf-8").lower()


def test_a_detector_alone_never_confirms():
    th = load_knn_thresholds().model_copy(update={"tau": 1.0})  # no margin can clear it
    nav = KnnNavigator(thresholds=th)
    text = "La plupart des distributeurs pratiquent ce délai ; il est donc raisonnable."
    assert detect(text)
    assert navigate(text, builtin_taxonomy(), nav).top is None


def test_thresholds_are_calibrated_not_default():
    th = load_knn_thresholds()
    assert th.calibrated_on and "independent" not in th.calibrated_on
    assert isinstance(th, KnnThresholds) and 0 <= th.beta <= 0.12 and th.m in (1, 2, 3)


@pytest.fixture(scope="module")
def analyser():  # type: ignore[no-untyped-def]
    return ind.current_analyser()


def test_dev_set_regression_guard(analyser):
    rep = ind.score(analyser, ind.load_texts(ind.INDEPENDENT.parents[1] / "dev" / "texts.yaml"))
    print("\n[dev] " + ind.summary(rep))
    for key, floor in DEV.items():
        assert rep[key] >= floor, key


def test_frozen_independent_floors(analyser):
    """FROZEN set: floors at the final run's measured values (not targets, not tuned on)."""
    items = ind.load_texts()
    assert len(items) == 64
    rep = ind.score(analyser, items)
    print("\n[frozen independent] " + ind.summary(rep))
    for key, floor in FROZEN.items():
        assert rep[key] >= floor, key

"""Issue 19: the memory navigator (nearest neighbours over e5 + structural detectors).

* Detectors: each recognises its FORM (two parts) and stays silent on sound texts that use the same words.
* DEV sets (tests/fallacies/data/dev/, dev_indep/ and the earlier sets; also memory rows): regression guards
  on their CROSS-VALIDATED figures (tests/fallacies/cv.py: each fold out of the memory, the head and the
  thresholds' fit), at the values measured in the second session.
* FROZEN independent set (data/independent/, never tuned on): FLOORS at the final run's measured values
  (notes/issue-19.md), so a regression fails CI. Not the issue's targets.
"""

from __future__ import annotations

import numpy as np
import pytest

from lexlogic.engine.fallacies.detectors import detect
from lexlogic.engine.fallacies.memory import SOURCES, builtin_memory
from lexlogic.engine.fallacies.navigation import navigate
from lexlogic.engine.fallacies.navigators.knn import KnnNavigator, KnnThresholds, load_knn_thresholds
from lexlogic.engine.fallacies.taxonomy import DATA_DIR, builtin_taxonomy
from tests.fallacies import cv
from tests.fallacies import independent as ind

# FLOORS, not targets: the second session's final run (2026-11-24): 31/32 clean (target 90 %), 29/32 detected
# (target 85 %), 26/32 right family (target 70 %). First session's final run: 31/32, 24/32, 23/32.
FROZEN = {"clean": 31 / 32 - 1e-9, "detected": 29 / 32 - 1e-9, "right_family": 26 / 32 - 1e-9}
# 5-fold cross-validated (clean, detected, right family) per development part, measured 2026-11-24 (second session)
DEV_CV = {
    "dev/texts.yaml": (25 / 28, 28 / 28, 27 / 28),
    "dev/texts2.yaml": (10 / 12, 24 / 24, 23 / 24),
    "dev_indep/texts.yaml": (36 / 36, 44 / 44, 43 / 44),
    "earlier (eval_fr + holdout2_fr)": (45 / 46, 44 / 46, 37 / 46),
}


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
        # second session: forms without the first markers
        (
            "Ce modèle de bail, rédigé il y a quarante ans par notre fondateur, ne saurait receler la moindre clause illicite.",
            "appel_tradition",
        ),
        (
            "Le commissaire aux comptes de la société affirme que le moteur livré présente un défaut de fabrication ; "
            "le vice est donc établi.",
            "fausse_autorite",
        ),
        (
            "La pénalité est excessive parce qu'elle est disproportionnée, et c'est justement cette démesure qui la rend excessive.",
            "petition_principe",
        ),
        (
            "Le bailleur nous reproche un retard de loyer ; il a pourtant lui-même laissé la toiture sans réparation "
            "pendant deux ans. Son grief est sans valeur.",
            "tu_quoque",
        ),
        (
            "Le syndic, qui relève une facture erronée de 80 euros, voudrait faire croire que toute la gestion de "
            "l'immeuble est frauduleuse.",
            "homme_de_paille",
        ),
        (
            "Les fuites sont apparues trois semaines après le passage du plombier de la société Hydra ; "
            "elle est donc responsable du sinistre.",
            "post_hoc",
        ),
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


def test_a_sound_text_stops_the_analysis_at_the_root():
    """The stop condition: a sound argument ends the search with conclude_no_fallacy, giving the margin and
    the head's probability as the reason."""
    text = (
        "L'article 8 du contrat stipule un préavis de trois mois ; la lettre du 2 juin, qui fixe la fin des "
        "relations au 2 septembre, respecte donc ce délai."
    )
    result = navigate(text, builtin_taxonomy(), KnnNavigator())
    assert result.outcome == "no_fallacy" and result.stopped_by == "conclude_no_fallacy"
    assert "θ=" in (result.reason or "") and len(result.trace) == 1


def test_memory_ships_inside_the_package():
    for name in (*SOURCES, "sound_arguments.yaml", "knn_thresholds.json"):
        assert (DATA_DIR / name).exists(), name
    assert "argumentum" in (DATA_DIR / "argumentum_examples.yaml").read_text(encoding="utf-8").lower()


def test_a_detector_alone_never_confirms():
    th = load_knn_thresholds().model_copy(update={"tau": 1.0, "theta": 1.01})  # neither margin nor head can clear
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


def test_dev_sets_cross_validated_guard():
    """Every development part, cross-validated (memory rows, head and thresholds fitted without the fold):
    floors at the measured figures; ≥ 95 % of all the parts' sound texts kept clean (the fit's constraint)."""
    items = cv.load_items()
    assert {it.part for it in items} >= {"dev/texts.yaml", "dev/texts2.yaml", "dev_indep/texts.yaml"}
    cv.assign_folds(items, 5)
    cv.precompute(items, 5)
    preds = cv.cross_validate(items, 5)
    sound = [p for it, p in zip(items, preds) if it.gold is None]
    assert sum(p is None for p in sound) >= cv.CLEAN_POOLED * len(sound)
    for part, (clean, detected, family) in DEV_CV.items():
        sub = [(it, p) for it, p in zip(items, preds) if it.part == part]
        c, d, r = cv.figures([x[0] for x in sub], [x[1] for x in sub])
        print(f"\n[cv {part}] clean {c:.3f} detected {d:.3f} family {r:.3f}")
        assert c >= clean - 1e-9 and c >= cv.CLEAN_PART, (part, "clean", c)
        assert d >= detected - 1e-9, (part, "detected", d)
        assert r >= family - 1e-9, (part, "family", r)


def test_cross_validation_holds_a_text_out_of_the_memory():
    mem = builtin_memory()
    i = next(i for i, r in enumerate(mem.rows) if r.source == "dev_memory_fr.yaml" and r.node in mem.leaves)
    q, leaf = mem.vectors[i], mem.rows[i].node
    assert mem.scores(q, 1)[0][leaf] > 0.999  # its own row
    assert mem.scores(q, 1, exclude=np.array([i]))[0][leaf] < 0.999


def test_linear_head_separates_the_rows_and_is_deterministic():
    mem = builtin_memory()
    p = mem.head.probability(mem.vectors)
    bad = np.array([r.node != "none" for r in mem.rows])
    assert p[bad].mean() > 0.7 and p[~bad].mean() < 0.3
    again = mem.fit_head()
    assert np.allclose(again.weights, mem.head.weights) and again.bias == mem.head.bias


@pytest.mark.parametrize("part", ["dev/texts.yaml", "dev/texts2.yaml", "dev_indep/texts.yaml"])
def test_detectors_silent_on_every_sound_dev_text(part):
    """The sound development texts use the fallacies' words on purpose (« depuis toujours », « tout le monde
    s'accorde », « selon l'expert », « soit… soit… »): no detector may fire on any of them."""
    sound = [it.text for it in cv.load_items() if it.part == part and it.gold is None]
    assert len(sound) >= 12
    assert [t[:60] for t in sound if detect(t)] == []


def test_frozen_independent_floors(analyser):
    """FROZEN set: floors at the final run's measured values (not targets, not tuned on)."""
    items = ind.load_texts()
    assert len(items) == 64
    rep = ind.score(analyser, items)
    print("\n[frozen independent] " + ind.summary(rep))
    for key, floor in FROZEN.items():
        assert rep[key] >= floor, key

"""Cue-word features of the offline navigator: the lexicon is valid, fires on the form, and never decides alone."""

from __future__ import annotations

import pytest

from lexlogic.engine.fallacies.cues import CUES_FILE, cue_hits, load_cues
from lexlogic.engine.fallacies.navigation import navigate
from lexlogic.engine.fallacies.navigators.offline import OfflineNavigator
from lexlogic.engine.fallacies.taxonomy import TaxonomyError, builtin_taxonomy
from lexlogic.engine.fallacies.thresholds import load_thresholds


def test_every_cue_names_a_fallacy_of_the_builtin_taxonomy() -> None:
    ids = {n.id for n in builtin_taxonomy()}
    cues = load_cues()
    assert len(cues) >= 20 and set(cues) <= ids


@pytest.mark.parametrize(
    ("text", "fallacy"),
    [
        (
            "On a toujours fait ainsi depuis la création de la société ; ce mode de calcul ne saurait donc être "
            "remis en cause.",
            "appel_tradition",
        ),
        ("Soit vous signez, soit nous résilions : il n'y a pas d'autre solution.", "faux_dilemme"),
        ("Vous me reprochez mes retards, mais vous-même payez vos fournisseurs en retard.", "tu_quoque"),
        (
            "Le client n'a pas répondu à notre courrier ; son silence vaut acceptation du nouveau tarif.",
            "silence_vaut_acceptation",
        ),
    ],
)
def test_cues_fire_on_the_form(text: str, fallacy: str) -> None:
    assert fallacy in cue_hits(text.replace("'", "\u2019"))  # typographic apostrophes are normalised


def test_sound_uses_of_the_same_words_do_not_fire() -> None:
    # "soit… soit" without a claim that nothing else exists; "toujours" without a practice → norm step
    assert "faux_dilemme" not in cue_hits(
        "Le contrat prévoit soit la résiliation, soit l'exécution forcée, au choix du créancier."
    )
    assert "appel_tradition" not in cue_hits("Le contrat est toujours en vigueur faute de dénonciation.")


def test_a_cue_alone_does_not_confirm_a_fallacy() -> None:
    # the tradition cue fires ("depuis quatorze ans … donc"), but the text is a sound legal argument:
    # the margin against the sound references stays under τ, so the navigator concludes at the root
    text = (
        "L'agent commercial représente la société depuis quatorze ans ; la durée du préavis de résiliation "
        "est donc de trois mois, le maximum prévu par l'article L. 134-11 du Code de commerce."
    )
    assert "appel_tradition" in cue_hits(text)
    result = navigate(text, builtin_taxonomy(), OfflineNavigator())
    assert result.outcome == "no_fallacy" and result.stopped_by == "conclude_no_fallacy"


def test_cue_bonus_is_the_calibrated_weight_and_is_explained() -> None:
    th = load_thresholds()
    text = "Nous avons toujours procédé ainsi depuis trente ans ; cette clause est donc parfaitement valable."
    nav = OfflineNavigator()
    off = OfflineNavigator(thresholds=th.model_copy(update={"cue_weight": 0.0}))
    tax = builtin_taxonomy()
    with_cue, _ = nav.scores(text, tax)
    without, _ = off.scores(text, tax)
    assert "appel_tradition" in nav.cue_hits(text, tax) and not off.cue_hits(text, tax)
    from lexlogic.engine.fallacies.embedding_index import index_for

    rows = index_for(tax).own["appel_tradition"]
    assert abs(float((with_cue[rows] - without[rows]).min()) - th.cue_weight) < 1e-6
    result = navigate(text, tax, nav)
    assert result.top is not None and result.top.node_id == "appel_tradition"
    assert "forme typique" in result.top.justification


def test_bad_regex_is_reported_with_its_place(tmp_path) -> None:  # type: ignore[no-untyped-def]
    bad = tmp_path / "cues.yaml"
    bad.write_text("faux_dilemme:\n  - '(soit'\n", encoding="utf-8")
    with pytest.raises(TaxonomyError, match=r"cues.yaml: faux_dilemme\[0\]: bad regex"):
        load_cues(bad)
    assert CUES_FILE.exists()

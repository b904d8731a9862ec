"""Issue 28: one French text toolkit (engine/text): folding, stop words, numbers, amounts, dates."""

from __future__ import annotations

from datetime import date

import pytest

from lexlogic.engine.text import stopwords as sw
from lexlogic.engine.text.amounts import amount, scale
from lexlogic.engine.text.dates import dates_in, read_date
from lexlogic.engine.text.fold import fold, name_key, strip_accents, word_key
from lexlogic.engine.text.numbers import parse_number
from lexlogic.logic.facts import DatePrecision


def test_fold_keeps_the_words_without_case_accents_or_typography() -> None:
    assert fold("Préavis d’un an – Société\u00a0X\u202fSAS") == "preavis d'un an - societe x sas"
    assert fold("Œuvre") == "œuvre"  # a letter without a decomposition stays


def test_keys_keep_ascii_letters_and_digits_only() -> None:
    assert word_key("S.A.S. Dupont-Frères, n° 12") == "s a s dupont freres n 12"
    assert name_key("Dupont-Frères  SAS") == "dupontfreressas"
    assert name_key("Œuvre") == "uvre"  # ASCII only: a key, not a reading
    assert strip_accents("Émanait de Mme Côté-Lefèvre") == "Emanait de Mme Cote-Lefevre"


def test_stop_word_lists_share_one_core_and_differ_by_purpose() -> None:
    assert sw.CORE_FUNCTION_WORDS <= sw.FUNCTION_WORDS
    assert sw.FUNCTION_WORDS <= sw.SEARCH_STOPWORDS and sw.FUNCTION_WORDS <= sw.CLAIM_STOPWORDS
    assert sw.CORE_FUNCTION_WORDS <= sw.TOPIC_STOPWORDS
    # a search drops the courtesy formulas, a claim keeps them out of its content words only if negative
    assert "cordialement" in sw.SEARCH_STOPWORDS and "cordialement" not in sw.CLAIM_STOPWORDS
    assert "jamais" in sw.CLAIM_STOPWORDS and "jamais" not in sw.SEARCH_STOPWORDS
    assert "precisement" in sw.TOPIC_STOPWORDS and "precisement" not in sw.SEARCH_STOPWORDS
    assert all(w == fold(w) for lst in (sw.SEARCH_STOPWORDS, sw.CLAIM_STOPWORDS, sw.TOPIC_STOPWORDS) for w in lst)


@pytest.mark.parametrize(
    "raw,value",
    [
        ("1 480 000,00 €", 1_480_000.0),
        ("1\u202f480\u00a0000,50", 1_480_000.5),
        ("1.480.000", 1_480_000.0),
        ("1.480.000,25", 1_480_000.25),
        ("1480000.00", 1_480_000.0),
        ("702 000.00", 702_000.0),
        ("12,5", 12.5),
        ("1.5", 1.5),
        ("-3", -3.0),
        ("quatre-vingt-dix", 90.0),
        ("deux cent mille", 200_000.0),
        ("vingt et un", 21.0),
        ("abc", None),
        ("", None),
    ],
)
def test_one_number_parser_for_every_reader(raw: str, value: float | None) -> None:
    assert parse_number(raw) == value


def test_amounts_scale_words() -> None:
    assert amount("1,5", "millions") == 1_500_000.0
    assert amount("2", "Md") == 2e9 and amount("3", "milliards") == 3e9
    assert amount("420", "k") == 420_000.0 and amount("3", "milliers") == 3000.0
    assert amount("1 200", None) == 1200.0 and amount("n/a", "M") is None
    assert scale("M") == 1e6 and scale("") == 1.0


def test_dates_read_once_with_their_precision() -> None:
    iv = read_date("3 février 2022")
    assert iv is not None and (iv.start, iv.precision) == (date(2022, 2, 3), DatePrecision.DAY)
    iv = read_date("mars 2021")
    assert iv is not None and (iv.start, iv.end, iv.precision) == (
        date(2021, 3, 1),
        date(2021, 3, 31),
        DatePrecision.MONTH,
    )
    text = "Le contrat du 1er juillet 2015, résilié le 12 mai (2 000 unités)."
    found = dates_in(text, 0, len(text), anchor=date(2024, 6, 1))
    assert [(text[f.start : f.end], f.interval.start) for f in found] == [
        ("1er juillet 2015", date(2015, 7, 1)),
        ("12 mai", date(2024, 5, 12)),
    ]

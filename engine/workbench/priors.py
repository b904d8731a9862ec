"""`lexlogic check` warnings: uncertain facts the model would weigh at an undeclared P = 0.5.

A yes/no fact nobody gave becomes a coin in the probabilistic model; without a declared prior (facts.yaml
`prior`, weights.yaml `priors`) or a default (burden of proof), that coin is 0.5 — a number nobody chose,
printed as if it were known. A string prior is read only on an appreciation fact (a computed percent): on
any other fact it is silently a 0.5 too. These are warnings (the pack runs), not errors: the CLI prints them and keeps exit 0.
"""

from __future__ import annotations

from pathlib import Path

from lexlogic.logic.pack import FactType, PackError, RulePack
from lexlogic.logic.weights import WeightsError, load_weights


def _declared(pack: RulePack) -> set[str]:
    """The facts weights.yaml gives an expert prior."""
    name = pack.manifest.files.weights
    if not name or not (pack.root / name).exists():
        return set()
    try:
        return set(load_weights(pack.root / name).priors)
    except WeightsError:
        return set()  # `check` reports the broken file itself


def _line(path: Path, name: str) -> int | None:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError:
        return None
    return next((i + 1 for i, text in enumerate(lines) if text.lstrip().startswith(f"{name}:")), None)


def fallback_prior_warnings(pack: RulePack) -> list[PackError]:
    """One warning per uncertain yes/no fact whose probability would fall back to 0.5."""
    facts_file = pack.root / pack.manifest.files.facts
    declared = _declared(pack)
    out: list[PackError] = []
    for name, spec in pack.facts.items():
        if spec.default is not None or name in declared:
            continue
        if spec.type is not FactType.BOOL:
            continue
        if isinstance(spec.prior, (int, float)) or (isinstance(spec.prior, str) and spec.appreciation):
            continue
        why = (
            f"its prior {spec.prior!r} names a computed percent, read only on an appreciation fact"
            if isinstance(spec.prior, str)
            else "no prior declared (facts.yaml `prior` or weights.yaml `priors`) and no default"
        )
        message = f"fact '{name}': uncertain when nobody gives it, the model weighs it at P = 0.5 — {why}"
        out.append(PackError(facts_file, _line(facts_file, name), message))
    return out

"""OpenAPI examples drawn from the default rule pack and its shipped example, not written into the routers.

Why: the API documents itself with real values (a real case file, a fact the pack really asks about, its soft
rule's magnitudes), yet names no pack's facts in code — a deployment with another default pack gets examples in
its own vocabulary. Everything is read once at import; a missing or broken pack leaves neutral placeholders
(the docs must never stop the service from starting).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class PackExamples:
    pack: str = "some_pack"
    case_file: dict[str, Any] = field(default_factory=dict)
    case_name: str = "X c/ Y"
    rule_location: str = "rules/some_pack/rules.lp:12"
    bool_fact: str = "some_fact"
    uncertain_fact: str = "some_fact"
    enum_fact: str = "some_fact"
    soft_rule: str | None = None


def _load() -> PackExamples:
    try:
        from lexlogic.engine.packs.library import PackLibrary
        from lexlogic.logic.pack import FactType
        from lexlogic.logic.weights import load_weights
        from lexlogic.settings import SHIPPED_RULES

        shipped = PackLibrary(SHIPPED_RULES)  # the documentation's examples are the shipped pack's
        name = shipped.default_name()
        pack = shipped.pack(name)
        root = pack.root
    except Exception:
        return PackExamples()
    example = ROOT / "examples" / name / "facts.json"
    case_file: dict[str, Any] = json.loads(example.read_text(encoding="utf-8")) if example.exists() else {}
    asked = [f for f, spec in pack.facts.items() if spec.question and not spec.appreciation]
    bools = [f for f in asked if pack.value_type(f) is FactType.BOOL]
    enums = [f for f in asked if pack.value_type(f) is FactType.ENUM]
    soft, priors = None, set()
    weights_file = root / pack.manifest.files.weights if pack.manifest.files.weights else None
    if weights_file is not None and weights_file.exists():
        try:
            weights = load_weights(weights_file)
            soft, priors = (weights.soft_rules[0].id if weights.soft_rules else None), set(weights.priors)
        except Exception:
            pass
    lp = sorted(root.glob("*.lp"))
    return PackExamples(
        pack=name,
        case_file=case_file,
        case_name=str(case_file.get("case_id") or f"dossier {name}"),
        rule_location=f"rules/{name}/{lp[0].name}:12" if lp else f"rules/{name}/pack.yaml:1",
        bool_fact=bools[0] if bools else (asked[0] if asked else "some_fact"),
        uncertain_fact=next((f for f in bools if f in priors), bools[-1] if bools else "some_fact"),
        enum_fact=enums[0] if enums else "some_fact",
        soft_rule=soft,
    )


EXAMPLES = _load()

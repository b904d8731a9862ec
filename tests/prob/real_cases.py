"""Real cases derived from the shipped example with N uncertain roots (issue 33): the benchmark
``benchmarks/prob_cases.py`` and the oracle tests ``tests/prob/test_real_cases.py`` build the same cases.

A contested allegation (``allegation: alleged``: unknown, weighed by the pack's prior) is one root
variable; an ambiguity read differently by the two narratives (``NARRATIVE_A`` / ``NARRATIVE_B``) is two.
The seed chooses the facts and orders the case file (so the model's variables).
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "rupture_brutale" / "facts.json"


def candidates() -> tuple[list[str], dict[str, Any]]:
    """The pack's yes/no and enum facts a case can leave uncertain (not the judge's appreciations)."""
    from tests.support.packs import pack_by_name

    pack, _ = pack_by_name("rupture_brutale")
    out = [
        n
        for n, s in pack.facts.items()
        if s.type.value in ("bool", "enum") and not (s.appreciation and isinstance(s.prior, str))
    ]
    return out, {n: s for n, s in pack.facts.items()}


def make_case(n: int, seed: int, ambiguities: bool = True, among: list[str] | None = None) -> dict[str, Any]:
    """The example with ``n`` root variables made uncertain, facts chosen (``among`` these, if given) and
    ordered by ``seed``."""
    names, specs = candidates()
    names = [x for x in names if among is None or x in among]
    raw = json.loads(EXAMPLE.read_text())
    facts: dict[str, Any] = raw["facts"]
    rnd = random.Random(1000 * n + seed)
    order = list(names)
    rnd.shuffle(order)
    bools = [x for x in order if specs[x].type.value == "bool"]
    ambiguous = max(n - len(order), round(0.25 * n) if ambiguities else 0)  # each ambiguity counts twice
    if n - ambiguous > len(order) or ambiguous > len(bools):
        raise SystemExit(f"the pack has {len(order)} yes/no and enum facts: {n} root variables are out of reach")
    chosen = order[: n - ambiguous]
    amb = set([x for x in chosen if x in bools][:ambiguous])
    if len(amb) < ambiguous:
        raise SystemExit(f"{n}: not enough yes/no facts among the chosen for {ambiguous} ambiguities")
    out: dict[str, Any] = {k: v for k, v in facts.items() if k not in chosen}
    for name in chosen:
        spec = specs[name]
        given = facts.get(name)
        if spec.type.value == "bool":
            value = bool(given) if isinstance(given, bool) else rnd.random() < 0.5
        else:
            value = given if given is not None else rnd.choice(spec.values)
        if name in amb:
            ca = round(rnd.uniform(0.35, 0.65), 3)
            out[name] = {
                "value": value,
                "confidence": ca,
                "world": "NARRATIVE_A",
                "alternatives": [{"value": not value, "confidence": round(1 - ca, 3), "world": "NARRATIVE_B"}],
            }
        else:
            out[name] = {"value": value, "allegation": "alleged", "alleged_by": rnd.choice(["claimant", "defence"])}
    keys = list(out)
    rnd.shuffle(keys)  # the ordering of the case file (and so of the model's variables)
    return {"pack": "rupture_brutale", "case_id": f"real-{n}-{seed}", "facts": {k: out[k] for k in keys}}

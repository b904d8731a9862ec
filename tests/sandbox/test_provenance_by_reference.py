"""Attack: a dynamic rule with many outputs over large premises must not multiply the premises.

Each output used to carry a deep copy of every premise: 300 outputs over 8 premises of 12 kB made a
~29 MB result. By reference the premises are kept once per run and each output names them by id; the
result stays near premises + outputs, and the named premises are exactly the ones the rule read.
"""

from __future__ import annotations

import hashlib

from lexlogic.engine.extensions.dynamic_rules import (
    DeploymentPolicy,
    DynamicEvaluation,
    DynamicRuleStore,
    run_active_rules,
)
from lexlogic.logic.proof import NodeKind

OUTPUTS = 300
PREMISES = 8
PREMISE_CHARS = 12_000
WIDE = f"""
def rule(facts):
    total = 0
    for i in range({PREMISES}):
        total += len(facts["big_" + str(i)])
    out = {{}}
    for j in range({OUTPUTS}):
        out["o" + str(j)] = total + j
    return out
"""


def _facts() -> dict[str, str]:
    return {f"big_{i}": chr(ord("a") + i) * PREMISE_CHARS for i in range(PREMISES)}


def test_many_outputs_over_large_premises_stay_bounded_and_name_their_premises(tmp_path, pool) -> None:
    store = DynamicRuleStore(f"sqlite:///{tmp_path / 'r.db'}", DeploymentPolicy(require_approval=False))
    store.add(WIDE, author="attacker", rule_id="wide-v1")
    store.add("def rule(facts):\n    return len(facts['big_0'])\n", author="llm", rule_id="one-v1")
    facts = _facts()
    result = run_active_rules(store, facts, pool=pool)
    assert result.failures == []
    assert len(result.facts) == OUTPUTS + 1

    size = len(result.model_dump_json().encode())
    premise_bytes = PREMISES * PREMISE_CHARS
    # Premises once (+ JSON framing), then a constant per output: far below outputs × premises (29 MB).
    assert size < premise_bytes + 2_000 * PREMISES + 1_000 * (OUTPUTS + 1), size
    assert len(result.provenance.nodes) == PREMISES  # big_0 read by both rules, stored once
    assert len(result.provenance.sets) == 2

    # Round trip: the JSON result, read back, still names the exact premises each output read.
    back = DynamicEvaluation.model_validate_json(result.model_dump_json())
    for fact in back.facts:
        children = back.proof(fact).children
        expected = [f"big_{i}" for i in range(PREMISES)] if fact.rule_id == "wide-v1" else ["big_0"]
        assert [c.atom for c in children] == expected
        assert all(c.kind is NodeKind.FACT and c.value == facts[c.atom] for c in children)
        assert all(c.grounding[0].json_path == f"$.{c.atom}" for c in children)
    for digest, node in back.provenance.nodes.items():  # each id is the digest of what it names
        assert hashlib.sha256(node.model_dump_json().encode()).hexdigest() == digest
    resolved = {f.name: f.proof for f in result.resolved()}
    assert resolved["o7"].value == PREMISES * PREMISE_CHARS + 7
    assert resolved["o7"].children[3] is resolved["o8"].children[3]  # shared, not copied

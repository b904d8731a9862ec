"""The clingo bridge owns clingo (issue 14, point 4).

The engine speaks to clingo only through the bridge, in plain data; the bridge grounds each compiled pack
once and shares that grounding; it never writes into a `logic` model; one rule walker serves proofs,
why-not trees and live unknowns.
"""

from __future__ import annotations

import ast
import dataclasses
import json
from pathlib import Path

import pytest

from lexlogic.bridges.clingo_bridge import CompiledProgram, Solution, atom_signature, compile_pack
from lexlogic.bridges.clingo_walk import ObstacleKind, PremiseKind, RuleWalker, View
from lexlogic.engine.symbolic.analysis import analyse, input_assignment
from lexlogic.engine.symbolic.explain import Explainer
from lexlogic.engine.symbolic.values import gather_values
from lexlogic.logic.facts import parse_case
from lexlogic.logic.pack import FactSpec, FactType, RulePack, load_pack
from tests.support.packs import pack_by_name

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "rupture_brutale" / "facts.json"


def _example() -> tuple[RulePack, CompiledProgram, Solution, Explainer]:
    pack, program = pack_by_name("rupture_brutale")
    case = parse_case(json.loads(EXAMPLE.read_text()), pack)
    values = gather_values(pack, case)
    solution = program.solve(input_assignment(pack, values))
    return pack, program, solution, Explainer(pack, program, solution, values)


def test_engine_never_imports_clingo() -> None:
    offenders = []
    for path in sorted((ROOT / "engine").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            if any(n == "clingo" or n.startswith("clingo.") for n in names):
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert offenders == []


def test_compiling_reads_the_pack_and_returns_the_rule_metadata() -> None:
    pack = load_pack(ROOT / "rules" / "rupture_brutale")
    before = pack.model_dump()
    program = compile_pack(pack)
    assert pack.model_dump() == before  # nothing written into the logic model
    assert program.rule_meta["L_liable"].label.startswith("Responsabilité")
    assert set(program.rule_meta) == {r.meta.id for r in program.rules if r.meta}
    assert program.inputs.enums["rupture_kind"][0] == "total"
    assert "notice_written" in program.inputs.booleans
    assert "__app" not in program.source and "__app" in program.text


def test_one_grounding_per_compiled_pack_shared_by_every_case() -> None:
    pack, program = pack_by_name("rupture_brutale")
    grounding = program.grounding()
    case = parse_case(json.loads(EXAMPLE.read_text()), pack)
    analyse(pack, program, case)
    analyse(pack, program, case, {"notice_written": False})
    assert program.grounding() is grounding
    assert not hasattr(program, "_grounded")  # nobody patches the program from outside
    ground = grounding.ground_program()
    assert set(ground.externals) == set(grounding.inputs) and ground.rules


def test_solution_is_plain_data() -> None:
    _, program, solution, _ = _example()
    assert solution.satisfiable
    for atoms in (solution.reference, solution.brave, solution.cautious):
        assert atoms and all(isinstance(a, str) and not a.startswith("__app") for a in atoms)
    assert "rupture_kind(total)" in solution.reference
    assert solution.cautious <= solution.brave
    assert all(
        isinstance(i, int) and all(isinstance(v, str) for b in bindings for v in b)
        for i, bindings in solution.applications.items()
    )
    assert solution.status("liable") is True
    with pytest.raises(dataclasses.FrozenInstanceError):
        solution.satisfiable = False  # type: ignore[misc]
    assert atom_signature("rupture_kind(total)") == ("rupture_kind", 1)


def test_walker_gives_rule_applications_with_their_premises() -> None:
    _, program, solution, _ = _example()
    walker = RuleWalker(program, solution)
    step = walker.application("liable")
    assert step is not None and step.rule.rule_id == "L_liable" and step.head == "liable"
    assert [(p.kind, p.negated, p.atom) for p in step.premises][:2] == [
        (PremiseKind.ATOM, True, "defeated"),
        (PremiseKind.ATOM, False, "established"),
    ]
    assert walker.application("defeated") is None  # did not fire


def test_why_not_and_proof_trees_come_from_the_walker() -> None:
    _, _, solution, explainer = _example()
    proof = explainer.prove("liable")
    assert proof.holds and "L_liable" in proof.rule_ids()
    why = explainer.why_not("defeated")
    assert not why.holds and {"D_defeated_prescription", "D_defeated_arbitration"} <= why.rule_ids()


# ------------------------------------------------------------------ the walker on non-ground rules
TOY = """
size(small, 1). size(big, 3).
weight(W) :- kind(K), size(K, W).
heavy :- weight(W), W >= 2.
alert :- heavy, urgent.
"""


def _toy() -> tuple[RulePack, CompiledProgram]:
    pack = RulePack.model_construct(
        root=Path("/toy"),
        asp_sources={"toy.lp": TOY},
        facts={
            "kind": FactSpec(name="kind", type=FactType.ENUM, label="kind", values=["small", "big"]),
            "urgent": FactSpec(name="urgent", type=FactType.BOOL, label="urgent"),
        },
        computations=[],
    )
    return pack, compile_pack(pack)


def test_walker_matches_non_ground_premises_in_the_reference_model() -> None:
    _, program = _toy()
    solution = program.solve({"kind(small)": True, "kind(big)": False, "urgent": True})
    walker = RuleWalker(program, solution)
    step = walker.application("weight(1)")
    assert step is not None
    assert [p.atom for p in step.premises] == ["kind(small)", "size(small,1)"]
    (match,) = walker.matches("heavy", View.REFERENCE)
    assert match.unifies and not match.complete
    first, failed = match.steps
    assert first.passed and first.premise.atom == "weight(1)"
    assert not failed.passed and failed.obstacle is not None
    assert failed.obstacle.kind is ObstacleKind.COMPARISON and failed.obstacle.text == "1 >= 2"


def test_walker_follows_undecided_premises_across_answer_sets() -> None:
    _, program = _toy()
    solution = program.solve({"kind(small)": None, "kind(big)": None, "urgent": True})
    walker = RuleWalker(program, solution)
    assert solution.status("heavy") is None
    (alert,) = walker.matches("alert", View.CONSEQUENCES)
    assert not alert.decided_against
    assert [u for s in alert.steps for u in s.undecided] == ["heavy"]  # urgent is decided (true)
    (heavy,) = walker.matches("heavy", View.CONSEQUENCES)
    assert heavy.steps[0].undecided == ("weight(1)", "weight(3)")
    solution = program.solve({"kind(small)": None, "kind(big)": None, "urgent": False})
    (alert,) = RuleWalker(program, solution).matches("alert", View.CONSEQUENCES)
    assert alert.decided_against  # urgent is false in every answer set: the rule is dead

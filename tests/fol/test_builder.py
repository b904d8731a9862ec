from __future__ import annotations

import pytest

from lexlogic.logic.fol import Atom, Const, parse_belief_set, print_belief_set
from lexlogic.logic.fol.builder import BeliefSetBuilder, BuilderError, tool_definitions
from lexlogic.logic.fol.names import constant_name, symbol_name
from lexlogic.logic.fol.repair import RepairKind
from lexlogic.logic.proof import NodeKind


def socrates_builder() -> BeliefSetBuilder:
    b = BeliefSetBuilder()
    for s in ("personne", "être vivant", "philosophe", "corps céleste"):
        b.add_sort(s)
    b.add_predicate_schema("est philosophe", ["personne"])
    b.add_predicate_schema("est mortel", ["être vivant"])
    b.add_predicate_schema("orbite", ["corps céleste"])
    b.add_predicate_schema("pense", ["philosophe"])
    return b


def test_names_are_normalised_and_labels_kept() -> None:
    assert symbol_name("personne morale") == "PersonneMorale"
    assert symbol_name("être vivant", "sort") == "EtreVivant"
    assert constant_name("Société Alpha SA") == "societe_alpha_sa"
    assert constant_name("Socrate") == "socrate"
    assert constant_name("2023 contrat") == "c_2023_contrat"
    b = socrates_builder()
    assert b.bs.labels["EtreVivant"] == "être vivant"
    assert b.predicate("EST_MORTEL") == "EstMortel"  # case and separators do not matter


def test_scenario_unknown_constant_is_declared_in_expected_sort() -> None:
    b = socrates_builder()
    msg = b.add_atomic_fact("EstMortel", ["Socrate"])  # the LLM's EstMortel(Socrate)
    assert "declared in EtreVivant" in msg
    assert b.bs.signature.sort_of("socrate") == "EtreVivant"
    assert b.bs.formulas[-1] == Atom("EstMortel", (Const("socrate"),))
    [rep] = b.bs.repairs
    assert rep.kind is RepairKind.DECLARED_CONSTANT and rep.constant == "socrate"
    node = rep.to_proof_node()
    assert node.kind is NodeKind.REPAIR and "not a given" in node.render().replace(
        "REPAIRED (not a given)", "not a given"
    )
    assert b.bs.labels["socrate"] == "Socrate"


def test_scenario_subsort_accepted_via_inferred_hierarchy() -> None:
    b = socrates_builder()
    b.add_constant_to_sort("socrate", "personne")
    msg = b.add_universal_implication("est philosophe", "est mortel")
    assert "inferred Personne ⊑ EtreVivant" in msg
    out = b.add_atomic_fact("est mortel", ["socrate"])
    assert out.startswith("added EstMortel(socrate)")
    [rep] = b.bs.repairs
    assert rep.kind is RepairKind.SUBSORT_ACCEPTED
    assert rep.justified_by == ["forall X: (EstPhilosophe(X) => EstMortel(X))"]
    node = rep.to_proof_node()
    assert node.kind is NodeKind.REPAIR and node.children[0].atom == rep.justified_by[0]
    assert b.hierarchy.as_dict() == {"Personne": ["EtreVivant"]}


def test_scenario_philosophe_vs_corps_celeste_rejected_precisely() -> None:
    b = socrates_builder()
    b.add_constant_to_sort("socrate", "philosophe")
    with pytest.raises(BuilderError) as info:
        b.add_atomic_fact("orbite", ["socrate"])
    msg = str(info.value)
    for part in ("'socrate'", "sort Philosophe", "expects CorpsCeleste", "missing link Philosophe ⊑ CorpsCeleste"):
        assert part in msg
    assert Atom("Orbite", (Const("socrate"),)) not in b.bs.formulas
    assert b.call_tool("add_atomic_fact", {"predicate": "orbite", "arguments": ["socrate"]}).startswith(
        "error: rejected"
    )


def test_pending_fact_rechecked_when_hierarchy_grows() -> None:
    b = socrates_builder()
    b.add_constant_to_sort("socrate", "personne")
    with pytest.raises(BuilderError):
        b.add_atomic_fact("est mortel", ["socrate"])
    assert len(b.pending) == 1
    msg = b.add_universal_implication("est philosophe", "est mortel")
    assert "pending facts now accepted: EstMortel(socrate)" in msg
    assert not b.pending
    assert b.bs.repairs[-1].kind is RepairKind.PENDING_ACCEPTED


def test_transitive_chain_and_cycle_reported_not_looped() -> None:
    b = BeliefSetBuilder()
    for s in ("a", "b", "c"):
        b.add_sort(s)
    for p, s in (("pa", "a"), ("pb", "b"), ("pc", "c")):
        b.add_predicate_schema(p, [s])
    b.add_universal_implication("pa", "pb")
    b.add_universal_implication("pb", "pc")
    b.add_constant_to_sort("x", "a")
    assert "A ⊑ B ⊑ C" in b.add_atomic_fact("pc", ["x"])
    msg = b.add_universal_implication("pc", "pa")
    assert "cycle" in msg and b.cycles
    assert set(b.cycles[0]) == {"A", "B", "C"}
    assert b.hierarchy.cycles() == [["A", "B", "C"]]
    assert b.hierarchy.is_subsort("C", "B")  # terminates on the cycle
    assert b.hierarchy.path("A", "Zzz") is None


def test_tool_errors_and_definitions() -> None:
    b = BeliefSetBuilder()
    assert b.call_tool("add_predicate_schema", {"name": "p", "argument_sorts": ["nope"]}).startswith(
        "error: unknown sort"
    )
    assert b.call_tool("nope", {}).startswith("error: unknown tool")
    assert "invalid arguments" in b.call_tool("add_sort", {})
    b.add_sort("s")
    b.add_predicate_schema("p", ["s"])
    assert "takes 1 argument" in b.call_tool("add_atomic_fact", {"predicate": "p", "arguments": ["a", "b"]})
    names = {t["function"]["name"] for t in tool_definitions()}
    assert names == {
        "add_sort",
        "add_predicate_schema",
        "add_constant_to_sort",
        "add_atomic_fact",
        "add_negated_atomic_fact",
        "add_universal_implication",
        "add_existential_conjunction",
    }
    schema = next(t for t in tool_definitions() if t["function"]["name"] == "add_predicate_schema")["function"][
        "parameters"
    ]
    assert schema["required"] == ["name", "argument_sorts"]


def test_built_belief_set_prints_and_reparses_with_same_repairs() -> None:
    b = socrates_builder()
    b.add_atomic_fact("est philosophe", ["Socrate"])
    b.add_universal_implication("est philosophe", "est mortel")
    b.add_atomic_fact("est mortel", ["Socrate"])
    b.add_existential_conjunction(["est philosophe"])
    b.add_negated_atomic_fact("est philosophe", ["Platon"])
    text = print_belief_set(b.bs)
    again = parse_belief_set(text)
    assert again.formulas == b.bs.formulas
    assert [r.kind for r in again.repairs] == [RepairKind.SUBSORT_ACCEPTED]

"""Building a case's FOL belief set: from text with an LLM (tool calls), or offline from case facts.

The LLM proposes (tool calls); the builder decides (repairs or rejects, see logic.fol.builder). A tool
error is returned to the model as that tool's result so it can correct itself; the number of turns is
bounded so a confused model cannot loop.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel

from lexlogic.bridges.llm import LLMClient, tool_result_message
from lexlogic.logic.fol.builder import BeliefSetBuilder, tool_definitions
from lexlogic.logic.fol.model import BeliefSet

SYSTEM_PROMPT = """You turn a legal text into a sorted first-order belief set by calling tools.
Declare sorts first (add_sort), then predicates with their argument sorts (add_predicate_schema),
then individuals (add_constant_to_sort), then facts (add_atomic_fact / add_negated_atomic_fact),
general rules (add_universal_implication) and existence claims (add_existential_conjunction).
If a tool answers with 'error:', read the message and fix the call. Answer with plain text (no tool
call) when you are done."""


class TextBuildResult(BaseModel):
    model_config = {"arbitrary_types_allowed": True}

    belief_set: Any
    turns: int
    finished: bool
    tool_calls: int
    errors: list[str]
    log: list[str]


def text_to_belief_set(
    text: str, client: LLMClient | None = None, *, max_turns: int = 12, builder: BeliefSetBuilder | None = None
) -> TextBuildResult:
    """Let the LLM build the belief set of `text` through the builder's tools (bounded turns)."""
    client = client or LLMClient.from_env()
    if client is None:
        raise RuntimeError(
            "no LLM configured (LEXLOGIC_LLM_BASE_URL): build the belief set from the case's "
            "structured facts with case_belief_set() instead"
        )
    builder = builder or BeliefSetBuilder()
    messages: list[dict[str, Any]] = [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": text}]
    tools = tool_definitions()
    errors: list[str] = []
    calls = 0
    for turn in range(1, max_turns + 1):
        reply = client.chat(messages, tools=tools)
        if not reply.tool_calls:
            return TextBuildResult(
                belief_set=builder.bs, turns=turn, finished=True, tool_calls=calls, errors=errors, log=builder.log
            )
        assistant = dict(reply.raw_message)
        assistant.setdefault("role", "assistant")
        messages.append(assistant)
        for call in reply.tool_calls:
            calls += 1
            try:
                result = builder.call_tool(call.name, call.parsed_arguments())
            except ValueError as exc:
                result = f"error: {exc}"
            if result.startswith("error:"):
                errors.append(f"{call.name}: {result}")
            messages.append(tool_result_message(call, result))
    return TextBuildResult(
        belief_set=builder.bs,
        turns=max_turns,
        finished=False,
        tool_calls=calls,
        errors=errors + [f"stopped after {max_turns} turns"],
        log=builder.log,
    )


# ---------------------------------------------------------------------- offline: structured facts
_SORTS = ["personne morale", "contrat", "commande", "relation commerciale"]
_PREDICATES: list[tuple[str, list[str]]] = [
    ("demanderesse", ["personne morale"]),
    ("defenderesse", ["personne morale"]),
    ("partie a", ["personne morale", "relation commerciale"]),
    ("contrat cadre", ["contrat"]),
    ("encadre", ["contrat", "relation commerciale"]),
    ("commande de", ["commande", "relation commerciale"]),
    ("flux regulier", ["relation commerciale"]),
    ("succession de contrats", ["relation commerciale"]),
    ("appels d offres systematiques", ["relation commerciale"]),
    ("volume minimum garanti", ["relation commerciale"]),
    ("exclusivite", ["relation commerciale"]),
    ("meme groupe", ["relation commerciale"]),
    ("rompue", ["relation commerciale"]),
    ("rupture notifiee", ["relation commerciale"]),
    ("auteur de la rupture", ["personne morale", "relation commerciale"]),
]
# boolean facts of rules/rupture_brutale/facts.yaml that are properties of the relation
_BOOL_RELATION = {
    "regular_orders": "flux regulier",
    "successive_contracts": "succession de contrats",
    "systematic_tenders": "appels d offres systematiques",
    "minimum_volume": "volume minimum garanti",
    "exclusivity": "exclusivite",
    "same_group": "meme groupe",
}
MAX_ORDER_CONSTANTS = 25


def case_belief_set(facts: dict[str, Any]) -> BeliefSetBuilder:
    """The case's belief set from its structured facts (rupture_brutale fact names), through the same
    builder tools the LLM uses. Absent facts add nothing (unknown, never false)."""
    b = BeliefSetBuilder()
    bs = b.bs

    def call(origin: str, tool: str, **args: Any) -> None:
        n = len(bs.formulas)
        result = b.call_tool(tool, args)
        if result.startswith("error:"):
            raise ValueError(f"facts.{origin}: {result}")
        for i in range(n, len(bs.formulas)):
            bs.origins[i] = f"facts.{origin}"

    for s in _SORTS:
        call("(ontology)", "add_sort", name=s)
    for p, sorts in _PREDICATES:
        call("(ontology)", "add_predicate_schema", name=p, argument_sorts=sorts)
    call("(ontology)", "add_constant_to_sort", constant="relation", sort="relation commerciale")
    claimant = facts.get("claimant_name")
    defendant = facts.get("defendant_name")
    if claimant:
        call("claimant_name", "add_constant_to_sort", constant=str(claimant), sort="personne morale")
        call("claimant_name", "add_atomic_fact", predicate="demanderesse", arguments=[str(claimant)])
        call("claimant_name", "add_atomic_fact", predicate="partie a", arguments=[str(claimant), "relation"])
    if defendant:
        if not claimant or b._constant(str(defendant)) != b._constant(str(claimant)):
            call("defendant_name", "add_constant_to_sort", constant=str(defendant), sort="personne morale")
        call("defendant_name", "add_atomic_fact", predicate="defenderesse", arguments=[str(defendant)])
        call("defendant_name", "add_atomic_fact", predicate="partie a", arguments=[str(defendant), "relation"])
    # integrity: one party cannot be both claimant and defendant (a Horn negative clause)
    from lexlogic.logic.fol.model import And, Atom, Forall, Not, Var

    x = Var("X", "PersonneMorale")
    bs.add(Forall(x, Not(And((Atom("Demanderesse", (x,)), Atom("Defenderesse", (x,)))))))
    bs.origins[len(bs.formulas) - 1] = "(ontology) parties are distinct"
    if facts.get("framework_contract") is True:
        call("framework_contract", "add_constant_to_sort", constant="contrat cadre", sort="contrat")
        call("framework_contract", "add_atomic_fact", predicate="contrat cadre", arguments=["contrat cadre"])
        call("framework_contract", "add_atomic_fact", predicate="encadre", arguments=["contrat cadre", "relation"])
    n_orders = facts.get("orders_count")
    if isinstance(n_orders, int) and n_orders > 0:
        for k in range(1, min(n_orders, MAX_ORDER_CONSTANTS) + 1):
            call("orders_count", "add_constant_to_sort", constant=f"commande {k}", sort="commande")
            call("orders_count", "add_atomic_fact", predicate="commande de", arguments=[f"commande {k}", "relation"])
    for fact, pred in _BOOL_RELATION.items():
        value = facts.get(fact)
        if value is True:
            call(fact, "add_atomic_fact", predicate=pred, arguments=["relation"])
        elif value is False:
            call(fact, "add_negated_atomic_fact", predicate=pred, arguments=["relation"])
    kind = facts.get("rupture_kind")
    if kind in ("total", "partial_volume", "partial_terms"):
        call("rupture_kind", "add_atomic_fact", predicate="rompue", arguments=["relation"])
    elif kind == "none":
        call("rupture_kind", "add_negated_atomic_fact", predicate="rompue", arguments=["relation"])
    if facts.get("notification_date"):
        call("notification_date", "add_atomic_fact", predicate="rupture notifiee", arguments=["relation"])
        call("notification_date", "add_universal_implication", antecedent="rupture notifiee", consequent="rompue")
    if facts.get("claimant_is_author") is True and claimant:
        call(
            "claimant_is_author",
            "add_atomic_fact",
            predicate="auteur de la rupture",
            arguments=[str(claimant), "relation"],
        )
    elif facts.get("claimant_is_author") is False and defendant:
        call(
            "claimant_is_author",
            "add_atomic_fact",
            predicate="auteur de la rupture",
            arguments=[str(defendant), "relation"],
        )
    return b


def load_facts(path: str) -> dict[str, Any]:
    with open(path, encoding="utf-8") as fh:
        data = json.load(fh)
    return data.get("facts", data) if isinstance(data, dict) else {}


def case_to_belief_set(facts: dict[str, Any]) -> BeliefSet:
    return case_belief_set(facts).bs

"""LLM navigator: OpenAI-compatible tool calling, free ("auto") choice among the three tools.

One short conversation per node (the node, its children with definitions, the argument): the context
stays small even on the 1,408-node tree. Malformed calls (bad JSON, unknown node, wrong arguments) are
answered with a tool error and the model gets a bounded number of retries; after that the branch is
abandoned with the errors recorded — never an exception for a model's mistake.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from lexlogic.bridges.llm import ChatReply, LLMClient, ToolCall, tool_result_message
from lexlogic.engine.fallacies.actions import ConcludeNoFallacy, ConfirmFallacy, Decision, ExploreBranch
from lexlogic.engine.fallacies.taxonomy import FallacyNode, Taxonomy

SYSTEM_PROMPT = """Tu analyses un argument juridique (en français) pour y détecter un éventuel sophisme, en \
parcourant une taxonomie de sophismes de la racine vers les feuilles. À chaque étape on te montre un nœud \
et ses enfants. Tu choisis librement parmi trois outils :
- explore_branch(node_id) : descendre dans un enfant qui a lui-même des enfants et qui correspond \
plausiblement à l'argument (tu peux en explorer plusieurs si plusieurs sont plausibles) ;
- confirm_fallacy(node_id, confidence, justification) : l'argument commet clairement ce sophisme \
(un enfant, ou le nœud courant si aucun enfant n'est plus précis) ; confidence entre 0 et 1 ; \
justification citant le passage fautif ;
- conclude_no_fallacy(reason) : l'argument ne contient AUCUN sophisme. C'est une réponse normale et \
attendue : la plupart des arguments juridiques sont corrects (faits prouvés, texte applicable, \
conclusion qui en découle). Cet appel met fin à toute l'analyse.
Si seule cette branche ne convient pas mais qu'une autre déjà ouverte peut convenir, réponds sans appeler \
d'outil : la branche est abandonnée. N'invente jamais d'identifiant : utilise ceux qui sont listés."""

TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "explore_branch",
            "description": "Descend into a child node that has children and plausibly matches the argument.",
            "parameters": {"type": "object", "properties": {"node_id": {"type": "string"}}, "required": ["node_id"]},
        },
    },
    {
        "type": "function",
        "function": {
            "name": "confirm_fallacy",
            "description": "The argument clearly commits this fallacy (a child, or the current node).",
            "parameters": {
                "type": "object",
                "properties": {
                    "node_id": {"type": "string"},
                    "confidence": {"type": "number", "minimum": 0, "maximum": 1},
                    "justification": {"type": "string"},
                },
                "required": ["node_id", "confidence", "justification"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "conclude_no_fallacy",
            "description": "The argument contains no fallacy. Ends the whole analysis.",
            "parameters": {"type": "object", "properties": {"reason": {"type": "string"}}, "required": ["reason"]},
        },
    },
]


def _describe(node: FallacyNode, max_chars: int = 220) -> str:
    text = f"[{node.id}] {node.name_fr}"
    if node.name_en:
        text += f" ({node.name_en})"
    if node.definition_fr:
        text += f" — {node.definition_fr[:max_chars]}"
    if node.example_fr:
        text += f" Ex. : {node.example_fr[:max_chars]}"
    text += " (feuille)" if node.is_leaf else f" ({len(node.children_ids)} sous-types)"
    return text


def node_prompt(argument: str, taxonomy: Taxonomy, node: FallacyNode) -> str:
    trail = " > ".join(n.name_fr for n in taxonomy.ancestors(node.id)[1:] + [node]) or node.name_fr
    kids = "\n".join(f"- {_describe(c)}" for c in taxonomy.children(node.id))
    return f"Argument à analyser :\n«{argument}»\n\nNœud courant : [{node.id}] {trail}\nEnfants :\n{kids or '(aucun)'}"


def parse_call(
    call: ToolCall, taxonomy: Taxonomy, node: FallacyNode
) -> ExploreBranch | ConfirmFallacy | ConcludeNoFallacy:
    """One tool call → one action; ValueError with a message meant for the model otherwise."""
    args = call.parsed_arguments()  # ValueError on bad JSON
    try:
        if call.name == "explore_branch":
            action: Any = ExploreBranch(node_id=str(args["node_id"]))
        elif call.name == "confirm_fallacy":
            action = ConfirmFallacy(
                node_id=str(args["node_id"]),
                confidence=float(args["confidence"]),
                justification=str(args.get("justification", "")),
            )
        elif call.name == "conclude_no_fallacy":
            return ConcludeNoFallacy(reason=str(args.get("reason") or "no reason given"))
        else:
            raise ValueError(f"unknown tool {call.name!r}: use explore_branch, confirm_fallacy or conclude_no_fallacy")
    except KeyError as exc:
        raise ValueError(f"{call.name}: missing argument {exc.args[0]!r}") from exc
    except (TypeError, ValueError, ValidationError) as exc:
        raise ValueError(f"{call.name}: invalid arguments: {exc}") from exc
    target = taxonomy.get(action.node_id)
    if target is None:
        raise ValueError(
            f"{call.name}: unknown node {action.node_id!r}; valid ids: " + ", ".join(node.children_ids[:40])
        )
    if isinstance(action, ExploreBranch):
        if action.node_id not in node.children_ids:
            raise ValueError(f"explore_branch: {action.node_id!r} is not a child of the current node")
        if target.is_leaf:
            raise ValueError(f"explore_branch: {action.node_id!r} is a leaf; confirm it or conclude")
    elif action.node_id not in node.children_ids and action.node_id != node.id:
        raise ValueError(f"confirm_fallacy: {action.node_id!r} is neither the current node nor a child")
    return action


class LLMNavigator:
    name = "llm"

    def __init__(self, client: LLMClient, max_retries: int = 2) -> None:
        self.client = client
        self.max_retries = max_retries
        self.tokens = 0

    def decide(self, argument: str, taxonomy: Taxonomy, node: FallacyNode) -> Decision:
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": SYSTEM_PROMPT},
            {"role": "user", "content": node_prompt(argument, taxonomy, node)},
        ]
        errors: list[str] = []
        for _attempt in range(1 + self.max_retries):
            reply: ChatReply = self.client.chat(messages, tools=TOOLS, tool_choice="auto")
            self.tokens += reply.usage_tokens
            if not reply.tool_calls:  # free choice: no call = abandon this branch
                return Decision(errors=errors, note=(reply.content or "")[:300] or None)
            actions, results, bad = [], [], []
            for call in reply.tool_calls:
                try:
                    actions.append(parse_call(call, taxonomy, node))
                    results.append(tool_result_message(call, "ok"))
                except ValueError as exc:
                    bad.append(str(exc))
                    results.append(tool_result_message(call, f"error: {exc}"))
            errors.extend(bad)
            if actions:
                return Decision(actions=actions, errors=errors)
            assistant = dict(reply.raw_message) or {"role": "assistant", "content": reply.content}
            assistant.setdefault("role", "assistant")
            messages += [
                assistant,
                *results,
                {"role": "user", "content": "Corrige ton appel : utilise un outil valide avec un identifiant listé."},
            ]
        return Decision(errors=errors, note=f"no valid tool call after {1 + self.max_retries} attempts")

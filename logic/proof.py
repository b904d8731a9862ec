"""Proof traces: conclusion → rule → premises → facts (with grounding).

One model for every engine (clingo, JSON-Logic, FOL reasoners, dynamic rules), so a verdict reads the
same whatever produced it. Dynamic (LLM-written) rules and FOL repairs are distinct node kinds: they
render as interpretations/repairs, never as hard law.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date
from enum import Enum
from typing import Any

from pydantic import BaseModel, Field

from lexlogic.logic.grounding import Grounding
from lexlogic.logic.model_defaults import new_list
from lexlogic.logic.printable import printable


class LegalSource(BaseModel):
    """A legal basis: an article in a given version, or a decision."""

    id: str
    kind: str = Field(default="article", description="article | decision | doctrine")
    reference: str = Field(description="e.g. 'art. L.442-1 II C. com.' or 'Cass. com. 8/07/2020, 18-24.441'")
    version: str | None = Field(default=None, description="version of the text, e.g. 'ord. 2019-359'")
    valid_from: date | None = None
    valid_to: date | None = None
    status: str | None = Field(default=None, description="V (verified in commentary) or M (from memory, to re-check)")
    url: str | None = None

    def cite(self) -> str:
        parts = [self.reference]
        if self.version:
            parts.append(f"({self.version})")
        if self.valid_from or self.valid_to:
            parts.append(f"[{self.valid_from or '…'} → {self.valid_to or '…'}]")
        return " ".join(parts)


class NodeKind(str, Enum):
    RULE = "rule"  # a hard rule of a pack fired (or failed, for why-not)
    FACT = "fact"  # a given fact of the case, with grounding
    COMPUTED = "computed"  # a value computed by a hard JSON-Logic rule
    DYNAMIC = "dynamic"  # produced by a sandboxed dynamic rule: an interpretation, not law
    REPAIR = "repair"  # introduced by FOL sort repair: not a given
    ASSUMPTION = "assumption"  # default/negation as failure: "no evidence of X"
    MISSING = "missing"  # a fact the case does not give: makes the conclusion unknown


class ProofNode(BaseModel):
    """A node of a proof tree (or of a why-not tree when ``holds`` is False)."""

    atom: str = Field(description="the conclusion or fact, e.g. 'brutal' or 'notice_written'")
    label: str = Field(default="", description="human reading, in the pack's language")
    kind: NodeKind = NodeKind.RULE
    holds: bool = True
    value: Any = None
    rule_id: str | None = None
    sources: list[LegalSource] = Field(default_factory=new_list)
    grounding: list[Grounding] = Field(default_factory=new_list)
    note: str | None = None
    children: list[ProofNode] = Field(default_factory=new_list)

    def walk(self) -> Iterator[ProofNode]:
        yield self
        for child in self.children:
            yield from child.walk()

    def rule_ids(self) -> set[str]:
        return {n.rule_id for n in self.walk() if n.rule_id}

    def render(self, indent: int = 0) -> str:
        """Indented text for the terminal."""
        return "\n".join(self._lines(indent))

    def _lines(self, indent: int) -> list[str]:
        pad = "  " * indent
        mark = "✔" if self.holds else "✘"
        tag = {
            NodeKind.RULE: "rule",
            NodeKind.FACT: "fact",
            NodeKind.COMPUTED: "computed",
            NodeKind.DYNAMIC: "DYNAMIC interpretation (not hard law)",
            NodeKind.REPAIR: "REPAIRED (not a given)",
            NodeKind.ASSUMPTION: "no evidence",
            NodeKind.MISSING: "MISSING",
        }[self.kind]
        head = f"{pad}{mark} {printable(self.label or self.atom)}"
        if self.value is not None and self.value is not True:
            head += f" = {printable(self.value)}"
        head += f"  [{tag}"
        if self.rule_id:
            head += f" {printable(self.rule_id)}"
        head += "]"
        lines = [head]  # every piece of data escaped: a newline or ESC in a value cannot draw a line
        for src in self.sources:
            lines.append(f"{pad}    § {printable(src.cite())}")
        for g in self.grounding:
            lines.append(f"{pad}    ↳ {printable(g.describe())}")
        if self.note:
            lines.append(f"{pad}    note: {printable(self.note)}")
        for child in self.children:
            lines.extend(child._lines(indent + 1))
        return lines

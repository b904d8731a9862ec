"""The probabilistic verdict of a case: the symbolic analysis turned into a ProbProgram (engine.prob).

What is certain in the case becomes ASP facts; what is uncertain becomes a random variable:
- an unknown yes/no fact (prior: the pack's expert prior, else 0.5) or an unknown enum (uniform);
- a fact given with a confidence below 1, or with alternative readings (an ambiguity): its worlds
  carry the reading's narrative tag (claimant A / defence B);
- an unknown *computed* yes/no value (JSON-Logic): when everything it lacks is yes/no facts, it is
  compiled into ASP rules over those facts (so asking the fact updates it exactly); otherwise it is a
  variable of its own, asked through the fact it lacks;
- an appreciation fact (the judge's call): prior from the pack (e.g. the position of the notice in the
  range), never asked, balanced by the Alexy soft rules of `weights.yaml`.
Probabilities and proof trees come from the same rules, so they cannot disagree.
"""

from __future__ import annotations

import itertools
from typing import Any

from pydantic import BaseModel, Field

from lexlogic.bridges.clingo_bridge import CompiledProgram
from lexlogic.engine.analysis import Analysis, analyse
from lexlogic.engine.prob import BoolVar, CategoricalVar, Option, ProbProgram, ProbVerdict, WorldTag
from lexlogic.engine.prob import analyse as prob_analyse
from lexlogic.engine.values import ValueInfo, ValueStatus, gather_values
from lexlogic.logic.facts import CaseFile
from lexlogic.logic.pack import FactType, RulePack
from lexlogic.logic.weights import load_weights

NOT_ASKABLE_COST = 1e6  # appreciation and open zones: they have an EIG but no one to ask
MAX_COMPILED_ROOTS = 6


class CaseVerdict(BaseModel):
    """Symbolic analysis + probabilistic verdict + the questions worth asking."""

    analysis: Analysis
    probability: ProbVerdict | None = None
    status: str = Field(description="VERDICT or NEEDS_INFORMATION")
    questions: list[dict[str, Any]] = Field(default_factory=list)
    variables: dict[str, str] = Field(default_factory=dict, description="variable -> the fact it asks about")
    note: str | None = None


def _asp_fact(pack: RulePack, name: str, value: Any) -> str | None:
    t = pack.value_type(name)
    if t is FactType.BOOL:
        return f"{name}." if value else None
    if t is FactType.ENUM:
        return f"{name}({value})."
    return None


def _prior_of(pack: RulePack, name: str, values: dict[str, ValueInfo], priors: dict[str, Any]) -> Any:
    if name in priors:
        return priors[name]
    spec = pack.facts.get(name)
    if spec is not None and spec.prior is not None:
        if isinstance(spec.prior, (int, float)):
            return float(spec.prior)
        info = values.get(spec.prior)
        if info is not None and info.known:
            return max(0.0, min(1.0, float(info.value) / 100.0))
    return 0.5


def build_program(
    pack: RulePack,
    case: CaseFile,
    answers: dict[str, Any] | None = None,
    dynamic: list[Any] | None = None,
    values: dict[str, ValueInfo] | None = None,
) -> tuple[ProbProgram, dict[str, str]]:
    """The case as a ProbProgram, and for each variable the fact a question would ask about.
    `values`: the case's values when the caller already has them (the symbolic analysis did)."""
    answers = dict(answers or {})
    # A yes/no interpretation of a dynamic rule is NOT a given here: it is a variable whose prior is the
    # rule's reliability, so the values computed from it are compiled over both of its values below.
    interpreted = {
        d.name: d for d in (dynamic or []) if pack.value_type(d.name) is FactType.BOOL and isinstance(d.value, bool)
    }
    dynamic = [d for d in (dynamic or []) if d.name not in interpreted]
    if values is None or interpreted:
        values = gather_values(pack, case, answers, dynamic)
    completions: dict[tuple[tuple[str, bool], ...], dict[str, ValueInfo]] = {}  # one evaluation per completion
    weights = load_weights(pack.root / pack.manifest.files.weights) if pack.manifest.files.weights else None
    priors = dict(weights.priors) if weights else {}
    lines = [text for text in pack.asp_sources.values()]
    variables: list[BoolVar | CategoricalVar] = []
    asks: dict[str, str] = {}

    def add_bool(
        name: str, *, prior: Any, world: WorldTag = WorldTag.SHARED, asserted: bool = True, ask: str | None = None
    ) -> None:
        spec = pack.facts.get(ask or name)
        askable = spec is not None and bool(spec.question) and not spec.appreciation
        variables.append(
            BoolVar(
                name=name,
                atom=name,
                prior=prior,
                world=world,
                asserted=asserted,
                cost=spec.cost if askable and spec else NOT_ASKABLE_COST,
                question=spec.question or "" if askable and spec else "",
            )
        )
        if askable:
            asks[name] = ask or name

    for name, info in values.items():
        t = pack.value_type(name)
        if t not in (FactType.BOOL, FactType.ENUM):
            continue
        spec = pack.facts.get(name)
        fv = case.facts.get(name)
        given = name in answers or (fv is not None and fv.value is not None)
        if name in interpreted and not given:  # an interpretation, discounted by its rule's reliability
            d = interpreted[name]
            add_bool(name, prior=d.reliability if d.value else 1.0 - d.reliability)
            continue
        if (
            fv is not None
            and fv.value is not None
            and name not in answers
            and any(r.value != fv.value for r in fv.alternatives)
        ):
            if _add_ambiguity(pack, name, fv, variables, lines, asks):
                continue
        if info.known:
            uncertain = (
                spec is not None
                and name not in answers
                and fv is not None
                and (fv.confidence < 1.0 or fv.alternatives)
                and t is FactType.BOOL
            )
            if not uncertain:
                fact = _asp_fact(pack, name, info.value)
                if fact:
                    lines.append(fact)
                continue
            readings = [fv, *fv.alternatives]
            claimant = next((r for r in readings if r.world.value == "NARRATIVE_A"), None)
            defence = next((r for r in readings if r.world.value == "NARRATIVE_B"), None)
            p_true = sum(r.confidence for r in readings if r.value is True)
            p_false = sum(r.confidence for r in readings if r.value is False)
            prior = p_true / (p_true + p_false) if p_true + p_false > 0 else 0.5
            tagged = claimant or defence
            world = WorldTag(tagged.world.value) if tagged else WorldTag.SHARED
            add_bool(name, prior=prior, world=world, asserted=bool(tagged.value) if tagged else True)
            continue
        if t is FactType.ENUM and spec is not None:
            opts = spec.values or []
            variables.append(
                CategoricalVar(
                    name=name,
                    options=[Option(atom=f"{name}({v})", prob=1 / len(opts), value=v) for v in opts],
                    cost=spec.cost,
                    question=spec.question or "",
                )
            )
            asks[name] = name
            continue
        if spec is not None:  # an unknown yes/no fact
            add_bool(name, prior=_prior_of(pack, name, values, priors))
            continue
        # an unknown or open computed yes/no value
        roots = info.missing
        bool_roots = [r for r in roots if pack.value_type(r) is FactType.BOOL]
        if (
            info.status is ValueStatus.UNKNOWN
            and roots
            and len(bool_roots) == len(roots)
            and len(roots) <= MAX_COMPILED_ROOTS
        ):
            open_combos = []
            for combo in itertools.product([True, False], repeat=len(roots)):
                key = tuple(sorted(zip(roots, combo)))
                if key not in completions:
                    completions[key] = gather_values(pack, case, {**answers, **dict(key)}, dynamic)
                trial = completions[key]
                result = trial[name]
                body = ", ".join(r if v else f"not {r}" for r, v in zip(roots, combo))
                if result.known and result.value:
                    lines.append(f"{name} :- {body}.")
                elif not result.known:
                    open_combos.append(body)
            if open_combos:
                aux = f"{name}__open"
                add_bool(aux, prior=0.5)
                for body in open_combos:
                    lines.append(f"{name} :- {body}, {aux}.")
            continue
        first = next((r for r in roots if r in pack.facts), None)
        add_bool(name, prior=_prior_of(pack, name, values, priors), ask=first)
    program = ProbProgram(
        program="\n".join(lines),
        variables=variables,
        target=pack.manifest.target,
        queries=[
            c.outcome
            for c in pack.manifest.checks
            if c.outcome != pack.manifest.target
            and (pack.manifest.remedy is None or c.outcome != pack.manifest.remedy.outcome)
        ],
        soft_rules=list(weights.soft_rules) if weights else [],
    )
    return program, asks


def _add_ambiguity(
    pack: RulePack, name: str, fv: Any, variables: list[Any], lines: list[str], asks: dict[str, str]
) -> bool:
    """Two readings of one fact, claimed by the two narratives: one variable per narrative.

    `name__A` (world NARRATIVE_A) and `name__B` (world NARRATIVE_B), exactly one true (two integrity
    constraints). With independent priors pa, pb = 1 - pa and the mask, P(A's reading) =
    pa(1-pb) / (pa(1-pb) + (1-pa)pb) = pa² / (pa² + (1-pa)²); pa = √q / (√q + √(1-q)) makes it q, the
    readings' relative confidence. Each narrative is then exactly "its reading holds".
    """
    readings = [fv, *fv.alternatives]
    a = next((r for r in readings if r.world.value == "NARRATIVE_A"), None)
    b = next((r for r in readings if r.world.value == "NARRATIVE_B"), None)
    t = pack.value_type(name)
    if a is None or b is None or len(readings) != 2 or t not in (FactType.BOOL, FactType.ENUM):
        return False
    q = a.confidence / (a.confidence + b.confidence) if a.confidence + b.confidence > 0 else 0.5
    pa = q**0.5 / (q**0.5 + (1 - q) ** 0.5)
    spec = pack.facts[name]
    for tag, reading, prior in (("A", a, pa), ("B", b, 1 - pa)):
        var = f"{name}__{tag}"
        variables.append(
            BoolVar(
                name=var,
                atom=var,
                prior=prior,
                world=WorldTag(f"NARRATIVE_{tag}"),
                asserted=True,
                cost=spec.cost,
                question=spec.question or "",
            )
        )
        asks[var] = name
        head = _asp_fact(pack, name, reading.value)
        if head:
            lines.append(f"{head[:-1]} :- {var}.")
    lines.append(f":- {name}__A, {name}__B.")
    lines.append(f":- not {name}__A, not {name}__B.")
    return True


def decide(
    pack: RulePack,
    program: CompiledProgram,
    case: CaseFile,
    answers: dict[str, Any] | None = None,
    whatif: dict[str, Any] | None = None,
    entropy_threshold: float = 0.3,
    dynamic: list[Any] | None = None,
) -> CaseVerdict:
    """Symbolic analysis, then the probabilistic verdict over what is still uncertain."""
    analysis = analyse(pack, program, case, answers, dynamic)
    prob_program, asks = build_program(pack, case, answers, dynamic, values=analysis.values)
    unknown_whatif = sorted(
        set(whatif or {})
        - {v.name for v in prob_program.variables}
        - {f"{r.id}.{k}" for r in prob_program.soft_rules for k in ("I1", "W1", "R1", "I2", "W2", "R2")}
    )
    if unknown_whatif:
        raise ValueError(
            f"--whatif: {', '.join(unknown_whatif)} is neither an uncertain fact of this case "
            f"({', '.join(v.name for v in prob_program.variables) or 'none'}) nor a soft-rule "
            "magnitude (<rule>.I1|W1|R1|I2|W2|R2)"
        )
    verdict = prob_analyse(prob_program, whatif=whatif or {}, entropy_threshold=entropy_threshold)
    questions: list[dict[str, Any]] = []
    seen: set[str] = set()
    for q in verdict.questions:
        fact = asks.get(q.variable)
        if fact is None or fact in seen or q.eig <= 1e-12:
            continue
        seen.add(fact)
        spec = pack.facts[fact]
        questions.append(
            {
                "fact": fact,
                "question": spec.question,
                "eig": round(q.eig, 6),
                "cost": spec.cost,
                "utility": round(q.eig / spec.cost, 6),
                "variable": q.variable,
            }
        )
    questions.sort(key=lambda q: -q["utility"])
    status = verdict.status
    if status == "NEEDS_INFORMATION" and not questions:
        status = "VERDICT"  # what remains uncertain is the judge's appreciation: asking cannot settle it
    return CaseVerdict(analysis=analysis, probability=verdict, status=status, questions=questions, variables=asks)

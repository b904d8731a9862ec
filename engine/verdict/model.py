"""The one typed verdict of a case.

Why one model: the CLI JSON (`lexlogic analyze --format json`), the orchestrator's persisted state and the
HTTP response are three serialisations of the same object, so a quantity has one name everywhere
(``probability.p_target`` is P(target), whatever the pack calls its target) and one status enum.
`lexlogic schema verdict` prints its JSON Schema; the OpenAPI document embeds it.
"""

from __future__ import annotations

from enum import Enum
from typing import Any, Literal

from pydantic import BaseModel, Field

from lexlogic.engine.prob.model import CollapsedNarrative, InferencePlan
from lexlogic.engine.symbolic.analysis import CheckResult, Outcome
from lexlogic.engine.symbolic.values import ValueStatus
from lexlogic.engine.verdict.epistemic import Epistemic, Knowledge
from lexlogic.engine.verdict.wording import MissingFact, Reason
from lexlogic.logic.facts import World
from lexlogic.logic.grounding import Grounding
from lexlogic.logic.model_defaults import new_list
from lexlogic.logic.proof import ProofNode

AlexyLevel = Literal["l", "m", "s", "r", "p", "e"]
Magnitude = float | AlexyLevel


class VerdictStatus(str, Enum):
    """Where the case stands: decided, waiting for the answer to a question, or contradictory input."""

    VERDICT = "verdict"
    NEEDS_INFORMATION = "needs_information"
    INCONSISTENT = "inconsistent"


class VerdictLabel(str, Enum):
    """The symbolic (three-valued) verdict over every reading of the case."""

    LIABLE = "LIABLE"
    NOT_LIABLE = "NOT_LIABLE"
    UNDETERMINED = "UNDETERMINED"
    INCONSISTENT = "INCONSISTENT"


class ValueOut(BaseModel):
    """A fact or computed value as the analysis used it."""

    status: ValueStatus
    value: Any = None
    missing: list[str] = Field(default_factory=new_list, description="unknown facts it waits for")


class Distribution(BaseModel):
    """A number of the pack (an output of its weights.yaml) as a distribution over the worlds."""

    name: str = Field(examples=["some_output"], description="the pack's output")
    mean: float | None = None
    p10: float | None = None
    p50: float | None = None
    p90: float | None = None
    unit: str = ""
    condition: str | None = Field(default=None, description="e.g. 'given <target>'; None = unconditional")
    given_target: bool = Field(default=False, description="conditioned on the target holding")
    probability: float | None = Field(default=None, description="probability of the condition")
    label: str | None = Field(default=None, description="what the number is, from the pack (its output's label)")
    method: str | None = Field(
        default=None,
        exclude_if=lambda v: v is None,
        description="how a what-if's numbers were estimated when not from the case's own draws at its priors: the "
        "case's draws re-weighted to the what-if's priors (with their effective sample size), or drawn afresh "
        "(and why); absent: the case's own seeded draws from its priors",
    )


class Probability(BaseModel):
    """The probabilistic layer: uncertain root facts as random variables, the rules as masks."""

    p_target: float | None = Field(default=None, ge=0, le=1, description="P(target outcome)")
    p_target_by_narrative: dict[str, float | None] = Field(
        default_factory=dict, description="P(target | narrative); null when the narrative collapsed"
    )
    p_narrative: dict[str, float] = Field(default_factory=dict, description="P(narrative | evidence)")
    p_outcomes: dict[str, float] = Field(default_factory=dict, description="P(outcome) of the pack's other outcomes")
    entropy: float | None = Field(default=None, description="Shannon entropy of P(target), bits")
    entropy_threshold: float | None = None
    method: str = Field(default="symbolic", description="exact | monte_carlo | pyro | … (with error)")
    error: float | None = Field(default=None, description="standard error of p_target (0 when exact)")
    n_worlds: int | None = Field(default=None, description="worlds enumerated or sampled")
    plan: InferencePlan | None = Field(
        default=None,
        description="the route (contraction, enumeration, sampling) chosen from the circuit's cost estimate before "
        "anything expensive ran, with that estimate and, when sampled, the draws and the standard error aimed at",
    )
    interval: tuple[float, float] | None = Field(
        default=None, description="95 % interval of p_target when it is sampled (p ± 1.96 standard errors)"
    )
    method_text: str | None = Field(
        default=None,
        description="how P was computed, in French: « (calcul exact, … mondes) » or « estimée par échantillonnage "
        "(± x point à 95 %, … tirages) »",
    )
    evaluator: str | None = None
    p_evidence: float | None = None
    collapsed: list[CollapsedNarrative] = Field(default_factory=new_list, description="narratives below ε")
    soft_factors: dict[str, float] = Field(default_factory=dict, description="soft rule → its likelihood factor")
    whatif: dict[str, Any] = Field(default_factory=dict)
    unweighed: list[str] = Field(
        default_factory=new_list,
        description="facts the target depends on that the model has nothing to weigh with (no law, no prior): "
        "while any remains, no percentage is printed, these are named instead",
    )
    distributions: list[Distribution] = Field(
        default_factory=new_list,
        description="the pack's outputs as the faces show them: an output declared given the target, conditioned on it",
    )
    unconditional: list[Distribution] = Field(
        default_factory=new_list,
        description="those outputs over all worlds, 0 where the target does not hold (law of total probability)",
    )


class Question(BaseModel):
    """A question worth asking: the fact it settles, its expected information gain per cost."""

    fact: str = Field(examples=["some_fact"])
    question: str | None = None
    type: str | None = Field(default=None, description="the fact's type in the pack (bool, enum, months…)")
    options: list[Any] = Field(default_factory=new_list, description="the values an answer may take")
    choices: list[Any] = Field(
        default_factory=new_list, description="every value an answer may take (all enum values, disputed ones first)"
    )
    choice_labels: list[str] = Field(default_factory=new_list, description="each choice as a lawyer reads it")
    cost: float = 1.0
    eig: float | None = Field(default=None, description="expected information gain on P(target), bits")
    utility: float | None = Field(default=None, description="EIG / cost")
    variable: str | None = Field(default=None, description="the model variable the answer settles")


class WorldVerdict(BaseModel):
    """One narrative: its weight, P(target) within it and its symbolic verdict."""

    world: World
    weight: float = Field(ge=0, le=1, description="P(narrative | evidence)")
    p_target: float | None = Field(default=None, ge=0, le=1, description="P(target | narrative)")
    label: VerdictLabel
    summary: str


class Slider(BaseModel):
    """One what-if knob: ``group`` says which body field of POST …/what-if takes ``name``."""

    name: str = Field(examples=["some_fact"])
    group: Literal["priors", "weights"]
    kind: Literal["ambiguity", "prior", "alexy"]
    label: str
    fact: str | None = None
    world: World = World.SHARED
    value: float = Field(description="current value (an override if one is given)")
    default: float = Field(description="value without override")
    min: float
    max: float
    scale: Literal["linear", "log2"] = "linear"
    readings: list[dict[str, Any]] = Field(default_factory=new_list, description="ambiguity: value, world, confidence")


class Confirmable(BaseModel):
    """What the page needs to confirm or correct a machine reading through POST …/answers."""

    value: Any = Field(description="the value read, as an answer takes it (confirm posts it)")
    type: str = Field(description="the fact's type in the pack (bool, enum, date, months, amount…)")
    choices: list[Any] = Field(default_factory=new_list, description="bool/enum: every value a correction may take")
    choice_labels: list[str] = Field(default_factory=new_list, description="each choice as a lawyer reads it")


class FactRow(BaseModel):
    """One row of the facts table: the fact as a lawyer reads it (the same words in the report and the page)."""

    fact: str
    label: str
    value: str = Field(description="formatted (French) value, « inconnu » when unknown")
    status: str = Field(description="donné, réponse donnée, lu dans … (à confirmer), présumé, inconnu, allégué…")
    knowledge: Epistemic | None = Field(default=None, description="how the reading is known")
    confidence: float | None = Field(default=None, description="a machine reading's confidence")
    confirm: Confirmable | None = Field(default=None, description="a machine reading: how to confirm or correct it")
    by: str | None = Field(default=None, description="who alleges it (demanderesse / défense), when contested")
    passages: list[Grounding] = Field(
        default_factory=new_list, description="the document spans that ground it (the page opens the document there)"
    )


class Verdict(BaseModel):
    """Symbolic analysis + probabilistic verdict + the questions worth asking, for one case."""

    case_id: str
    pack: str
    status: VerdictStatus
    label: VerdictLabel = Field(description="symbolic verdict (UNDETERMINED while the readings disagree)")
    summary: str
    headline: str = Field(default="", description="the verdict in one sentence, from the pack's templates")
    status_text: str = Field(default="", description="the status in words (Verdict, Information nécessaire…)")
    target_label: str = Field(default="", description="what P(target) is called, from the pack")
    tone: str = Field(
        default="neutral",
        description="the verdict's colour in the pack's polarity: red / green / blue / neutral, open while undecided",
    )
    reasons: list[Reason] = Field(default_factory=new_list, description="the decisive steps, in words, in order")
    missing: list[MissingFact] = Field(default_factory=new_list, description="facts whose absence leaves it open")
    outcome_states: dict[str, str] = Field(
        default_factory=dict,
        description="outcome → établi / non établi / retenu (écarté) sur lecture (à confirmer) / indéterminé / "
        "à apprécier par le juge",
    )
    knowledge: dict[str, Knowledge] = Field(
        default_factory=dict, description="fact or computed value → how it is known (epistemic status)"
    )
    set_aside_rules: list[str] = Field(
        default_factory=new_list,
        description="dated rules not applied: the case's relevant date is outside their period",
    )
    outcome_knowledge: dict[str, Knowledge] = Field(
        default_factory=dict,
        description="outcome → how it is known: on_record (« établi ») only on given/answered facts",
    )
    facts: list[FactRow] = Field(default_factory=new_list, description="the facts table (pack facts, in pack order)")
    remedy_text: str | None = Field(default=None, description="the remedy in words (e.g. damages range)")
    applicable_law: str | None = None
    target: str = Field(description="the pack's main outcome")
    outcomes: dict[str, Outcome] = Field(default_factory=dict, description="outcome → yes/no/unknown with proof")
    checks: list[CheckResult] = Field(default_factory=new_list, description="the pack's checks, defeaters first")
    decisive_check: str | None = None
    proof: ProofNode | None = Field(default=None, description="proof tree of the target when it holds")
    why_not: ProofNode | None = Field(default=None, description="why the target does not (yet) hold")
    values: dict[str, ValueOut] = Field(default_factory=dict)
    missing_facts: list[str] = Field(default_factory=new_list)
    remedy: str | None = Field(default=None, description="the outcome holding the remedy (pack's `remedy`)")
    remedy_range: list[float] | None = Field(default=None, description="the remedy's range, e.g. damages in euros")
    probability: Probability = Field(default_factory=Probability)
    questions: list[Question] = Field(default_factory=new_list, description="ranked by EIG / cost")
    best_question: Question | None = Field(default=None, description="the question to ask now, if any")
    main_world: World = World.SHARED
    worlds: list[WorldVerdict] = Field(default_factory=new_list)
    answers: dict[str, Any] = Field(default_factory=dict)
    priors: dict[str, float] = Field(default_factory=dict)
    weights: dict[str, Magnitude] = Field(default_factory=dict)
    sliders: list[Slider] = Field(default_factory=new_list, description="what the what-if endpoint accepts")
    note: str | None = None

    @property
    def decided(self) -> bool:
        return self.status is VerdictStatus.VERDICT

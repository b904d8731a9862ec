"""Boundary models of the probabilistic layer: the program in, the verdict out."""

from __future__ import annotations

import hashlib
import json
from typing import Literal

from pydantic import BaseModel, Field, field_validator, model_validator

from lexlogic.logic.facts import World
from lexlogic.logic.model_defaults import new_list
from lexlogic.logic.weights import Beta, SoftRule


class BoolVar(BaseModel):
    """An uncertain yes/no fact: ``atom`` holds in a world with probability ``prior``.

    ``asserted`` is the value the variable's narrative claims (used only when ``world`` is a
    narrative): narrative X = every X-tagged variable at its asserted value.
    """

    kind: Literal["bool"] = "bool"
    name: str
    atom: str
    prior: float | Beta = 0.5
    world: World = World.SHARED
    cost: float = Field(default=1.0, gt=0)
    question: str = ""
    asserted: bool = True

    @field_validator("prior")
    @classmethod
    def _prob(cls, v: float | Beta) -> float | Beta:
        if isinstance(v, float) and not 0.0 <= v <= 1.0:
            raise ValueError(f"prior {v} not in [0, 1]")
        return v

    @property
    def p(self) -> float:
        """The probability of the atom: a Beta prior on a single Bernoulli integrates to its mean."""
        return self.prior.mean if isinstance(self.prior, Beta) else float(self.prior)


class Option(BaseModel):
    atom: str
    prob: float = Field(ge=0.0, le=1.0)
    value: str | None = Field(default=None, description="what an answer may say, e.g. '3' for notice_months(3)")


class CategoricalVar(BaseModel):
    """An uncertain quantity with finitely many values, exactly one option atom holds per world."""

    kind: Literal["categorical"] = "categorical"
    name: str
    options: list[Option]
    world: World = World.SHARED
    cost: float = Field(default=1.0, gt=0)
    question: str = ""
    asserted: str | None = Field(default=None, description="option atom (or value) the narrative claims")

    @field_validator("options", mode="before")
    @classmethod
    def _pairs(cls, v: object) -> object:
        if isinstance(v, list):
            return [Option(atom=o[0], prob=o[1]) if isinstance(o, (tuple, list)) else o for o in v]
        return v

    @model_validator(mode="after")
    def _check(self) -> CategoricalVar:
        if len(self.options) < 1:
            raise ValueError(f"{self.name}: a categorical needs at least one option")
        s = sum(o.prob for o in self.options)
        if abs(s - 1.0) > 1e-6:
            raise ValueError(f"{self.name}: option probabilities sum to {s}, not 1")
        atoms = [o.atom for o in self.options]
        if len(set(atoms)) != len(atoms):
            raise ValueError(f"{self.name}: duplicate option atoms")
        return self

    def index_of(self, value: str) -> int:
        """Option index from an atom or a value label ('notice_months(3)' or '3')."""
        v = str(value).strip()
        for i, o in enumerate(self.options):
            if v == o.atom or (o.value is not None and v == o.value):
                return i
        for i, o in enumerate(self.options):  # 'notice_months(3)' answered as '3'
            if o.atom.endswith(f"({v})"):
                return i
        raise ValueError(f"{self.name}: {value!r} is not one of {[o.value or o.atom for o in self.options]}")


Variable = BoolVar | CategoricalVar


class ProbProgram(BaseModel):
    """An ASP program (clingo syntax) plus the uncertain facts, the query atoms and soft rules."""

    program: str
    variables: list[Variable] = Field(default_factory=new_list)
    target: str = Field(description="the atom whose probability is the verdict (the pack's target)")
    queries: list[str] = Field(default_factory=new_list)
    soft_rules: list[SoftRule] = Field(default_factory=new_list)
    exclusive: list[list[str]] = Field(
        default_factory=new_list,
        description="groups of derived atoms of which exactly one holds in every world (a computed value's "
        "classes): exact inference contracts each group as one categorical node, not as independent atoms",
    )

    @model_validator(mode="after")
    def _unique(self) -> ProbProgram:
        names = [v.name for v in self.variables]
        dup = {n for n in names if names.count(n) > 1}
        if dup:
            raise ValueError(f"duplicate variable names: {sorted(dup)}")
        return self

    def var(self, name: str) -> Variable:
        for v in self.variables:
            if v.name == name:
                return v
        raise KeyError(name)

    def structure_key(self) -> str:
        """What the symbolic evaluation depends on: program, variable atoms, observed atoms.

        Priors, costs, questions and soft-rule magnitudes are NOT part of it, so answers and
        what-ifs reuse the cached world table.
        """
        struct: dict[str, object] = {
            "program": self.program,
            "vars": [
                ["bool", v.atom] if isinstance(v, BoolVar) else ["cat", *(o.atom for o in v.options)]
                for v in self.variables
            ],
            "observed": self.observed_atoms(),
        }
        if self.exclusive:
            struct["exclusive"] = self.exclusive
        return hashlib.sha256(json.dumps(struct, sort_keys=True).encode()).hexdigest()

    def observed_atoms(self) -> list[str]:
        """Target, extra queries and soft-rule conditions, deduplicated in that order."""
        out: list[str] = []
        for a in [self.target, *self.queries, *(r.condition_atom for r in self.soft_rules)]:
            if a not in out:
                out.append(a)
        return out


Method = Literal["exact", "importance_sampling", "monte_carlo"]
Route = Literal["contraction", "enumeration", "sampling", "pyro"]


class InferencePlan(BaseModel):
    """How a verdict's probabilities were computed, decided from a cost estimate BEFORE anything expensive
    ran (``engine.prob.inference_plan``): the route, why, and the estimate it was decided on."""

    route: Route
    reason: str = Field(description="why this route (the estimate against the limit)")
    largest_intermediate: float | None = Field(
        default=None, description="entries of the contraction's largest intermediate tensor (its plan's estimate)"
    )
    flops: float | None = Field(default=None, description="operations of one contraction pass (its plan's estimate)")
    worlds: int = Field(description="worlds an enumeration would visit (the uncertain facts' product)")
    samples: int | None = Field(default=None, description="draws made (sampling)")
    pilot: int | None = Field(default=None, description="draws of the pilot run that chose the sample count")
    target_se: float | None = Field(default=None, description="standard error the sample count was chosen for")


Status = Literal["VERDICT", "NEEDS_INFORMATION"]


class ScoredQuestion(BaseModel):
    variable: str
    question: str
    eig: float = Field(description="expected information gain on the verdict, bits")
    cost: float
    utility: float = Field(description="eig / cost")
    options: list[str] = Field(default_factory=new_list)
    p_values: dict[str, float] = Field(default_factory=dict, description="posterior predictive of the answer")


class CollapsedNarrative(BaseModel):
    narrative: World
    probability: float = Field(description="posterior probability of the narrative that triggered the collapse")
    epsilon: float


class NumberSummary(BaseModel):
    """A number as a distribution over the worlds (weighted samples): mean and deciles, with the
    method and the standard error of the mean."""

    mean: float
    p10: float
    p50: float
    p90: float
    unit: str = ""
    condition: str | None = Field(default=None, description="e.g. 'given liability'; None = unconditional")
    method: str = Field(default="monte_carlo", description="how the draws were made")
    se: float = Field(default=0.0, description="standard error of the mean")
    n_samples: int = 0
    probability: float = Field(default=1.0, description="probability of the condition (1 when unconditional)")


class ProbVerdict(BaseModel):
    """What ``lexlogic analyze --format json`` prints (see engine.prob's docstring)."""

    status: Status
    target: str
    p_target: float
    p_target_by_narrative: dict[str, float | None] = Field(default_factory=dict)
    p_narrative: dict[str, float] = Field(default_factory=dict)
    p_queries: dict[str, float] = Field(default_factory=dict)
    p_variables: dict[str, dict[str, float]] = Field(
        default_factory=dict, description="posterior of every uncertain variable: value label → probability"
    )
    entropy: float = Field(description="Shannon entropy of the verdict, bits")
    entropy_threshold: float
    method: Method
    error: float = Field(description="standard error of p_target (0 for exact)")
    n_worlds: int = Field(description="worlds enumerated (exact) or sampled")
    effective_sample_size: float | None = None
    p_evidence: float = Field(description="prior mass of worlds consistent with the rules and answers")
    questions: list[ScoredQuestion] = Field(default_factory=new_list)
    best_question: ScoredQuestion | None = None
    collapsed: list[CollapsedNarrative] = Field(default_factory=new_list)
    answers: dict[str, str] = Field(default_factory=dict)
    whatif: dict[str, str] = Field(default_factory=dict)
    evaluator: str = Field(description="vectorised (ground program, bit-parallel) or clingo (enumeration)")
    soft_factors: dict[str, float] = Field(default_factory=dict, description="q = E[s/(1+s)] per soft rule")
    effective_worlds: int = Field(
        default=0, description="worlds of the variables that matter (prior strictly between 0 and 1, in the cone)"
    )
    inference: str = Field(default="auto", description="what was asked: auto | exact | sampling | pyro")
    plan: InferencePlan | None = Field(default=None, description="the route chosen from the cost estimate, and why")
    interval: tuple[float, float] | None = Field(
        default=None, description="95 % interval of p_target when sampled (p ± 1.96 standard errors, within [0, 1])"
    )
    unmodelled: dict[str, list[str]] = Field(
        default_factory=dict, description="coins standing for numbers nobody gave and the pack has no law for"
    )
    outputs: dict[str, NumberSummary] = Field(
        default_factory=dict,
        description="the pack's outputs (weights.yaml), unconditional: an output given the target counts 0 where "
        "the target does not hold (law of total probability)",
    )
    outputs_given_target: dict[str, NumberSummary] = Field(
        default_factory=dict, description="the outputs declared given_target, conditioned on the target"
    )
    output_questions: list[ScoredQuestion] = Field(
        default_factory=new_list, description="EIG on the remedy output (bits, binned), once the target is settled"
    )
    output_questions_about: str | None = Field(default=None, description="the output those questions are about")

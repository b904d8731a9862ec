"""A rule pack's ``weights.yaml``: Alexy soft rules and expert priors, as data (pure pydantic + yaml).

Why here: the weights are pack DATA edited by legal engineers, like the ``.lp`` files; the probabilistic
engine (``engine/prob``) turns them into factors. Nothing here knows about clingo or Pyro.

Format (every key but ``soft_rules[].id/condition`` optional)::

    priors:                      # expert priors of uncertain facts (override extraction confidence)
      notice_written: 0.4        # a probability
      exclusivity: {beta: [2, 5]}  # or a Beta(a, b) prior on that probability
    soft_rules:
      - id: dependance_vs_liberte
        label: "Protection du partenaire dépendant contre liberté du commerce"
        condition: brutal        # the ASP atom the balancing argues FOR (claimant's side)
        claimant: {principle: "protection du partenaire", intensity: s, weight: m, reliability: r}
        defence:  {principle: "liberté du commerce", intensity: {scale: {l: 0.5, m: 0.5}}, weight: m,
                   reliability: {beta: [8, 2]}}

A magnitude (intensity I, abstract weight W, reliability R) is one of: a number (fixed); an Alexy level
(``l``/``m``/``s`` = light/moderate/serious = 1/2/4, ``r``/``p``/``e`` = reliable/plausible/not
evidently false = 1, 1/2, 1/4); ``{beta: [a, b]}`` (a value in (0, 1)); ``{scale: {level_or_number: prob}}``
or ``{values: [...], probs: [...]}`` (a discrete distribution). Score = (I1·W1·R1)/(I2·W2·R2).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, ValidationError, field_validator, model_validator

from lexlogic.logic import yaml_load
from lexlogic.logic.deferred import DeferredModel
from lexlogic.logic.errors import LexlogicError
from lexlogic.logic.model_defaults import new_list

#: Alexy's triadic scale (geometric: 2^0, 2^1, 2^2) and his epistemic reliability scale.
ALEXY_LEVELS: dict[str, float] = {
    "l": 1.0,
    "light": 1.0,
    "m": 2.0,
    "moderate": 2.0,
    "s": 4.0,
    "serious": 4.0,
    "r": 1.0,
    "reliable": 1.0,
    "p": 0.5,
    "plausible": 0.5,
    "e": 0.25,
    "not_evidently_false": 0.25,
}


def _level(v: Any) -> float:
    if isinstance(v, bool):
        raise ValueError(f"not a magnitude: {v!r}")
    if isinstance(v, (int, float)):
        return float(v)
    s = str(v).strip().lower()
    if s in ALEXY_LEVELS:
        return ALEXY_LEVELS[s]
    try:
        return float(s)
    except ValueError:
        raise ValueError(f"unknown magnitude {v!r} (a number or one of {sorted(set(ALEXY_LEVELS))})") from None


class Fixed(BaseModel):
    """A known magnitude."""

    kind: Literal["fixed"] = "fixed"
    value: float = Field(gt=0)


class Beta(BaseModel):
    """Beta(a, b): an uncertain magnitude (or probability) in (0, 1)."""

    kind: Literal["beta"] = "beta"
    a: float = Field(gt=0)
    b: float = Field(gt=0)

    @property
    def mean(self) -> float:
        return self.a / (self.a + self.b)


class Scale(BaseModel):
    """A discrete distribution over magnitudes (e.g. Alexy's 1/2/4 with probabilities)."""

    kind: Literal["scale"] = "scale"
    values: list[float]
    probs: list[float]

    @model_validator(mode="after")
    def _check(self) -> Scale:
        if not self.values or len(self.values) != len(self.probs):
            raise ValueError("scale needs as many probs as values (at least one)")
        if any(v <= 0 for v in self.values):
            raise ValueError("scale values must be > 0")
        if any(p < 0 for p in self.probs) or abs(sum(self.probs) - 1.0) > 1e-6:
            raise ValueError(f"scale probs must be >= 0 and sum to 1 (sum={sum(self.probs)})")
        return self


Magnitude = Annotated[Fixed | Beta | Scale, Field(discriminator="kind")]


def parse_magnitude(v: Any) -> Fixed | Beta | Scale:
    """YAML/CLI shorthand → a magnitude distribution (see module docstring)."""
    if isinstance(v, (Fixed, Beta, Scale)):
        return v
    if isinstance(v, dict):
        if "kind" in v:
            kinds: dict[str, type[Fixed | Beta | Scale]] = {"fixed": Fixed, "beta": Beta, "scale": Scale}
            return kinds[v["kind"]].model_validate(v)
        if "beta" in v:
            a, b = v["beta"]
            return Beta(a=a, b=b)
        if "scale" in v:
            items = list(v["scale"].items())
            return Scale(values=[_level(k) for k, _ in items], probs=[float(p) for _, p in items])
        if "values" in v:
            return Scale(values=[_level(x) for x in v["values"]], probs=[float(p) for p in v["probs"]])
        if "value" in v:
            return Fixed(value=_level(v["value"]))
        raise ValueError(f"unknown magnitude mapping {v!r} (beta | scale | values/probs | value)")
    if isinstance(v, str):
        s = v.strip().lower().replace(" ", "")
        if s.startswith("beta(") and s.endswith(")"):
            a, b = (float(x) for x in s[5:-1].split(","))
            return Beta(a=a, b=b)
        if s.startswith("scale(") and s.endswith(")"):  # scale(1:0.2,2:0.5,4:0.3)
            pairs = [p.split(":") for p in s[6:-1].split(",")]
            return Scale(values=[_level(k) for k, _ in pairs], probs=[float(p) for _, p in pairs])
    return Fixed(value=_level(v))


class Principle(BaseModel):
    """One side of a balancing: intensity of interference I, abstract weight W, reliability R."""

    principle: str = ""
    intensity: Magnitude = Field(default_factory=lambda: Fixed(value=1.0))
    weight: Magnitude = Field(default_factory=lambda: Fixed(value=1.0))
    reliability: Magnitude = Field(default_factory=lambda: Fixed(value=1.0))

    @field_validator("intensity", "weight", "reliability", mode="before")
    @classmethod
    def _shorthand(cls, v: Any) -> Any:
        return parse_magnitude(v)


class SoftRule(BaseModel):
    """An Alexy balancing that argues for ``condition_atom`` (claimant) against it (defence)."""

    id: str
    condition_atom: str = Field(alias="condition")
    principle_claimant: Principle = Field(alias="claimant", default_factory=Principle)
    principle_defence: Principle = Field(alias="defence", default_factory=Principle)
    label: str = ""

    model_config = {"populate_by_name": True}


# PriorSpec, NumberLaw, Output and WeightsFile are built on first use: a pack served from the pack cache carries
# its weights unpickled, never validated, and no model a run builds refers to these (issue 33, cold start).
class PriorSpec(DeferredModel):
    """An expert prior for an uncertain fact: a probability or a Beta on it."""

    value: float | Beta

    @field_validator("value", mode="before")
    @classmethod
    def _shorthand(cls, v: Any) -> Any:
        if isinstance(v, dict) and "beta" in v:
            a, b = v["beta"]
            return Beta(a=a, b=b)
        return v


class NumberLaw(DeferredModel):
    """The law of an uncertain number: a numeric fact nobody gave, or a latent of the pack (the judge's
    notice). ``normal`` (mu, sigma), ``uniform`` (low, high), ``discrete`` (values, probs), or
    ``lognormal_regression``: ln X = a + b·ln(covariate / divide) + Σ effects[f]·[f] + σ·ε, with
    (a, b, ln σ) drawn from a Gaussian posterior (``mean``, ``cov``) fitted offline (calibration/).
    ``min``/``max`` clip the draws; ``strata``: equal-probability cells when a yes/no value depends on
    the number (exact part of the model); ``at_least``: in worlds where ``at_least.when`` holds the draw
    is conditioned to exceed the value ``at_least.value`` (e.g. liable ⇒ the judge's notice exceeds the
    notice given)."""

    label: str = ""
    unit: str = ""
    dist: Literal["normal", "uniform", "discrete", "lognormal_regression"]
    mu: float | None = None
    sigma: float | None = None
    low: float | None = None
    high: float | None = None
    values: list[float] = Field(default_factory=new_list)
    probs: list[float] = Field(default_factory=new_list)
    covariate: str | None = None
    divide: float = 1.0
    mean: list[float] = Field(default_factory=new_list)
    cov: list[list[float]] = Field(default_factory=new_list)
    effects: dict[str, float] = Field(default_factory=dict)
    min: float | None = None
    max: float | None = None
    strata: int = Field(default=8, ge=2, le=64)
    at_least: dict[str, str] | None = None
    decides: str | None = Field(
        default=None,
        description="an appreciation yes/no fact that holds exactly when the number exceeds `at_least.value` "
        "(the judge finds the notice insufficient ⇔ the notice he deems reasonable exceeds the notice given): "
        "its probability is the law's, so one event has one probability",
    )
    calibration: str | None = None

    @model_validator(mode="after")
    def _check(self) -> NumberLaw:
        need = {
            "normal": ("mu", "sigma"),
            "uniform": ("low", "high"),
            "discrete": ("values", "probs"),
            "lognormal_regression": ("mean", "cov"),
        }[self.dist]
        missing = [k for k in need if getattr(self, k) in (None, [])]
        if missing:
            raise ValueError(f"{self.dist} needs {missing}")
        if self.dist == "discrete" and (len(self.values) != len(self.probs) or abs(sum(self.probs) - 1) > 1e-6):
            raise ValueError("discrete: as many probs as values, summing to 1")
        if self.dist == "lognormal_regression" and (len(self.mean) != 3 or len(self.cov) != 3):
            raise ValueError("lognormal_regression: mean and cov over (a, b, ln sigma)")
        if self.decides and not (self.at_least and self.at_least.get("value")):
            raise ValueError("decides: needs at_least.value (the value the number must exceed)")
        return self


class Output(DeferredModel):
    """A number reported as a distribution (JSON-Logic over the case's values and the laws' draws).
    ``given_target``: also reported conditional on the target (e.g. damages given liability), and as
    0 where the target does not hold for the unconditional reading."""

    label: str = ""
    unit: str = ""
    logic: Any
    given_target: bool = False


class WeightsFile(DeferredModel):
    priors: dict[str, float | Beta] = Field(default_factory=dict)
    soft_rules: list[SoftRule] = Field(default_factory=new_list)
    numbers: dict[str, NumberLaw] = Field(default_factory=dict)
    outputs: dict[str, Output] = Field(default_factory=dict)

    @field_validator("priors", mode="before")
    @classmethod
    def _priors(cls, v: Any) -> Any:
        return {k: PriorSpec(value=x).value for k, x in (v or {}).items()}

    @model_validator(mode="after")
    def _unique(self) -> WeightsFile:
        ids = [r.id for r in self.soft_rules]
        dup = {i for i in ids if ids.count(i) > 1}
        if dup:
            raise ValueError(f"duplicate soft rule ids: {sorted(dup)}")
        for p in self.priors.values():
            if isinstance(p, float) and not 0.0 <= p <= 1.0:
                raise ValueError(f"prior {p} not in [0, 1]")
        return self


class WeightsError(LexlogicError, ValueError):
    """A weights file that cannot be read; the message names the file and the place."""


def load_weights(path: str | Path) -> WeightsFile:
    """Read and validate a pack's weights.yaml (errors name file:line or the field path)."""
    import yaml  # for its errors: imported by yaml_load.safe_load anyway

    path = Path(path)
    try:
        data = yaml_load.safe_load(path.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark else str(path)
        raise WeightsError(f"{where}: invalid YAML: {getattr(exc, 'problem', exc)}") from exc
    except OSError as exc:
        raise WeightsError(f"{path}: cannot read: {exc}") from exc
    if not isinstance(data, dict):
        raise WeightsError(f"{path}: expected a mapping with 'priors' and/or 'soft_rules'")
    try:
        return WeightsFile.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = ".".join(str(x) for x in err["loc"])
        raise WeightsError(f"{path}: {loc}: {err['msg']}") from exc

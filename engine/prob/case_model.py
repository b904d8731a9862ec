"""A case as a probabilistic model over its ROOT facts (the discrete part as a ProbProgram).

Why this shape (ARCHITECTURE.md, "symbolic outcomes become masks"): the random variables are the
case's input facts that are unknown or uncertain — yes/no and enum facts with the pack's priors,
extraction confidences, dynamic interpretations, narrative readings. Everything DERIVED is a
deterministic function of those roots, evaluated world by world:

* a computed yes/no value (JSON-Logic) read by the ASP rules is evaluated on every completion of the
  roots it depends on (its *cone*, found through the variables its formula reads, defaults included)
  and compiled into ASP rules over those roots — so the notice range moves with
  ``a yes/no fact`` exactly as the computation says, and answering a root updates it;
* an appreciation fact whose prior is a computed value (the judge's call inside the notice range) is a
  conditional coin: ``P(judge | roots) = value(roots)``, one coin per distinct level, never a free 0.5;
* a value the computation leaves open although its roots are all known (the judge's zone, e.g. a
  relation of 18 months) is an appreciation coin used only where it is open;
* a value that depends on a number nobody gave and the pack gives no distribution for is reported as
  ``unmodelled`` (an explicit 0.5 coin, asked through that number), never hidden.
Roots with prior 0 or 1 (a what-if of 0/1 included) are not variables: they are given, exactly as an
answer, so ``--whatif X=1`` and ``--answer X=true`` build the same model.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from statistics import NormalDist
from typing import Any

from lexlogic.engine.prob.analyse import apply_whatif
from lexlogic.engine.prob.infer import cone_variables
from lexlogic.engine.prob.model import BoolVar, CategoricalVar, Option, ProbProgram, World
from lexlogic.engine.prob.soft import factor
from lexlogic.engine.values import ValueInfo, ValueStatus, computation_reads, gather_values, world_values
from lexlogic.logic.errors import LexlogicError
from lexlogic.logic.facts import CaseFile, read_answer
from lexlogic.logic.pack import FactType, RulePack
from lexlogic.logic.weights import Beta, NumberLaw, WeightsFile, load_weights

NOT_ASKABLE_COST = 1e6  # appreciation and open zones: they have an EIG but no one to ask
MAX_CONE = 12  # completions evaluated per computed value: 2^12 at most


class CaseModelError(LexlogicError, ValueError):
    """The case cannot be turned into a model (a cone too wide); the message names the value."""


@dataclass
class CaseModel:
    """The discrete model of a case, and for each variable the fact a question would ask about."""

    program: ProbProgram
    asks: dict[str, str]
    roots: dict[str, str] = field(default_factory=dict)  # variable → the root fact it stands for
    unmodelled: dict[str, list[str]] = field(default_factory=dict)  # coin → the unknown numbers behind it
    fixed: dict[str, Any] = field(default_factory=dict)  # roots given by a 0/1 what-if
    consumed: set[str] = field(default_factory=set)  # what-if keys applied while building
    folded: dict[str, float] = field(default_factory=dict)  # soft rule id → q, folded into a root's call
    values: dict[str, ValueInfo] = field(default_factory=dict)  # the case's values (answers, 0/1 what-ifs)
    domains: dict[str, list[Any]] = field(default_factory=dict)  # root fact → its values in the worlds
    completions: int = 0  # world evaluations of computed values (for the note and benchmarks)


_WEIGHTS: dict[tuple[str, float], WeightsFile] = {}


def weights_of(pack: RulePack) -> WeightsFile | None:
    """The pack's weights.yaml, read once per file version (mtime)."""
    if not pack.manifest.files.weights:
        return None
    path = pack.root / pack.manifest.files.weights
    key = (str(path), path.stat().st_mtime)
    if key not in _WEIGHTS:
        _WEIGHTS[key] = load_weights(path)
    return _WEIGHTS[key]


def _asp_fact(pack: RulePack, name: str, value: Any) -> str | None:
    t = pack.value_type(name)
    if t is FactType.BOOL:
        return f"{name}." if value else None
    if t is FactType.ENUM:
        return f"{name}({value})."
    return None


def _literal(pack: RulePack, name: str, value: Any) -> str:
    """The ASP body literal saying root ``name`` has ``value``."""
    if pack.value_type(name) is FactType.BOOL:
        return name if value else f"not {name}"
    return f"{name}({value})"


def cone(pack: RulePack, name: str, roots: set[str], memo: dict[str, set[str]]) -> set[str]:
    """The roots a value depends on, through every variable its formula reads (defaults included)."""
    if name in memo:
        return memo[name]
    if name in pack.facts:
        memo[name] = {name} & roots
        return memo[name]
    comp = pack.computation_for(name)
    memo[name] = set()
    if comp is None:
        return memo[name]
    out: set[str] = set()
    for dep in computation_reads(comp):
        out |= cone(pack, dep, roots, memo)
    memo[name] = out
    return out


def _bool_prior(x: Any) -> float | Beta:
    return x if isinstance(x, Beta) else float(x)


def build_case_model(
    pack: RulePack,
    case: CaseFile,
    answers: dict[str, Any] | None = None,
    dynamic: list[Any] | None = None,
    whatif: dict[str, Any] | None = None,
) -> CaseModel:
    """The case's discrete model. ``whatif``: root name → prior (0/1 makes it given)."""
    answers = dict(answers or {})
    whatif = dict(whatif or {})
    weights = weights_of(pack)
    priors: dict[str, Any] = dict(weights.priors) if weights else {}
    fixed: dict[str, Any] = {}
    consumed: set[str] = set()
    for name, value in whatif.items():
        if name in pack.facts and pack.facts[name].type is FactType.BOOL and name not in answers:
            p = _as_prob(value)
            if p is None or not 0.0 <= p <= 1.0:
                raise CaseModelError(f"--whatif {name}={value}: a yes/no fact takes a probability in [0, 1]")
            consumed.add(name)
            if p in (0.0, 1.0):
                fixed[name] = bool(p)  # a certain what-if is a given: the same model as the answer
            else:
                priors[name] = p
    answers.update(fixed)
    soft_rules = list(weights.soft_rules) if weights else []
    soft_keys = {k: v for k, v in whatif.items() if k.split(".")[0] in {r.id for r in soft_rules} and "." in k}
    if soft_keys:
        soft_rules = apply_whatif(
            ProbProgram(target=pack.manifest.target, program="", soft_rules=soft_rules), soft_keys
        ).soft_rules
        consumed |= set(soft_keys)
    interpreted = {
        d.name: d for d in (dynamic or []) if pack.value_type(d.name) is FactType.BOOL and isinstance(d.value, bool)
    }
    dynamic = [d for d in (dynamic or []) if d.name not in interpreted]
    values = gather_values(pack, case, answers, dynamic)
    lines = list(pack.asp_sources.values())
    variables: list[BoolVar | CategoricalVar] = []
    asks: dict[str, str] = {}
    roots_of: dict[str, str] = {}
    domains: dict[str, list[Any]] = {}  # root fact → its values in the worlds
    unmodelled: dict[str, list[str]] = {}

    def add_bool(
        name: str,
        *,
        prior: float | Beta,
        world: World = World.SHARED,
        asserted: bool = True,
        ask: str | None = None,
        root: str | None = None,
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
                question=(spec.question or "") if askable and spec else "",
            )
        )
        if askable:
            asks[name] = ask or name
        if root:
            roots_of[name] = root

    appreciation_coins: list[str] = []
    for name, spec in pack.facts.items():
        t = spec.type
        if t not in (FactType.BOOL, FactType.ENUM):
            continue
        info = values[name]
        fv = case.facts.get(name)
        given = name in answers or (fv is not None and fv.value is not None)
        if name in interpreted and not given:  # an interpretation, discounted by its rule's reliability
            d = interpreted[name]
            add_bool(name, prior=d.reliability if d.value else 1.0 - d.reliability, root=name)
            domains[name] = [True, False]
            continue
        if (
            fv is not None
            and fv.value is not None
            and name not in answers
            and any(r.value != fv.value for r in fv.alternatives)
        ):
            readings = _add_ambiguity(pack, name, fv, variables, lines, asks, roots_of)
            if readings is not None:
                domains[name] = readings
                continue
        if info.known:
            uncertain = (
                name not in answers
                and fv is not None
                and (fv.confidence < 1.0 or fv.alternatives)
                and t is FactType.BOOL
                and name not in whatif
            )
            if not uncertain:
                fact = _asp_fact(pack, name, info.value)
                if fact:
                    lines.append(fact)
                continue
            assert fv is not None  # uncertain implies a value in the case file
            readings_ = [fv, *fv.alternatives]
            claimant = next((r for r in readings_ if r.world.value == "NARRATIVE_A"), None)
            defence = next((r for r in readings_ if r.world.value == "NARRATIVE_B"), None)
            p_true = sum(r.confidence for r in readings_ if r.value is True)
            p_false = sum(r.confidence for r in readings_ if r.value is False)
            prior = p_true / (p_true + p_false) if p_true + p_false > 0 else 0.5
            if prior in (0.0, 1.0):
                fact = _asp_fact(pack, name, prior == 1.0)
                if fact:
                    lines.append(fact)
                continue
            tagged = claimant or defence
            world = World(tagged.world.value) if tagged else World.SHARED
            add_bool(name, prior=prior, world=world, asserted=bool(tagged.value) if tagged else True, root=name)
            domains[name] = [True, False]
            continue
        if t is FactType.ENUM:
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
            roots_of[name] = name
            domains[name] = list(opts)
            continue
        if spec.appreciation and isinstance(spec.prior, str) and name not in priors:
            appreciation_coins.append(name)  # its prior is a function of the other roots: below
            domains[name] = [True, False]
            continue
        prior_v: Any = priors.get(name, spec.prior if isinstance(spec.prior, (int, float)) else 0.5)
        add_bool(name, prior=_bool_prior(prior_v), root=name)
        domains[name] = [True, False]

    # Numbers nobody gave, with a law in weights.yaml: equal-probability strata (cell midpoints), so the
    # yes/no values computed from them are exact functions of a discrete root (volume drop ≥ 30 %…).
    strata: dict[str, list[tuple[Any, float, str]]] = {}
    for name, law in weights.numbers.items() if weights else []:
        if name not in pack.facts or name in answers or values[name].known or law.dist == "lognormal_regression":
            continue
        cells = number_strata(law)
        strata[name] = [(v, p, f"{name}__s{i}") for i, (v, p) in enumerate(cells)]
        domains[name] = [v for v, _ in cells]
    atom_of = {(name, v): atom for name, cells_ in strata.items() for v, _, atom in cells_}

    def literal(name: str, value: Any) -> str:
        return atom_of[(name, value)] if name in strata else _literal(pack, name, value)

    def ensure_number(name: str) -> None:
        if name in roots_of:
            return
        spec = pack.facts[name]
        variables.append(
            CategoricalVar(
                name=name,
                options=[Option(atom=a, prob=p, value=_fmt(v)) for v, p, a in strata[name]],
                cost=spec.cost,
                question=spec.question or "",
            )
        )
        asks[name] = name
        roots_of[name] = name

    root_set = set(domains)
    memo: dict[str, set[str]] = {}
    cache: dict[tuple[tuple[str, Any], ...], dict[str, ValueInfo]] = {}
    n_eval = 0
    coins: set[str] = set()

    def world_of(completion: tuple[tuple[str, Any], ...]) -> dict[str, ValueInfo]:
        nonlocal n_eval
        if completion not in cache:
            n_eval += 1
            cache[completion] = world_values(pack, values, dict(completion))
        return cache[completion]

    def completions(names: list[str]) -> list[tuple[tuple[str, Any], ...]]:
        if len(names) > MAX_CONE:
            raise CaseModelError(f"a computed value depends on {len(names)} uncertain facts ({names}); max {MAX_CONE}")
        return [tuple(zip(names, combo)) for combo in itertools.product(*(domains[n] for n in names))]

    for comp in pack.computations:
        if comp.type is not FactType.BOOL:
            continue
        name = comp.output
        roots = sorted(cone(pack, name, root_set, memo) - set(appreciation_coins))
        for r in roots:
            if r in strata:
                ensure_number(r)
        if not roots:
            info = values[name]
            if info.known:
                if info.value:
                    lines.append(f"{name}.")
            else:
                _open_coin(pack, name, info, "", lines, add_bool, unmodelled, coins)
            continue
        open_bodies: list[tuple[str, ValueInfo]] = []
        for c in completions(roots):
            res = world_of(c)[name]
            body = ", ".join(literal(r, v) for r, v in c)
            if res.known:
                if res.value:
                    lines.append(f"{name} :- {body}.")
            else:
                open_bodies.append((body, res))
        for body, res in open_bodies:
            _open_coin(pack, name, res, body, lines, add_bool, unmodelled, coins)

    for name in appreciation_coins:
        spec = pack.facts[name]
        assert isinstance(spec.prior, str)
        source = spec.prior
        roots = sorted(cone(pack, source, root_set, memo) - set(appreciation_coins))
        for r in roots:
            if r in strata:
                ensure_number(r)
        levels: dict[float, str] = {}
        for c in completions(roots) if roots else [()]:
            info = world_of(c)[source] if c else values[source]
            p = max(0.0, min(1.0, float(info.value) / 100.0)) if info.known else 0.5
            if not info.known:
                unmodelled.setdefault(f"{name}__p", info.missing)
            body = ", ".join(literal(r, v) for r, v in c)
            if p == 0.0:
                continue
            if p == 1.0:
                lines.append(f"{name} :- {body}." if body else f"{name}.")
                continue
            coin = levels.get(p)
            if coin is None:
                coin = f"{name}__p{len(levels)}" if roots else name
                levels[p] = coin
                add_bool(coin, prior=p)
            if coin != name:
                lines.append(f"{name} :- {body}, {coin}." if body else f"{name} :- {coin}.")
    # A balancing about a root's call (the judge's appreciation) bears on that call only: folded into its
    # conditional probability (odds × score), so it never reweights the facts the call depends on.
    folded: dict[str, float] = {}
    kept = []
    for rule in soft_rules:
        cond = rule.condition_atom
        if cond in pack.facts and pack.facts[cond].appreciation and cond in root_set | set(appreciation_coins):
            q = factor(rule)
            folded[rule.id] = q
            for k, v in enumerate(variables):
                if isinstance(v, BoolVar) and (v.name == cond or v.name.startswith(f"{cond}__p")):
                    p = v.p
                    variables[k] = v.model_copy(update={"prior": p * q / (p * q + (1 - p) * (1 - q))})
            continue
        kept.append(rule)
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
        soft_rules=kept,
    )
    if unmodelled:  # a coin no outcome can feel (its rules are dead given the case) is not worth a warning
        live = cone_variables(program)
        if live is not None:
            names = {v.name for v in variables}
            unmodelled = {k: v for k, v in unmodelled.items() if k not in names or k in live}
    return CaseModel(
        program=program,
        asks=asks,
        roots=roots_of,
        unmodelled=unmodelled,
        fixed=fixed,
        consumed=consumed,
        folded=folded,
        values=values,
        domains=domains,
        completions=n_eval,
    )


def _open_coin(
    pack: RulePack,
    name: str,
    info: ValueInfo,
    body: str,
    lines: list[str],
    add_bool: Any,
    unmodelled: dict[str, list[str]],
    coins: set[str],
) -> None:
    """A computed yes/no value undecided in a world: open (the judge's zone) or unmodelled (a number
    nobody gave). One coin per value, used only in the worlds where the value is undecided."""
    if info.status is ValueStatus.OPEN or not info.missing:
        coin = f"{name}__open"
        ask = None
    else:
        coin = f"{name}__unmodelled"
        ask = next((r for r in info.missing if r in pack.facts), None)
        unmodelled[coin] = list(info.missing)
    if coin not in coins:
        coins.add(coin)
        add_bool(coin, prior=0.5, ask=ask)
    lines.append(f"{name} :- {body}, {coin}." if body else f"{name} :- {coin}.")


def number_strata(law: NumberLaw) -> list[tuple[float, float]]:
    """(value, probability) cells of a law: its own values when discrete, else ``strata`` cells of equal
    probability represented by their median (quantile (i + ½)/K), clipped to [min, max]."""
    if law.dist == "discrete":
        return [(float(v), float(p)) for v, p in zip(law.values, law.probs)]
    k = law.strata
    us = [(i + 0.5) / k for i in range(k)]
    if law.dist == "uniform":
        assert law.low is not None and law.high is not None
        xs = [law.low + (law.high - law.low) * u for u in us]
    else:
        assert law.mu is not None and law.sigma is not None
        xs = [law.mu + law.sigma * NormalDist().inv_cdf(u) for u in us]
    lo = law.min if law.min is not None else -math.inf
    hi = law.max if law.max is not None else math.inf
    return [(round(min(max(x, lo), hi), 4), 1.0 / k) for x in xs]


def _fmt(v: float) -> str:
    return f"{v:g}"


def _as_prob(value: Any) -> float | None:
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, (int, float)):
        return float(value)
    s = str(value).strip().lower()
    read = read_answer(s)  # the one reader of typed answers
    if isinstance(read, bool):
        return 1.0 if read else 0.0
    try:
        return float(s)
    except ValueError:
        return None


def _add_ambiguity(
    pack: RulePack,
    name: str,
    fv: Any,
    variables: list[Any],
    lines: list[str],
    asks: dict[str, str],
    roots_of: dict[str, str],
) -> list[Any] | None:
    """Two readings of one fact, claimed by the two narratives: one variable per narrative.

    ``name__A`` (world NARRATIVE_A) and ``name__B`` (world NARRATIVE_B), exactly one true (two integrity
    constraints). With independent priors pa, pb = 1 - pa and the mask, P(A's reading) =
    pa(1-pb) / (pa(1-pb) + (1-pa)pb) = pa² / (pa² + (1-pa)²); pa = √q / (√q + √(1-q)) makes it q, the
    readings' relative confidence. Returns the readings' values (the root's domain in the worlds).
    """
    readings = [fv, *fv.alternatives]
    a = next((r for r in readings if r.world.value == "NARRATIVE_A"), None)
    b = next((r for r in readings if r.world.value == "NARRATIVE_B"), None)
    t = pack.value_type(name)
    if a is None or b is None or len(readings) != 2 or t not in (FactType.BOOL, FactType.ENUM):
        return None
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
                world=World[f"NARRATIVE_{tag}"],
                asserted=True,
                cost=spec.cost,
                question=spec.question or "",
            )
        )
        asks[var] = name
        roots_of[var] = name
        head = _asp_fact(pack, name, reading.value)
        if head:
            lines.append(f"{head[:-1]} :- {var}.")
    lines.append(f":- {name}__A, {name}__B.")
    lines.append(f":- not {name}__A, not {name}__B.")
    if t is FactType.BOOL:
        return [True, False]
    return list(dict.fromkeys([a.value, b.value]))

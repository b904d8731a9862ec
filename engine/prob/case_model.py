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
from collections import ChainMap
from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field, replace
from statistics import NormalDist
from typing import Any, NamedTuple

from lexlogic.engine.prob.analyse import apply_whatif
from lexlogic.engine.prob.infer import cone_variables
from lexlogic.engine.prob.law_tail import exceedance
from lexlogic.engine.prob.model import BoolVar, CategoricalVar, Option, ProbProgram, World
from lexlogic.engine.prob.soft import factor
from lexlogic.engine.prob.value_classes import ClassesTooMany, ValueClasses, class_key
from lexlogic.engine.prob.value_classes import ValueClassesUnsupported as ClassesUnsupported
from lexlogic.engine.symbolic.values import (
    ReadLog,
    ValueInfo,
    ValueStatus,
    computation_reads,
    evaluate_computation,
    gather_values,
    same_value,
    world_values,
)
from lexlogic.logic.errors import LexlogicError
from lexlogic.logic.facts import CaseFile, FactValue, read_answer
from lexlogic.logic.memos import Memos, own
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
    asserts: dict[str, Any] = field(default_factory=dict)  # narrative variable (x__A) → the value its reading says


def weights_of(pack: RulePack) -> WeightsFile | None:
    """The pack's weights: those read with the pack (``RulePack.weights``, kept in the pack cache: the pack owns
    them), else its weights.yaml read again — which raises the error saying why it did not read (the only way
    to get here with a weights file: ``logic.pack._weights`` keeps None when it does not read)."""
    if not pack.manifest.files.weights:
        return None
    if pack.weights is not None:
        return pack.weights
    return load_weights(pack.root / pack.manifest.files.weights)


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


def cone(pack: RulePack, name: str, roots: set[str], memo: dict[str, set[str]], memos: Memos | None = None) -> set[str]:
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
    for dep in computation_reads(comp, memos):
        out |= cone(pack, dep, roots, memo, memos)
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
    values: dict[str, ValueInfo] | None = None,
    memos: Memos | None = None,
) -> CaseModel:
    """The case's discrete model. ``whatif``: root name → prior (0/1 makes it given). ``values``: the case's
    values for these answers and dynamic interpretations when the caller has them (the symbolic analysis's):
    used unless a what-if or an interpretation changes what they are gathered from. ``memos``: the owner's
    memoised computations (none: this call's own)."""
    memos = own(memos)
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
    if values is None or fixed or interpreted:
        values = gather_values(pack, case, answers, dynamic, memos=memos)
    shape = None if dynamic or interpreted else (id(pack), repr(sorted(answers.items())), repr(sorted(whatif.items())))
    if shape is not None and (seen := _remembered(pack, case, values, shape, memos)) is not None:
        return seen
    case_values, values = values, ReadLog(values)  # what the model reads of the values, for the next case
    facts_read: dict[str, Any] = {}
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
    asserts: dict[str, Any] = {}
    for name, spec in pack.facts.items():
        t = spec.type
        if t not in (FactType.BOOL, FactType.ENUM):
            continue
        info = values[name]
        fv = facts_read[name] = case.facts.get(name)
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
            override = priors.get(name) if name in consumed else None  # a what-if on the fact itself
            readings = _add_ambiguity(pack, name, fv, variables, lines, asks, roots_of, override)
            if readings is not None:
                domains[name] = readings
                for reading in [fv, *fv.alternatives]:
                    asserts[f"{name}__{reading.world.value[-1]}"] = reading.value
                continue
        if info.known and name in consumed and name not in fixed and t is FactType.BOOL:  # what-if P(fact)
            add_bool(name, prior=_bool_prior(priors[name]), root=name)
            domains[name] = [True, False]
            continue
        if info.known:
            uncertain = (
                name not in answers
                and fv is not None
                and (fv.confidence < 1.0 or fv.alternatives)
                and not fv.as_given  # calibrated above the pack's as-given threshold: taken as given
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
            prior = reading_prior(readings_)
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
    coins: set[str] = set()
    appreciation = set(appreciation_coins)
    root_cells = {r: [(v, literal(r, v)) for v in domains[r]] for r in root_set - appreciation}
    classes: ValueClasses | None
    try:
        classes = ValueClasses(pack, values, root_cells, lines, memos)
    except ClassesUnsupported:
        classes = None  # parameters vary per world: evaluate whole completions (bounded by MAX_CONE)
    enumerated = _Enumerated(pack, values, domains, literal, memos)

    def sources(name: str) -> list[tuple[ValueInfo, str]]:
        """The value of ``name`` in each class of worlds (ASP body; "" = every world)."""
        roots = sorted(cone(pack, name, root_set, memo, memos) - appreciation)
        for r in roots:
            if r in strata:
                ensure_number(r)
        if not roots:
            return [(values[name], "")]
        if classes is not None:
            try:
                found = classes.of(name)
            except ClassesTooMany as exc:
                raise CaseModelError(str(exc)) from exc
            return [(info, atom or "") for info, atom in found if info is not None]
        return enumerated.pairs(name, roots)

    for comp in pack.computations:
        if comp.type is not FactType.BOOL:
            continue
        name = comp.output
        open_bodies: list[tuple[str, ValueInfo]] = []
        for res, body in sources(name):
            if res.known:
                if res.value:
                    lines.append(f"{name} :- {body}." if body else f"{name}.")
            else:
                open_bodies.append((body, res))
        for body, res in open_bodies:
            _open_coin(pack, name, res, body, lines, add_bool, unmodelled, coins)

    decided = {law.decides: law for law in (weights.numbers.values() if weights else []) if law.decides}
    for name in appreciation_coins:
        spec = pack.facts[name]
        assert isinstance(spec.prior, str)
        deciding = decided.get(name)
        call_cells: list[tuple[float, str]] = []
        if deciding is None:  # the pack's computed prior (a percentage), one value per class of worlds
            source = spec.prior
            conditional = bool(cone(pack, source, root_set, memo, memos) - appreciation)
            for info, body in sources(source):
                if not info.known:
                    unmodelled.setdefault(f"{name}__p", info.missing)
                call_cells.append((max(0.0, min(1.0, float(info.value) / 100.0)) if info.known else 0.5, body))
        else:  # the calibrated law decides the call: P(N > the value it must exceed), per completion of its inputs
            law_roots = sorted(
                set().union(*(cone(pack, x, root_set, memo, memos) for x in law_inputs(deciding))) - appreciation
            )
            conditional = bool(law_roots)
            for r in law_roots:
                if r in strata:
                    ensure_number(r)
            if classes is not None and law_roots:  # per class of the law's inputs (``law_cells``)
                try:
                    call_cells = law_cells(classes, name, deciding, values, unmodelled)
                except ClassesTooMany as exc:
                    raise CaseModelError(str(exc)) from exc
            else:  # no classes (computed dates): per completion of the law's roots, bounded
                if len(law_roots) > MAX_CONE:
                    raise CaseModelError(f"the call {name} depends on {len(law_roots)} uncertain facts; max {MAX_CONE}")
                call_cells = _law_completions(
                    pack, values, deciding, spec.prior, law_roots, domains, literal, unmodelled, name, memos
                )
        levels: dict[float, str] = {}
        for p_call, body in call_cells:
            if p_call == 0.0:
                continue
            if p_call == 1.0:
                lines.append(f"{name} :- {body}." if body else f"{name}.")
                continue
            coin = levels.get(p_call)
            if coin is None:
                coin = f"{name}__p{len(levels)}" if conditional else name
                levels[p_call] = coin
                add_bool(coin, prior=p_call)
            if coin != name:
                lines.append(f"{name} :- {body}, {coin}." if body else f"{name} :- {coin}.")
    n_eval = (classes.evaluations if classes is not None else 0) + enumerated.evaluations
    # A balancing about a root's call (the judge's appreciation) bears on that call only: folded into its
    # conditional probability (odds × score), so it never reweights the facts the call depends on.
    folded: dict[str, float] = {}
    kept = []
    for rule in soft_rules:
        cond = rule.condition_atom
        if cond in pack.facts and pack.facts[cond].appreciation and cond in root_set | set(appreciation_coins):
            q = factor(rule)
            if cond in decided:
                # the calibrated law already is the judges' usual balancing: only a what-if's departure from
                # the pack's magnitudes tilts the call (odds ratio), so by default one event has one probability
                q = _departure(q, factor(next(r for r in weights.soft_rules if r.id == rule.id)) if weights else q)
            folded[rule.id] = q
            for k, call in call_coins(cond, variables):
                variables[k] = call.model_copy(update={"prior": tilt(call.p, q)})
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
        exclusive=classes.groups if classes is not None else [],
    )
    if unmodelled:  # a coin no outcome can feel (its rules are dead given the case) is not worth a warning
        live = cone_variables(program, memos)
        if live is not None:
            names = {v.name for v in variables}
            unmodelled = {k: v for k, v in unmodelled.items() if k not in names or k in live}
    model = CaseModel(
        program=program,
        asks=asks,
        roots=roots_of,
        unmodelled=unmodelled,
        fixed=fixed,
        consumed=consumed,
        folded=folded,
        values=case_values,
        domains=domains,
        completions=n_eval,
        asserts=asserts,
    )
    if shape is not None and classes is not None:  # (without classes, completions read the values unlogged)
        seen_by = _Seen(pack, values.read(), facts_read, {d: values.get(d) for d in classes.raw}, classes.trace, model)
        memos.lru("prob.case_structures", STRUCTURES_SIZE).put(shape, seen_by)
    return model


STRUCTURES_SIZE = 16


class _Seen(NamedTuple):
    """What the last model of a pack, answers and what-ifs was built from (``_remembered``)."""

    pack: RulePack
    read: tuple[tuple[str, ValueInfo | None], ...]  # the case's values it read itself
    facts: dict[str, FactValue | None]  # the case's yes/no and enum facts it read
    raw: dict[str, ValueInfo | None]  # the case's values read only by the value classes' evaluations
    trace: list[tuple[Any, dict[str, ValueInfo], tuple[Any, ...]]]  # those evaluations (``ValueClasses.trace``)
    model: CaseModel


def _same_fact(a: FactValue | None, b: FactValue | None) -> bool:
    """Two cases' readings of a fact alike: equal, and their free-typed values equal by ``repr`` (3 == 3.0)."""
    if a is b:
        return True
    if a is None or b is None or a != b:
        return False
    return repr([a.value, *(r.value for r in a.alternatives)]) == repr([b.value, *(r.value for r in b.alternatives)])


def _remembered(
    pack: RulePack, case: CaseFile, values: dict[str, ValueInfo], shape: Hashable, memos: Memos
) -> CaseModel | None:
    """The model of the last case of this pack, answers and what-ifs (``shape``) when this case would build the
    same: every value and yes/no or enum fact that building READ alike (``ReadLog``), and every evaluation of
    the value classes that read a value of its own that differs (an amount) giving the same class — then the
    same model, with this case's own values (the numbers read them per world). Everything else a model is built
    from is the pack, its weights, the answers and the what-ifs (``shape``)."""
    seen: _Seen | None = memos.lru("prob.case_structures", STRUCTURES_SIZE).get(shape)
    if seen is None or seen.pack is not pack:
        return None
    if not all(same_value(values.get(name), info) for name, info in seen.read):
        return None
    if not all(_same_fact(case.facts.get(name), fv) for name, fv in seen.facts.items()):
        return None
    moved = {d for d, info in seen.raw.items() if not same_value(values.get(d), info)}
    for comp, given, key in seen.trace if moved else ():
        if (
            moved.intersection(computation_reads(comp, memos))
            and class_key(evaluate_computation(comp, {**values, **given}, memos)) != key
        ):
            return None
    return replace(seen.model, values=values)


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


def _law_completions(
    pack: RulePack,
    values: dict[str, ValueInfo],
    law: NumberLaw,
    source: str,
    law_roots: list[str],
    domains: dict[str, list[Any]],
    literal: Any,
    unmodelled: dict[str, list[str]],
    name: str,
    memos: Memos,
) -> list[tuple[float, str]]:
    """(P(call), ASP body) per completion of the law's roots: the fallback when values have no classes."""
    cells: list[tuple[float, str]] = []
    for combo in itertools.product(*(domains[r] for r in law_roots)):
        c = tuple(zip(law_roots, combo))
        world_vals = world_values(pack, values, dict(c), only=law_inputs(law), memos=memos) if c else values
        p_c, missing = coin_probability(law, source, world_vals)
        if missing:
            unmodelled.setdefault(f"{name}__p", missing)
        cells.append((p_c, ", ".join(literal(r, v) for r, v in c)))
    return cells


def law_cells(
    classes: ValueClasses,
    name: str,
    law: NumberLaw,
    values: dict[str, ValueInfo],
    unmodelled: dict[str, list[str]],
) -> list[tuple[float, str]]:
    """The judge's call ``name`` decided by ``law``: (P(call), ASP body) per LEVEL of that probability, each
    level an atom ``name__lK`` holding in the worlds where the law gives that probability.

    Why (issue 33, the 60-fact regression): the call's probability was computed per completion of the
    roots in the cone of the law's inputs — 2^k ASP rules over the raw roots (512 over 9 roots in the
    60-fact case), all feeding one atom, which tied those roots and the level coins into one clique of the
    factor graph (largest intermediate 2^18, 4e7 operations a pass, against 1e3 and 5e4 with the pack's
    percentage prior). The law reads few values (its covariate, its effects, the value to exceed), each of a
    few classes: P is computed once per combination of those CLASSES (``world_values`` semantics, as
    ``ValueClasses`` guarantees), and the combinations with the same P form one level; the levels are an
    exclusive group, so the contraction sees ONE categorical node, and the call's factor spans that node
    and the coins only."""
    keyed: list[tuple[Hashable, str]] = []
    for over, body in classes.combinations(law_inputs(law), name):
        p, missing = coin_probability(law, "", ChainMap(over, values))
        if missing:
            unmodelled.setdefault(f"{name}__p", missing)
        keyed.append((p, body))
    return [(float(p), atom or "") for p, atom in classes.partition(name, keyed, "l")]  # type: ignore[arg-type]


def call_coins(cond: str, variables: list[Any]) -> list[tuple[int, BoolVar]]:
    """The variables that carry the judge's call ``cond`` (its coin, or one coin per level ``cond__pN``):
    those a soft rule about the call is folded into, with their index."""
    return [
        (k, v)
        for k, v in enumerate(variables)
        if isinstance(v, BoolVar) and (v.name == cond or v.name.startswith(f"{cond}__p"))
    ]


def tilt(p: float, q: float) -> float:
    """``p`` with its odds multiplied by odds(q): a soft rule's factor q folded into a call's probability."""
    return p * q / (p * q + (1 - p) * (1 - q))


def narrative_prior(q: float) -> float:
    """The prior of reading A's variable (B's is 1 − it) that makes P(A's reading) = q under the two
    integrity constraints « exactly one reading » (see ``_add_ambiguity``)."""
    return q**0.5 / (q**0.5 + (1 - q) ** 0.5)


def _departure(q: float, q0: float) -> float:
    """The factor whose odds are odds(q) / odds(q0): 0.5 (neutral) when q is the pack's own q0."""
    if q0 in (0.0, 1.0) or q in (0.0, 1.0):
        return q
    r = (q / (1 - q)) / (q0 / (1 - q0))
    return r / (1 + r)


def law_inputs(law: NumberLaw) -> list[str]:
    """The values a law's exceedance reads: its covariate, its effects, the value it must exceed."""
    return [x for x in [law.covariate, *law.effects, (law.at_least or {}).get("value")] if x]


def coin_probability(law: NumberLaw | None, source: str, vals: Mapping[str, ValueInfo]) -> tuple[float, list[str]]:
    """(P(the appreciation holds), what it lacks) in one world: from the law that decides it (P(number >
    value)), or from the pack's computed prior (a percentage)."""
    if law is None:
        info = vals[source]
        if not info.known:
            return 0.5, list(info.missing)
        return max(0.0, min(1.0, float(info.value) / 100.0)), []
    missing = [x for x in law_inputs(law) if x in vals and not vals[x].known and x not in law.effects]
    if missing:
        return 0.5, missing
    data = {k: vals[k].value for k in law_inputs(law) if k in vals and vals[k].known}
    threshold = float(data[(law.at_least or {})["value"]])
    return round(exceedance(law, data, threshold), 12), []


def reading_prior(readings: list[Any]) -> float:
    """P(a yes/no fact is true) from its readings: one reading with confidence c says P(its value) = c (a
    reading is evidence, not certainty); several readings (the narratives') weigh by their confidences."""
    if len(readings) == 1:
        c = float(readings[0].confidence)
        return c if readings[0].value is True else 1.0 - c
    p_true = sum(r.confidence for r in readings if r.value is True)
    p_false = sum(r.confidence for r in readings if r.value is False)
    return p_true / (p_true + p_false) if p_true + p_false > 0 else 0.5


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
    override: float | None = None,
) -> list[Any] | None:
    """Two readings of one fact, claimed by the two narratives: one variable per narrative.

    ``override``: a what-if P(the yes/no fact is true); it replaces the readings' relative confidence.

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
    if override is not None and t is FactType.BOOL:
        q = float(override) if a.value is True else 1.0 - float(override)
    pa = narrative_prior(q)
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


class _Enumerated:
    """The fallback for packs whose parameters vary per world: each computed value evaluated on every
    completion of the roots in its cone (exponential: bounded by ``MAX_CONE``)."""

    def __init__(
        self, pack: RulePack, values: dict[str, ValueInfo], domains: dict[str, list[Any]], literal: Any, memos: Memos
    ) -> None:
        self.pack, self.values, self.domains, self.literal, self.memos = pack, values, domains, literal, memos
        self.cache: dict[tuple[tuple[str, Any], ...], dict[str, ValueInfo]] = {}
        self.evaluations = 0

    def pairs(self, name: str, roots: list[str]) -> list[tuple[ValueInfo, str]]:
        if len(roots) > MAX_CONE:
            raise CaseModelError(f"a computed value depends on {len(roots)} uncertain facts ({roots}); max {MAX_CONE}")
        out = []
        for combo in itertools.product(*(self.domains[n] for n in roots)):
            c = tuple(zip(roots, combo))
            if c not in self.cache:
                self.evaluations += 1
                self.cache[c] = world_values(self.pack, self.values, dict(c), memos=self.memos)
            out.append((self.cache[c][name], ", ".join(self.literal(r, v) for r, v in c)))
        return out

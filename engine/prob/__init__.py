"""Probabilistic verdicts over ASP programs: symbolic outcomes as masks, Alexy soft rules, EIG questions.

CONTRACT (what ``lexlogic analyze`` wires; semantics in ../shared/ARCHITECTURE.md)

Input — ``ProbProgram`` (pydantic):
  * ``program``: clingo text (the pack's .lp files + the case's CERTAIN facts). Normal rules, default
    negation, integrity constraints, arithmetic, aggregates.
  * ``variables``: uncertain facts.
      - ``BoolVar(name, atom, prior: float | Beta(a,b), world, cost, question, asserted=True)``
      - ``CategoricalVar(name, options=[(atom, prob) | Option(atom, prob, value)], world, cost, question,
        asserted=None)`` — exactly one option atom holds per world (e.g. notice months).
      ``world`` ∈ SHARED | NARRATIVE_A (claimant) | NARRATIVE_B (defence). A Beta prior on a single
      Bernoulli is used through its mean (the only observable of that probability).
  * ``target`` (the pack's is ``liable``), ``queries`` (extra atoms, e.g. ``brutal``, ``established``),
  * ``soft_rules``: ``logic.weights.SoftRule`` (load a pack's ``weights.yaml`` with
    ``logic.weights.load_weights``; ``with_weights`` applies its priors and soft rules).

Worlds — a world assigns every variable. The program is opened with fresh choice atoms linked to the
fact atoms (engine.prob.program). m(w) = 1 iff program ∪ w has an answer set (constraints give 0);
a world with TWO answer sets raises ``NonUniqueWorldError``. The world table (m and the observed atoms
per world) is computed ONCE per program structure and cached: by the vectorised evaluator (clingo
grounds, the Observer hands us the ground program, numpy evaluates it bit-parallel, 64 worlds per
word — stratified normal programs + aggregates) or, when the ground program is not of that shape, by
ONE clingo solve enumerating all models (cached per distinct world; sampled worlds are solved once each
under assumptions).

Probabilities — P(q) = Σ_w P(w)·m(w)·soft(w)·[q∈w] / Σ_w P(w)·m(w)·soft(w); exact by tensor contraction
of the ground circuit (engine.prob.contract, numpy), else by enumeration (Kronecker product of the prior
vectors, no Python loop per world) while worlds ≤ ``max_exact_worlds`` (2^21), else vectorised Monte
Carlo (priors read from Pyro distributions, batched bit draws, weights m·soft, self-normalised;
``method="monte_carlo"``, ``error`` = delta-method standard error of p_target); ``method="pyro"`` is
Pyro's own importance sampling (engine.prob.pyro_model). The exact paths are numpy only: torch and Pyro
are imported by the last two alone (importing torch costs more than a whole verdict).

Soft rules — score s = (I1·W1·R1)/(I2·W2·R2) is a likelihood ratio for the rule's condition atom:
factor q = E[s/(1+s)] on worlds where the condition holds and 1 − q where it does not (odds × s;
s = 1 neutral; monotone in each magnitude). See engine.prob.soft.

Narratives — narrative X (A or B) is the event E_X "every X-tagged variable takes its asserted value".
``p_narrative[X]`` = P(E_X | evidence) under the full posterior; ``p_target_by_narrative[X]`` =
P(target | E_X, evidence) (the other variables keep their priors). If P(E_X | evidence) < ``epsilon``
(default 0.01), X is collapsed: listed in ``collapsed`` with that probability, and its
p_target_by_narrative is null. ``p_target`` (overall) is the full posterior, i.e. the mixture over all
worlds (a collapsed narrative weighs < ε in it by definition).

Acquisition — ``entropy`` = binary Shannon entropy (bits) of P(target). For every unanswered,
not-yet-certain variable: EIG = H(T) − E_x[H(T | X=x)] (exact or MC plug-in), utility = EIG / cost;
``questions`` sorted by utility. Stop rule: entropy < ``entropy_threshold`` (default 0.3 bits, i.e.
P ≤ 0.053 or ≥ 0.947) → ``VERDICT``; otherwise ``NEEDS_INFORMATION`` with ``best_question`` (the
variable's French question) — unless no variable has positive EIG, then ``VERDICT`` (asking cannot help).

Entry point::

    analyse(program, answers={"some_fact": "non"}, whatif={"other_fact": 0.8,
            "dependance.I1": "s"}, epsilon=0.01, entropy_threshold=0.3, max_exact_worlds=2**21,
            samples=2**18, seed=0, method="auto") -> ProbVerdict

``answers``: FACT=VALUE (bool: true/false/oui/non; categorical: option atom or its value, e.g. "3")
condition the posterior (evidence). ``whatif``: NAME=VALUE overrides a prior (a variable) or a soft
magnitude (``<rule>.I1|W1|R1|I2|W2|R2`` or ``<rule>.claimant.intensity`` …) for that run.
Errors: ``ValueError`` naming the unknown fact / bad value; ``InconsistentEvidence`` when no world is
consistent; ``NonUniqueWorldError`` for a non-deterministic pack.

Output — ``ProbVerdict`` (pydantic; ``.model_dump(mode="json")``): status, target, p_target,
p_target_by_narrative, p_narrative, p_queries, entropy, entropy_threshold, method (exact |
monte_carlo; ``importance_sampling`` is reserved), error, n_worlds, effective_sample_size, p_evidence,
questions[{variable, question, eig, cost, utility, options, p_values}], best_question, collapsed
[{narrative, probability, epsilon}], answers, whatif, evaluator, soft_factors.
"""

from lexlogic.engine.prob.analyse import analyse, answer_digits, apply_whatif
from lexlogic.engine.prob.enumerate import NonUniqueWorldError
from lexlogic.engine.prob.infer import InconsistentEvidence, compiled
from lexlogic.engine.prob.model import (
    BoolVar,
    CategoricalVar,
    CollapsedNarrative,
    Option,
    ProbProgram,
    ProbVerdict,
    ScoredQuestion,
    World,
)
from lexlogic.engine.prob.weights import with_weights
from lexlogic.logic.weights import Beta, Fixed, Principle, Scale, SoftRule, load_weights

__all__ = [
    "analyse",
    "answer_digits",
    "apply_whatif",
    "NonUniqueWorldError",
    "InconsistentEvidence",
    "compiled",
    "BoolVar",
    "CategoricalVar",
    "CollapsedNarrative",
    "Option",
    "ProbProgram",
    "ProbVerdict",
    "ScoredQuestion",
    "World",
    "Beta",
    "Fixed",
    "Principle",
    "Scale",
    "SoftRule",
    "load_weights",
    "with_weights",
]

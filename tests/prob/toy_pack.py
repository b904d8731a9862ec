"""A small pack-like program (rupture brutale, simplified) for the probabilistic tests."""

from __future__ import annotations

from lexlogic.engine.prob import BoolVar, CategoricalVar, Option, ProbProgram, SoftRule, World
from lexlogic.logic.weights import Principle, parse_magnitude

RULES = """
% certain facts of the case
relation_years(6). rupture.
% rules (pack-like): established relation, notice, brutality, safe harbour, exemptions
established :- relation_years(Y), Y >= 2, regular_orders.
required_notice(R) :- relation_years(Y), R = Y / 2.
notice_sufficient :- notice_given(N), required_notice(R), N >= R.
brutal :- rupture, not notice_sufficient.
brutal :- rupture, not notice_written.
safe_harbour :- notice_given(N), N >= 18.
exempt :- fault_serious, fault_proven.
exempt :- force_majeure.
liable :- established, brutal, not safe_harbour, not exempt.
% a fault cannot be proven if it was never alleged
:- fault_proven, not fault_alleged.
"""


def toy(priors: dict[str, float] | None = None, intensity: float | str = "m", soft: bool = True) -> ProbProgram:
    p = {
        "regular_orders": 0.9,
        "notice_written": 0.5,
        "fault_alleged": 0.3,
        "fault_serious": 0.3,
        "fault_proven": 0.2,
        "force_majeure": 0.01,
        **(priors or {}),
    }
    variables = [
        BoolVar(
            name="regular_orders",
            atom="regular_orders",
            prior=p["regular_orders"],
            cost=2,
            question="Les commandes étaient-elles régulières (flux suivi et habituel) ?",
        ),
        BoolVar(
            name="notice_written",
            atom="notice_written",
            prior=p["notice_written"],
            cost=1,
            world=World.NARRATIVE_B,
            asserted=True,
            question="Le préavis a-t-il été donné par écrit ?",
        ),
        CategoricalVar(
            name="notice_given_months",
            world=World.NARRATIVE_A,
            asserted="0",
            cost=1,
            question="Quelle durée de préavis a été accordée (en mois) ?",
            options=[
                Option(atom="notice_given(0)", prob=0.3, value="0"),
                Option(atom="notice_given(4)", prob=0.6, value="4"),
                Option(atom="notice_given(18)", prob=0.1, value="18"),
            ],
        ),
        BoolVar(
            name="fault_alleged",
            atom="fault_alleged",
            prior=p["fault_alleged"],
            cost=1,
            world=World.NARRATIVE_B,
            question="L'auteur invoque-t-il une faute de la demanderesse ?",
        ),
        BoolVar(
            name="fault_serious",
            atom="fault_serious",
            prior=p["fault_serious"],
            cost=3,
            question="La faute invoquée est-elle d'une gravité suffisante ?",
        ),
        BoolVar(
            name="fault_proven",
            atom="fault_proven",
            prior=p["fault_proven"],
            cost=4,
            question="La faute est-elle prouvée ?",
        ),
        BoolVar(
            name="force_majeure",
            atom="force_majeure",
            prior=p["force_majeure"],
            cost=4,
            question="L'auteur invoque-t-il un événement de force majeure établi ?",
        ),
    ]
    rules = []
    if soft:
        rules.append(
            SoftRule(
                id="dependance",
                condition="brutal",
                claimant=Principle(
                    principle="protection du partenaire",
                    intensity=parse_magnitude(intensity),
                    weight=parse_magnitude("m"),
                    reliability=parse_magnitude("r"),
                ),
                defence=Principle(
                    principle="liberté du commerce",
                    intensity=parse_magnitude("m"),
                    weight=parse_magnitude("m"),
                    reliability=parse_magnitude({"beta": [8, 2]}),
                ),
            )
        )
    return ProbProgram(
        program=RULES, variables=variables, target="liable", queries=["brutal", "established"], soft_rules=rules
    )

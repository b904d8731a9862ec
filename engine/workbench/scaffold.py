"""`lexlogic new pack NAME`: a pack that passes `check` and `test` from the first minute.

It has one of everything (a fact, a dated parameter, a computation that reads it, an annotated ASP rule,
outcome templates, a remedy-free target, three tests, a property) so a legal engineer edits working
files instead of starting from a blank page (docs/pack-authoring.md explains each file).
"""

from __future__ import annotations

import re
from pathlib import Path

from lexlogic.engine.workbench.docs import pack_table

_FILES: dict[str, str] = {
    "pack.yaml": """# {title}
name: {name}
title: "{title}"
jurisdiction: FR
language: fr
version: "0.1"
target: claim_founded
target_label: "bien-fondé de la demande"
# The verdict's colour when the target holds / fails: red, green, blue or neutral (the default). Say which
# outcome is adverse: a liability found is red; a claim that stands is not a fault found (blue). While the
# target rests on readings to confirm, the faces draw it dashed.
target_colours: {{holds: blue, fails: neutral}}
# The heading under which the defeaters examined and set aside are listed, in the pack's terms of art
# (default « Examinés et écartés »; followed by « sur lecture des pièces (à confirmer) » when they rest on readings).
defeaters_heading: "Fins de non-recevoir examinées et écartées"
files:
  asp: [rules.lp]
  computations: [computations.yaml]
  facts: facts.yaml
  tests: tests
  properties: properties.yaml
  parameters: parameters.yaml
  # The offline reader's calibration (reader confidences → frequencies; the confidence from which a reading
  # enters as given): fit it with `scripts/calibrate_reader.py --pack {name} --sets <dir>` on texts the reader
  # was never tuned on, then uncomment. Default: calibration/reader.yaml when present; without one the
  # reader's raw scores are used and no reading enters as given. `lexlogic check` validates the file.
  # calibration: calibration/reader.yaml
checks:
  - {{id: deadline, label: "Délai de {{deadline_days}} respecté", outcome: within_deadline, kind: condition, fatal_if: "no", reopened_by: [event_date]}}
  - {{id: founded, label: "Bien-fondé de la demande", outcome: claim_founded, kind: condition}}
outcomes:
  within_deadline: "Demande formée dans le délai"
  claim_founded:
    label: "Demande fondée"
    affirmative: "La demande est fondée : elle a été formée {{days_elapsed}} jours après l'événement."
    negative: "La demande n'est pas fondée"
sources:
  ART_1: {{reference: "art. 1 (à remplacer par l'article applicable)", version: "à préciser", valid_from: 2020-01-01, status: M}}
""",
    "facts.yaml": """# The pack's input vocabulary: type, label, the French question asked when missing, its cost.
facts:
  event_date: {{type: date, label: "Date de l'événement", question: "À quelle date l'événement a-t-il eu lieu ?", cost: 1}}
  request_date: {{type: date, label: "Date de la demande", question: "À quelle date la demande a-t-elle été formée ?", cost: 1}}
""",
    "parameters.yaml": """# Dated legal parameters: every number the law fixes, with unit, reference and validity period.
date_fact: event_date
parameters:
  deadline_days:
    label: "Délai pour agir"
    unit: jours
    reference: ART_1
    values:
      - {{from: 2020-01-01, value: 30}}
""",
    "computations.yaml": """# JSON-Logic hard rules (numbers and dates); they output yes/no values for the ASP rules.
computations:
  - id: C_days_elapsed
    output: days_elapsed
    type: int
    label: "Jours écoulés entre l'événement et la demande"
    inputs: [event_date, request_date]
    logic: {{days_between: [{{var: event_date}}, {{var: request_date}}]}}
    sources: [ART_1]

  - id: C_within_deadline
    output: in_time
    type: bool
    label: "Demande formée dans le délai de {{deadline_days}}"
    inputs: [days_elapsed]
    logic: {{"<=": [{{var: days_elapsed}}, {{param: deadline_days}}]}}
    sources: [ART_1]
""",
    "rules.lp": """% The legal chain (ASP): one annotation line above each rule.

%@ {{id: R_deadline, label: "Demande formée dans le délai de {{deadline_days}}", sources: [ART_1]}}
within_deadline :- in_time.

%@ {{id: R_founded, label: "La demande est fondée si elle est formée dans le délai", sources: [ART_1]}}
claim_founded :- within_deadline.
""",
    "properties.yaml": """# Properties checked by hypothesis on generated cases.
properties:
# The example below is the scaffold's: when you replace the example facts (event_date, request_date), rewrite
# or delete it — `lexlogic check` names each fact it no longer knows.
  - id: P_early_claim_in_time
    label: "Une demande formée avant l'événement est toujours dans le délai"
    kind: implies
    when: {{event_date: {{min: "2024-06-01"}}, request_date: {{max: "2024-05-31"}}}}
    then: {{claim_founded: ["yes"]}}
    max_examples: 20
""",
    "tests/basic.yaml": """# Rule tests: facts in, expected outcomes (yes/no/unknown), values, missing facts, rules in the proof.
- name: "Dans le délai"
  facts: {{event_date: "2024-01-10", request_date: "2024-02-01"}}
  expect: {{claim_founded: "yes"}}
  values: {{days_elapsed: 22}}
  rule_in_proof: {{claim_founded: R_founded}}

- name: "Hors délai"
  facts: {{event_date: "2024-01-10", request_date: "2024-03-01"}}
  expect: {{claim_founded: "no"}}

- name: "Date de la demande inconnue : elle est demandée"
  facts: {{event_date: "2024-01-10"}}
  expect: {{claim_founded: "unknown"}}
  missing: {{claim_founded: [request_date]}}
""",
}


def scaffold(name: str, rules: Path, title: str = "") -> Path:
    """Write a new pack folder `rules/name` (never over an existing one) and its RULES.md.

    Every file holds the scaffold's example (a deadline claim): the author rewrites all of them — facts,
    parameters, computations, rules, checks and outcomes in pack.yaml, tests/basic.yaml, properties.yaml —
    and `lexlogic check` lists whatever still names the example's facts."""
    if not re.fullmatch(r"[a-z][a-z0-9_]{1,60}", name):
        raise ValueError(f"pack name {name!r}: lowercase letters, digits and _ (a folder name)")
    root = rules / name
    if root.exists():
        raise FileExistsError(f"{root} already exists")
    title = title or name.replace("_", " ").capitalize()
    for rel, text in _FILES.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text.format(name=name, title=title.replace('"', "'")), encoding="utf-8")
    (root / "RULES.md").write_text(pack_table(root), encoding="utf-8")
    return root

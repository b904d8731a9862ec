"""Rule tests and property declarations of a pack (YAML data, no Python in rule files).

A test file holds a list of cases::

    - name: "Préavis oral : compte pour zéro"
      facts: {notice_written: false, ...}      # short-form facts (the pack is the folder's)
      answers: {}                              # optional: answers given to questions
      expect: {brutal: "yes", liable: "yes"}   # outcome -> yes | no | unknown
      values: {effective_notice_months: 0}     # computed values (numbers compared to 1e-6)
      damages: [1000, 2000]                    # expected damages range (optional)
      absent: [safe_harbour]                   # conclusions that must NOT hold (status no)
      missing: {liable: [notice_written]}      # facts the outcome must name as missing (subset)
      rule_in_proof: {brutal: B_brutal}        # a rule id that must appear in the outcome's proof
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from lexlogic.logic import parameters as params_mod
from lexlogic.logic.model_defaults import new_list
from lexlogic.logic.pack import PackError, read_yaml, strip_lines


class RuleTest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str
    facts: dict[str, Any] = Field(default_factory=dict)
    answers: dict[str, Any] = Field(default_factory=dict)
    expect: dict[str, Literal["yes", "no", "unknown"]] = Field(default_factory=dict)
    values: dict[str, Any] = Field(default_factory=dict)
    damages: list[float] | None = None
    absent: list[str] = Field(default_factory=new_list)
    missing: dict[str, list[str]] = Field(default_factory=dict)
    rule_in_proof: dict[str, str] = Field(default_factory=dict)
    file: str = ""
    line: int = 0


class PropertySpec(BaseModel):
    """A property checked on hypothesis-generated cases.

    kind `implies`: for every case matching `when`, each outcome in `then` has one of the listed statuses.
    kind `bounds`: the computed value `watch`, whenever it is known, stays within [`min`, `max`].
    kind `monotone`: raising fact `vary` (all else equal) never moves `watch` the wrong `direction`:
      `watch` is an outcome (order no < unknown < yes) or a computed value.
    `when` fixes facts (a value) or bounds them ({min: .., max: ..}); `free` lists facts left random
    (default: every fact of the pack is random unless fixed).
    """

    model_config = ConfigDict(extra="forbid")
    id: str
    label: str
    kind: Literal["implies", "monotone", "bounds"]
    when: dict[str, Any] = Field(default_factory=dict)
    then: dict[str, list[Literal["yes", "no", "unknown"]]] = Field(default_factory=dict)
    vary: str | None = None
    watch: str | None = None
    direction: Literal["non_decreasing", "non_increasing"] | None = None
    min: float | None = None  # kind `bounds`: the watched value stays within [min, max] when known
    max: float | None = None
    max_examples: int = 60
    file: str = ""
    line: int = 0


def _load_items(path: Path, items: Any, model: type[Any], what: str) -> list[Any]:
    """Validate each YAML item into `model`, remembering file:line; errors point at the item."""
    if not isinstance(items, list):
        raise PackError(path, 1, what)
    out: list[Any] = []
    for item in items:
        line = item.get("__line__", 0) if isinstance(item, dict) else 0
        try:
            obj = model.model_validate(strip_lines(item))
        except ValidationError as exc:
            err = exc.errors()[0]
            raise PackError(path, line, f"{'.'.join(map(str, err['loc']))}: {err['msg']}") from exc
        obj.file, obj.line = str(path), line
        out.append(obj)
    return out


def load_tests(path: Path) -> list[RuleTest]:
    return _load_items(path, read_yaml(path), RuleTest, "a rule test file must be a YAML list of test cases")


def load_properties(path: Path, parameters: dict[str, params_mod.Parameter] | None = None) -> list[PropertySpec]:
    """Properties; ``{param: x}`` in a bound and ``{x}`` in a label take the parameter's current value."""
    raw = read_yaml(path)
    items = (raw or {}).get("properties", []) if isinstance(raw, dict) else None
    if parameters is not None and isinstance(items, list):
        items = [params_mod.resolve_in(item, parameters) for item in items]
    specs = _load_items(path, items, PropertySpec, "a properties file must have a `properties:` list")
    for spec in specs:
        spec.label = params_mod.render(spec.label, parameters or {})
    for spec in specs:
        if spec.kind == "monotone" and not (spec.vary and spec.watch and spec.direction):
            raise PackError(path, spec.line, "a monotone property needs vary, watch and direction")
        if spec.kind == "bounds" and not (spec.watch and (spec.min is not None or spec.max is not None)):
            raise PackError(path, spec.line, "a bounds property needs watch and min and/or max")
    return specs

"""JSON Schemas of every pack file, from the Pydantic models that load them (one source of truth).

`lexlogic schema pack --write .schemas/` writes one ``KIND.schema.json`` per file kind; an editor with a
YAML language server validates as you type with a first line such as
``# yaml-language-server: $schema=../../.schemas/computations.schema.json``.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, RootModel

from lexlogic.logic.pack import Computation, FactSpec, Manifest
from lexlogic.logic.parameters import ParameterFile
from lexlogic.logic.ruletests import PropertySpec, RuleTest

# fields the loader fills in (where a thing was read, its key): never written by hand
_INTERNAL = {"line", "file", "used_parameters", "__line__"}


class _FactsFile(BaseModel):
    model_config = ConfigDict(extra="forbid")
    facts: dict[str, FactSpec] = Field(description="fact name -> its type, label, question, cost, default/burden")


class _ComputationsFile(BaseModel):
    model_config = ConfigDict(extra="forbid")
    computations: list[Computation] = Field(description="JSON-Logic hard rules, evaluated in this order")


class _TestsFile(RootModel[list[RuleTest]]):
    pass


class _PropertiesFile(BaseModel):
    model_config = ConfigDict(extra="forbid")
    properties: list[PropertySpec]


def _scrub(node: Any) -> Any:
    """Remove loader-filled fields (and the fact/parameter `name`, which is the key) from a schema."""
    if isinstance(node, dict):
        out = {}
        for k, v in node.items():
            if k == "properties" and isinstance(v, dict):
                v = {pk: pv for pk, pv in v.items() if pk not in _INTERNAL}
            if k == "required" and isinstance(v, list):
                v = [r for r in v if r not in _INTERNAL]
            out[k] = _scrub(v)
        return out
    if isinstance(node, list):
        return [_scrub(v) for v in node]
    return node


def _schema(model: type[BaseModel], title: str) -> dict[str, Any]:
    schema = _scrub(model.model_json_schema(mode="validation"))
    for defn in (schema.get("$defs") or {}).values():  # the key is the name (or the id)
        if defn.get("title") in ("FactSpec", "Parameter"):
            defn.get("properties", {}).pop("name", None)
        if defn.get("title") == "LegalSource":
            defn.get("properties", {}).pop("id", None)
            defn["required"] = [r for r in defn.get("required", []) if r != "id"]
    outcomes = schema.get("properties", {}).get("outcomes")
    if outcomes is not None and "additionalProperties" in outcomes:  # a label alone, or {label, affirmative, …}
        outcomes["additionalProperties"] = {"anyOf": [{"type": "string"}, outcomes["additionalProperties"]]}
    schema["title"] = title
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    return schema


def pack_schemas() -> dict[str, dict[str, Any]]:
    """Kind -> JSON Schema: pack, facts, computations, parameters, tests, properties, weights, extraction, claims."""
    from lexlogic.engine.claims.fact_map import FactMap
    from lexlogic.logic.extraction import ExtractionSpec
    from lexlogic.logic.weights import WeightsFile

    return {
        "pack": _schema(Manifest, "pack.yaml — manifest of a lexlogic rule pack"),
        "facts": _schema(_FactsFile, "facts.yaml — the pack's fact vocabulary"),
        "computations": _schema(_ComputationsFile, "computations.yaml — JSON-Logic hard rules"),
        "parameters": _schema(ParameterFile, "parameters.yaml — dated legal parameters"),
        "tests": _schema(_TestsFile, "tests/*.yaml — rule tests"),
        "properties": _schema(_PropertiesFile, "properties.yaml — hypothesis-checked properties"),
        "weights": _schema(WeightsFile, "weights.yaml — priors, soft rules, laws of numbers"),
        "extraction": _schema(ExtractionSpec, "extraction.yaml — offline extraction specification"),
        "claims": _schema(FactMap, "claims.yaml — the claim→fact map"),
    }

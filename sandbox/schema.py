"""Declared output of a dynamic rule: a small schema in the rule's metadata → a Pydantic model.

The schema language is deliberately tiny (it is written by LLMs and legal engineers, stored as JSON):

- a type name: ``"bool" | "int" | "float" | "number" | "str" | "date" | "any" | "null"``;
  a trailing ``?`` makes it optional (``null`` accepted, and an object field may be absent);
- ``"list[T]"`` or ``[T]``: a list of T;  ``"dict[T]"``: an object with string keys and T values;
- an object ``{"field": T, ...}``: exactly these fields (extra fields are refused).

Validation is strict (a "yes" is not a bool, 1 is not True) and runs in the PARENT on the JSON text the
worker produced: nothing the rule returns is trusted before it passes here.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Any, Optional

from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError, create_model

from lexlogic.logic.errors import LexlogicError

SCALARS: dict[str, Any] = {
    "bool": bool,
    "boolean": bool,
    "int": int,
    "integer": int,
    "float": float,
    "number": float,
    "str": str,
    "string": str,
    "date": date,
    "any": Any,
    "null": type(None),
}
_LIST = re.compile(r"^list\[(.+)\]$")
_DICT = re.compile(r"^dict\[(.+)\]$")
_IDENT = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")


# Field names pydantic reserves (``model_config``, ``model_dump``…) or that shadow a BaseModel member:
# as a field they crash model creation (or silently change its behaviour), so they are refused here.
RESERVED_FIELDS = frozenset(n for n in dir(BaseModel) if not n.startswith("__"))
MAX_FIELDS = 200
MAX_DEPTH = 20


class SchemaError(LexlogicError, ValueError):
    """The declared output schema itself is malformed."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


def _annotation(spec: Any, path: str, counter: list[int]) -> tuple[Any, bool]:
    """(annotation, optional) for one spec."""
    if path.count(".") + path.count("[") + path.count("{") > MAX_DEPTH:
        raise SchemaError(f"{path[:200]}: schema nested deeper than {MAX_DEPTH} levels")
    if isinstance(spec, str):
        text = spec.strip()
        optional = text.endswith("?")
        if optional:
            text = text[:-1].strip()
        if text in SCALARS:
            ann = SCALARS[text]
        elif m := _LIST.match(text):
            ann = list[_annotation(m.group(1), path + "[]", counter)[0]]  # type: ignore[misc]
        elif m := _DICT.match(text):
            ann = dict[str, _annotation(m.group(1), path + "{}", counter)[0]]  # type: ignore[misc]
        else:
            raise SchemaError(f"{path}: unknown type {spec!r} (expected one of {sorted(SCALARS)}, list[T], dict[T])")
        return (Optional[ann] if optional else ann), optional  # noqa: UP045 - ann is a runtime value
    if isinstance(spec, list):
        if len(spec) != 1:
            raise SchemaError(f"{path}: a list type is written [T] with exactly one element type")
        return list[_annotation(spec[0], path + "[]", counter)[0]], False  # type: ignore[misc]
    if isinstance(spec, dict):
        fields: dict[str, Any] = {}
        if len(spec) > MAX_FIELDS:
            raise SchemaError(f"{path}: more than {MAX_FIELDS} fields")
        for name, sub in spec.items():
            if not isinstance(name, str) or not _IDENT.match(name) or len(name) > 100:
                raise SchemaError(f"{path}: invalid field name {name!r}"[:300])
            if name in RESERVED_FIELDS or name.startswith("model_"):
                raise SchemaError(f"{path}: field name {name!r} is reserved (pydantic model member); rename it")
            ann, optional = _annotation(sub, f"{path}.{name}", counter)
            fields[name] = (ann, None) if optional else (ann, ...)
        counter[0] += 1
        try:
            return create_model(f"RuleOutput{counter[0]}", __base__=_Strict, **fields), False
        except Exception as exc:  # pydantic refusing a name we did not foresee: still the schema's fault
            raise SchemaError(f"{path}: cannot build the output model: {type(exc).__name__}") from None
    raise SchemaError(f"{path}: a type must be a name, [T] or an object of fields, got {type(spec).__name__}")


def build_output_adapter(spec: Any) -> TypeAdapter:
    """A validator for the declared output; ``None`` means "any JSON value"."""
    if spec is None:
        spec = "any"
    ann, _ = _annotation(spec, "$", [0])
    return TypeAdapter(ann)


class OutputInvalid(LexlogicError, ValueError):
    def __init__(self, message: str, errors: list[dict[str, Any]]) -> None:
        super().__init__(message)
        self.errors = errors


def _json_path(loc: tuple[Any, ...]) -> str:
    out = "$"
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else f".{part}"
    return out


def validate_output(adapter: TypeAdapter, json_text: bytes | str) -> Any:
    """Validate the worker's JSON text; returns the validated value as plain JSON data."""
    try:
        value = adapter.validate_json(json_text, strict=True)
    except ValidationError as exc:
        errors = [{"path": _json_path(tuple(e["loc"])), "message": e["msg"]} for e in exc.errors()]
        first = errors[0] if errors else {"path": "$", "message": "invalid"}
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        raise OutputInvalid(f"{first['path']}: {first['message']}{more}", errors) from None
    return adapter.dump_python(value, mode="json")

"""Why a sandboxed run did not produce a result, in four words a caller can act on."""

from __future__ import annotations

from enum import Enum
from typing import Any


class ErrorKind(str, Enum):
    REFUSED = "refused"  # refused at compile time (policy or syntax): the rule never ran
    RUNTIME = "runtime"  # failed at run time: the rule raised, was blocked by a guard, or crashed its worker
    LIMIT = "limit"  # a resource limit was hit: CPU, memory, wall clock, recursion, output size
    OUTPUT = "output"  # the output is not JSON or does not match the rule's declared schema


LABELS = {
    ErrorKind.REFUSED: "refused at compile time",
    ErrorKind.RUNTIME: "failed at run time",
    ErrorKind.LIMIT: "limit hit",
    ErrorKind.OUTPUT: "output invalid",
}


class SandboxError(Exception):
    """A rule run that did not succeed. `code` refines `kind` (e.g. limit/cpu, runtime/policy)."""

    def __init__(
        self,
        kind: ErrorKind,
        code: str,
        message: str,
        *,
        line: int | None = None,
        filename: str | None = None,
        details: list[dict[str, Any]] | None = None,
    ) -> None:
        self.kind = ErrorKind(kind)
        self.code = code
        self.message = message
        self.line = line
        self.filename = filename
        self.details = details or []
        super().__init__(self.describe())

    def describe(self) -> str:
        where = ""
        if self.filename and self.line:
            where = f"{self.filename}:{self.line}: "
        elif self.filename:
            where = f"{self.filename}: "
        return f"{LABELS[self.kind]} ({self.code}): {where}{self.message}"

    def as_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind.value,
            "code": self.code,
            "message": self.message,
            "line": self.line,
            "filename": self.filename,
            "details": self.details,
        }

"""Why a sandboxed run did not produce a result, in four words a caller can act on."""

from __future__ import annotations

import re
from enum import Enum
from typing import Any

from lexlogic.logic.errors import LexlogicError

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
MAX_MESSAGE = 2000


def _escape(m: re.Match[str]) -> str:
    c = ord(m.group())
    return f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}"


def one_line(text: str, limit: int = MAX_MESSAGE) -> str:
    """A message safe to print: control characters (newlines, ESC, bidi overrides) escaped as \\xNN /
    \\uNNNN, one line, bounded. A rule's exception text and the names it read reach terminals and
    logs: a newline could forge an `error:` line, an escape sequence could rewrite the screen."""
    out = _CONTROL.sub(_escape, str(text))
    return out if len(out) <= limit else out[:limit] + "…"


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


class SandboxError(LexlogicError):
    """A rule run that did not succeed. `code` refines `kind` (e.g. limit/cpu, runtime/policy).

    Messages and file names are sanitised here (`one_line`), whatever the worker sent."""

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
        self.code = one_line(code, 40)
        self.message = one_line(message)
        self.line = line if isinstance(line, int) else None
        self.filename = one_line(filename, 300) if filename else filename
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

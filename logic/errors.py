"""The one base of every lexlogic error.

Why one base: the CLI maps any ``LexlogicError`` to a message and exit code 2, the HTTP API to a 4xx
problem+json (``status`` below), and nothing else reaches the user as a traceback. Each module keeps its
own subclass (``PackError``, ``CaseFileError``, ``SandboxError``…) so callers can still catch precisely.
"""

from __future__ import annotations

from collections.abc import Iterable
from difflib import get_close_matches


class LexlogicError(Exception):
    """Bad input or an unavailable component, said in one line that names what and where.

    ``status``: the HTTP status the API answers with (422 bad input by default; 503 for an engine or store
    that is unavailable, 504 for a limit hit). ``exit_code``: the CLI's exit code.
    """

    status: int = 422
    exit_code: int = 2


class UnavailableError(LexlogicError):
    """A component we rely on (database, engine, worker pool) is not available right now: retry later."""

    status = 503


class FieldIssue:
    """One problem of an input, located: ``location`` (body, case, query…), ``path`` (a JSON path such as
    ``$.answers.notice_written``), ``message``."""

    __slots__ = ("location", "path", "message")

    def __init__(self, location: str, path: str, message: str) -> None:
        self.location, self.path, self.message = location, path, message

    def __repr__(self) -> str:
        return f"FieldIssue({self.location!r}, {self.path!r}, {self.message!r})"


class InvalidInput(LexlogicError):
    """Input rejected with every located problem (422 with the JSON paths; exit 2 on the CLI)."""

    def __init__(self, message: str, issues: list[FieldIssue] | None = None, *, kind: str = "validation") -> None:
        super().__init__(message)
        self.issues = list(issues or [])
        self.kind = kind


def did_you_mean(name: str, choices: Iterable[object]) -> str:
    """' (did you mean 'x'?)' for a near miss, else ''."""
    near = get_close_matches(str(name), [str(c) for c in choices], n=1, cutoff=0.75)
    return f" (did you mean '{near[0]}'?)" if near else ""

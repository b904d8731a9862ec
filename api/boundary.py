"""Hostile input stopped at the door, before any route, store or engine sees it.

Why here and not in each model: the same few poisons broke routes owned by different modules (a NaN
amount stored as null broke a case for good, ``9999-12-31`` overflowed date arithmetic, a NUL byte made
PostgreSQL fail, a 5,000-character id reached a VARCHAR(32)). One ASGI middleware checks every JSON body
and every path, and answers 422 problem+json naming the JSON path of the offending value:

- numbers: ``NaN``, ``Infinity``, ``-Infinity``, floats that overflow to infinity, integers of more than
  18 digits;
- strings (keys and values): a NUL byte or another C0 control character except tab/newline/CR, more than
  `MAX_STRING` characters, a key longer than `MAX_KEY`;
- dates: a string shaped ``YYYY-MM-DD`` that is not a calendar date or lies outside 1800–2199 (the engine
  adds months and years to dates: 9999-12-31 cannot be computed with);
- depth: nesting deeper than `MAX_DEPTH`;
- path: a segment longer than `MAX_SEGMENT` characters or holding a control character;
- strings anywhere (body, path, query): a lone UTF-16 surrogate (PostgreSQL cannot store it), bytes that are
  not UTF-8 once percent-decoded;
- the query string: every name and value goes through the same string checks (it was never checked:
  ``?case_id=a%00b`` answered 500), and a run of more than 18 digits is refused like a JSON integer;
- headers: two ``Content-Type`` headers are refused (400): the check read the first, FastAPI the last
  (issue 34). Every POST/PUT/PATCH body that parses as JSON is checked, whatever its declared type; only
  multipart and form bodies (uploads) are left to their routes.

On the way out it scrubs server paths (the installation, the data folder, $LEXLOGIC_HOME) from every JSON
body (errors and results alike: the fallacy analysis named its taxonomy file) and from event streams,
whoever wrote them: an engine message naming
`/srv/…/rules/pack/file.yaml` reaches the client as `rules/pack/file.yaml`.
"""

from __future__ import annotations

import json
import re
from datetime import date
from typing import Any
from urllib.parse import parse_qsl, unquote_to_bytes

from starlette.routing import Match
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from lexlogic.api.problems import BodyTooLarge, FieldError, json_path, problem_response
from lexlogic.logic.errors import LexlogicError

MAX_STRING = 100_000
MAX_KEY = 200
MAX_DEPTH = 32
MAX_SEGMENT = 200
MIN_YEAR, MAX_YEAR = 1800, 2199
_DATE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})$")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_SURROGATE = re.compile("[\ud800-\udfff]")
_LONG_DIGITS = re.compile(r"[+-]?\d{19,}")
_FORMS = (b"multipart/form-data", b"application/x-www-form-urlencoded")
_SEEN_MIN = 64 * 1024  # bodies smaller than this are searched every time (cheap)
_SEEN_SIZE = 64


class _Bad(LexlogicError):
    def __init__(self, loc: list[Any], message: str) -> None:
        super().__init__(message)
        self.loc, self.message = loc, message


class _Constant:
    """A NaN/Infinity token, kept as a marker so the walk can name its path."""

    def __init__(self, token: str) -> None:
        self.token = token


def _parse_int(text: str) -> int:
    if len(text.lstrip("-")) > 18:
        return _Constant(f"integer of {len(text.lstrip('-'))} digits")  # type: ignore[return-value]
    return int(text)


def _parse_float(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        return _Constant(f"{text} (overflows to infinity)")  # type: ignore[return-value]
    return value


def _check_string(value: str, loc: list[Any], what: str) -> None:
    if len(value) > (MAX_KEY if what == "key" else MAX_STRING):
        raise _Bad(loc, f"{what} of {len(value)} characters (max {MAX_KEY if what == 'key' else MAX_STRING})")
    if m := _CONTROL.search(value):
        raise _Bad(loc, f"{what} contains the control character U+{ord(m.group()):04X}")
    if m := _SURROGATE.search(value):
        raise _Bad(loc, f"{what} contains a lone surrogate U+{ord(m.group()):04X} (not valid Unicode text)")
    if what == "string" and (d := _DATE.match(value)):
        y, mo, da = (int(g) for g in d.groups())
        try:
            date(y, mo, da)
        except ValueError:
            raise _Bad(loc, f"{value!r} is not a calendar date") from None
        if not MIN_YEAR <= y <= MAX_YEAR:
            raise _Bad(loc, f"date {value} is out of range ({MIN_YEAR}-01-01 to {MAX_YEAR}-12-31)")


def check_value(value: Any, loc: list[Any] | None = None, depth: int = 0) -> None:
    """Raise _Bad at the first poisoned value (depth-first, in document order)."""
    loc = loc or []
    if depth > MAX_DEPTH:
        raise _Bad(loc, f"nested deeper than {MAX_DEPTH} levels")
    if isinstance(value, _Constant):
        raise _Bad(loc, f"{value.token} is not a finite number")
    if isinstance(value, str):
        _check_string(value, loc, "string")
    elif isinstance(value, dict):
        for k, v in value.items():
            _check_string(k, [*loc, k[:40]], "key")
            check_value(v, [*loc, k], depth + 1)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            check_value(v, [*loc, i], depth + 1)


def parse_checked(body: bytes) -> Any:
    """The JSON body if it is clean; _Bad naming the path otherwise; ValueError if it is not JSON."""
    data = json.loads(body, parse_constant=_Constant, parse_int=_parse_int, parse_float=_parse_float)
    check_value(data)
    return data


def _routed(scope: Scope) -> bool:
    """Whether a route of the app takes this method at this path (what the router will dispatch to)."""
    router = getattr(scope.get("app"), "router", None)
    if router is None:
        return True
    return any(route.matches(scope)[0] is Match.FULL for route in router.routes)


def _query_problem(query: bytes) -> tuple[str, str] | None:
    """(JSON path, why) of the first bad name or value of a query string; None when it is clean."""
    try:
        pairs = parse_qsl(query.decode("latin-1"), keep_blank_values=True, encoding="utf-8", errors="strict")
    except (UnicodeDecodeError, ValueError):
        return "$", "the query string is not UTF-8 once percent-decoded"
    for name, value in pairs:
        where = f"$.{name[:40]}"
        try:
            _check_string(name, [name[:40]], "key")
            _check_string(value, [name[:40]], "string")
        except _Bad as bad:
            return where, bad.message
        if _LONG_DIGITS.fullmatch(value.strip()):
            return where, "a number of more than 18 digits"
    return None


def _path_problem(path: bytes) -> str | None:
    """``path``: the raw (still percent-encoded) path, so bytes that are not UTF-8 are seen, not replaced."""
    for seg in path.split(b"/"):
        try:
            raw = unquote_to_bytes(seg).decode("utf-8")
        except UnicodeDecodeError:
            return "a path segment that is not UTF-8 once percent-decoded"
        if _SURROGATE.search(raw):
            return "a lone surrogate in the path"
        if len(raw) > MAX_SEGMENT:
            return f"a path segment of {len(raw)} characters (max {MAX_SEGMENT})"
        if _CONTROL.search(raw) or "\n" in raw or "\r" in raw or "\t" in raw:
            return "a control character in the path"
    return None


class BoundaryMiddleware:
    """422 for poisoned JSON bodies and paths (see the module doc); everything else passes unchanged."""

    def __init__(self, app: ASGIApp, *, server_paths: list[str] | None = None) -> None:
        self.app = app
        roots = sorted({p.rstrip("/") for p in server_paths or [] if p and p.rstrip("/")}, key=len, reverse=True)
        self.roots = [r.encode() for r in roots]
        self._seen: dict[int, bytes] = {}  # id → large body already found clean (see ``_remember``)

    def _scrub(self, data: bytes) -> bytes:
        if len(data) >= _SEEN_MIN and self._seen.get(id(data)) is data:  # this very object was scrubbed clean
            return data
        clean = data
        for root in self.roots:
            if root in clean:
                clean = clean.replace(root + b"/", b"").replace(root, b".")
        if clean is data and len(data) >= _SEEN_MIN:
            self._remember(data)
        return clean

    def _remember(self, body: bytes) -> None:
        """Why: a cached verdict (~650 KB) is the same bytes object on every hit, and searching it for each
        server path cost ~1–3 ms per response. A body found clean is kept (by identity, holding a reference,
        so its id cannot be reused) and not searched again; bounded to ``_SEEN_SIZE`` bodies."""
        self._seen[id(body)] = body
        while len(self._seen) > _SEEN_SIZE:
            self._seen.pop(next(iter(self._seen)))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if self.roots:
            send = self._scrubbing(send)
        await self._inbound(scope, receive, send)

    def _scrubbing(self, send: Send) -> Send:
        """JSON bodies are buffered and scrubbed; event-stream chunks are scrubbed one by one."""
        state: dict[str, Any] = {"mode": None, "start": None, "body": b""}

        async def wrapped(message: Message) -> None:
            if message["type"] == "http.response.start":
                ctype = dict(message.get("headers", [])).get(b"content-type", b"")
                if ctype.startswith((b"application/problem+json", b"application/json")):
                    state["mode"], state["start"] = "buffer", message
                    return
                state["mode"] = "stream" if ctype.startswith(b"text/event-stream") else None
                await send(message)
                return
            if message["type"] == "http.response.body":
                if state["mode"] == "buffer":
                    state["body"] += message.get("body", b"")
                    if message.get("more_body"):
                        return
                    body = self._scrub(state["body"])
                    start = state["start"]
                    headers = [(k, v) for k, v in start.get("headers", []) if k != b"content-length"]
                    headers.append((b"content-length", str(len(body)).encode()))
                    await send({**start, "headers": headers})
                    await send({"type": "http.response.body", "body": body, "more_body": False})
                    return
                if state["mode"] == "stream":
                    message = {**message, "body": self._scrub(message.get("body", b""))}
            await send(message)

        return wrapped

    async def _inbound(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not _routed(scope):  # no route takes this method here: the router answers 404/405, not us
            await self.app(scope, receive, send)
            return
        why = _path_problem(scope.get("raw_path") or scope.get("path", "").encode("utf-8", "surrogatepass"))
        if why is not None:
            errors = [FieldError(location="path", path="$", message=why)]
            await problem_response(422, f"path: {why}", slug="validation", errors=errors)(scope, receive, send)
            return
        if (bad_query := _query_problem(scope.get("query_string", b""))) is not None:
            path, why = bad_query
            errors = [FieldError(location="query", path=path, message=why)]
            await problem_response(422, f"query {path}: {why}", slug="validation", errors=errors)(scope, receive, send)
            return
        ctypes = [v for k, v in scope.get("headers", []) if k.lower() == b"content-type"]
        if len(ctypes) > 1:  # which one counts would depend on who reads: refuse, never guess
            await problem_response(400, "more than one Content-Type header", slug="bad-request")(scope, receive, send)
            return
        ctype = (ctypes[0] if ctypes else b"").split(b";")[0].strip().lower()
        if scope.get("method") not in ("POST", "PUT", "PATCH") or ctype in _FORMS:
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        more = True
        while more:
            try:
                msg = await receive()
            except BodyTooLarge as exc:
                await problem_response(413, str(exc), slug="too-large")(scope, receive, send)
                return
            if msg["type"] != "http.request":
                await self.app(scope, receive, send)  # disconnect: let the app see it
                return
            chunks.append(msg.get("body", b""))
            more = msg.get("more_body", False)
        body = b"".join(chunks)
        if body.strip():
            try:
                parse_checked(body)
            except _Bad as bad:
                path = json_path(bad.loc)
                errors = [FieldError(location="body", path=path, message=bad.message)]
                resp = problem_response(422, f"body {path}: {bad.message}", slug="validation", errors=errors)
                await resp(scope, receive, send)
                return
            except (ValueError, RecursionError):
                pass  # not JSON: FastAPI answers its own 422
        sent = False

        async def replay() -> Message:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

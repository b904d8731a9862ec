"""Data made safe to print on a terminal: control characters shown as escapes, never interpreted.

Why: a dynamic rule's output (or a rule's name, author, note) is data written by someone else. Printed raw,
a newline in a value drew a fake « ✔ … [fact] » line and ESC sequences reached the terminal (issue 34).
C0/C1 controls, DEL and the bidirectional overrides (which reorder what is shown) become ``\\xNN``/``\\uNNNN``.
"""

from __future__ import annotations

import re

_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]")
_UNSAFE_KEEP_LINES = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(m: re.Match[str]) -> str:
    ch = m.group(0)
    return _NAMED.get(ch) or (f"\\x{ord(ch):02x}" if ord(ch) < 0x100 else f"\\u{ord(ch):04x}")


def printable(value: object, *, keep_lines: bool = False) -> str:
    """``str(value)`` with every control character escaped (``keep_lines``: newlines and tabs kept, for a
    multi-line text such as a rule's source)."""
    return (_UNSAFE_KEEP_LINES if keep_lines else _UNSAFE).sub(_escape, str(value))

"""Default factories for pydantic fields: ``Field(default_factory=new_list)``, not ``default_factory=list``.

Why: when pydantic builds a model it asks ``inspect.signature`` of every field's default factory (does it take
the validated data?). For the builtin ``list`` Python parses that signature from its text with the tokenizer,
0.3–0.4 ms a field; the ~70 such fields a cold ``lexlogic analyze FACTS.json`` builds cost ~25–30 ms of it
(issue 33, cold start). A Python function's signature is read from its code object (~0.01 ms). ``dict`` and
``set`` have no text signature: pydantic's question fails fast for them, they stay as they are.
``tests/core/test_cold_analyze_imports.py`` fails on a model field whose factory is ``list``.
"""

from __future__ import annotations

from typing import Any


def new_list() -> list[Any]:
    """A new empty list (what ``list()`` gives)."""
    return []

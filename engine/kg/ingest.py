"""Batch ingestion: validate many assertions in one pydantic call and admit them all or none.

Why a batch path: ingesting 100,000 assertions one by one cost ≈ 50 µs each, and the profile showed
that more than half of pydantic's share was not validation at all but CPython's cyclic garbage
collector, re-scanning an ever larger heap while millions of small *acyclic* objects (models, dicts,
tuples, sets) were being created. The batch path therefore
  - validates the whole list with one ``TypeAdapter(list[RawAssertion])`` call (same schema, same model
    validator, so exactly the same acceptance as ``RawAssertion.model_validate``);
  - pauses the cyclic collector for the duration of the batch (reference counting still frees every
    object; the collector is restored, and runs as usual, when the batch ends);
  - checks every constraint of every assertion *before* writing any of them (all-or-nothing).
Nothing is skipped: the basis/kind rule, enum membership, the whitelist, the method rule and the
no-INFERRED rule are all applied to every assertion of the batch.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from pydantic import TypeAdapter

from lexlogic.engine.kg.constraints import AssertionRefused, ConstraintViolation, check
from lexlogic.engine.kg.model import RawAssertion

Row = Mapping[str, Any] | RawAssertion
BATCH: TypeAdapter[list[RawAssertion]] = TypeAdapter(list[RawAssertion])


_gc_lock = threading.Lock()
_gc_depth = 0  # batches in flight (threads or nesting); the first one in pauses, the last one out restores
_gc_was_enabled = False


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector for a bulk load; restore its previous state afterwards.

    Re-entrant and thread-safe: with concurrent or nested batches the collector stays paused until the last
    one ends, and is re-enabled only if it was enabled when the first one began."""
    global _gc_depth, _gc_was_enabled
    with _gc_lock:
        if _gc_depth == 0:
            _gc_was_enabled = gc.isenabled()
            gc.disable()
        _gc_depth += 1
    try:
        yield
    finally:
        with _gc_lock:
            _gc_depth -= 1
            if _gc_depth == 0 and _gc_was_enabled:
                gc.enable()


class BatchRefused(AssertionRefused):
    """A batch was refused as a whole because at least one of its assertions breaks a constraint.

    ``violation``/``index``/``assertion_id`` name the first offender (so callers that catch
    ``AssertionRefused`` keep working); ``violations`` lists every offender as (index, id, violation).
    """

    def __init__(self, violations: list[tuple[int, str, ConstraintViolation]], size: int) -> None:
        index, assertion_id, first = violations[0]
        super().__init__(first)
        self.args = (
            f"batch refused, nothing written: assertion [{index}] ({assertion_id}) — {first.rule}: "
            f"{first.detail}" + (f" (and {len(violations) - 1} more)" if len(violations) > 1 else ""),
        )
        self.index, self.assertion_id, self.violations, self.size = index, assertion_id, violations, size


def validate_rows(rows: Sequence[Row] | Iterable[Row]) -> list[RawAssertion]:
    """JSON-shaped dicts (or RawAssertions, passed through) → RawAssertions, in one pydantic call.

    Raises ``pydantic.ValidationError`` whose locations start with the row index ([3].bundle.spans...).
    """
    items = rows if isinstance(rows, list) else list(rows)
    with gc_paused():
        return BATCH.validate_python(items)


def admit_all(assertions: Sequence[RawAssertion]) -> None:
    """Check every assertion's constraints; raise BatchRefused (nothing admitted) if any is refused."""
    refused = [(i, a.id, v) for i, a in enumerate(assertions) if (v := check(a)) is not None]
    if refused:
        raise BatchRefused(refused, len(assertions))


def duplicate_ids(assertions: Sequence[RawAssertion], known: set[str] | frozenset[str] = frozenset()) -> list[str]:
    """Ids that occur twice in the batch or are already journaled (entries are never replaced)."""
    seen: set[str] = set()
    dups: list[str] = []
    for a in assertions:
        if a.id in seen or a.id in known:
            dups.append(a.id)
        seen.add(a.id)
    return dups

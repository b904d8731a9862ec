"""A computation's variables are cached per object: a new computation that reuses a freed one's id must not
get the freed one's variables (it did: mutants and reloaded packs read the wrong inputs)."""

from __future__ import annotations

from lexlogic.engine.symbolic.values import _used
from lexlogic.logic.pack import Computation, FactType


def test_a_new_computation_never_gets_a_freed_ones_variables() -> None:
    for i in range(200):
        comp = Computation(id=f"C{i}", output=f"o{i}", type=FactType.INT, label="x", inputs=[], logic={"var": f"x{i}"})
        assert _used(comp) == [f"x{i}"]
        del comp  # freed: the next one may be allocated at the same address (same id())

"""One warm sandbox pool for the area (spawning workers is the slow part; tests share it)."""

from __future__ import annotations

import pytest

from lexlogic.sandbox.pool import Limits, SandboxPool

# Tight limits keep the hostile corpus fast: 1 s of CPU, 5 s of wall clock, 256 MB of address space.
TEST_LIMITS = Limits(cpu_seconds=1, wall_seconds=5.0, memory_mb=256, max_output_bytes=1_000_000)


@pytest.fixture(scope="session")
def pool():
    with SandboxPool(size=2, limits=TEST_LIMITS) as p:
        yield p

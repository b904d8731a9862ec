"""lexlogic: neuro-symbolic legal reasoning.

The one installed namespace. Its layers live in the repository's top-level folders (the design card's
layout) and are mapped here by ``pyproject.toml``: ``lexlogic.api`` → ``api/``, ``lexlogic.engine`` →
``engine/``, ``lexlogic.bridges`` → ``bridges/``, ``lexlogic.sandbox`` → ``sandbox/``, ``lexlogic.logic`` →
``logic/``. Arrows point one way: api → engine → (bridges, sandbox) → logic (checked by import-linter).
"""

import os

# numpy's OpenBLAS starts one thread per core when numpy is imported, and each spins 2^28 cycles waiting for
# work before it sleeps: ~50 ms of CPU in every process that imports numpy (a cold `lexlogic analyze
# FACTS.json` takes ~380 ms of CPU in all), on the other core of an idle machine, against the command itself on
# a busy one (issue 33). 2^4 cycles: the threads sleep at once and are woken when a product large enough to
# share comes (the same threads, the same results). Set here because this package is imported before any of
# its modules imports numpy; a third-party runtime knob read once when OpenBLAS loads, not a lexlogic setting
# (tests/core/test_explicit_context.py lists it); a value the environment gives is kept.
os.environ.setdefault("OPENBLAS_THREAD_TIMEOUT", "4")

__version__ = "0.2.0"

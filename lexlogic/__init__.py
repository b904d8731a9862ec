"""lexlogic: neuro-symbolic legal reasoning.

The one installed namespace. Its layers live in the repository's top-level folders (the design card's
layout) and are mapped here by ``pyproject.toml``: ``lexlogic.api`` → ``api/``, ``lexlogic.engine`` →
``engine/``, ``lexlogic.bridges`` → ``bridges/``, ``lexlogic.sandbox`` → ``sandbox/``, ``lexlogic.logic`` →
``logic/``. Arrows point one way: api → engine → (bridges, sandbox) → logic (checked by import-linter).
"""

__version__ = "0.2.0"

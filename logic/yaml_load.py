"""YAML read by PyYAML's safe loader in C (libyaml) when PyYAML has it: the same values, ~8× faster.

Why: the pack's extraction specification alone took ~0.3 s to read with the pure-Python loader in every
cold ``analyze`` of a dossier (issue 33). The C loader builds the same Python values (checked on every YAML
file of the repository); it falls back to the Python one where libyaml is missing. PyYAML is imported on the
first call (~13 ms of CPU: a cold ``analyze FACTS.json`` served from the pack cache reads no YAML).
"""

from __future__ import annotations

from typing import Any


def safe_load(text: str) -> Any:
    """``yaml.safe_load(text)``, in C when available (raises ``yaml.YAMLError`` the same way)."""
    import yaml

    return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))  # a safe loader either way

"""The YAML loader of a pack's files: it remembers the line of every mapping (for ``file:line`` errors).

Why a module of its own: PyYAML costs ~13 ms of CPU to import (issue 33) and a cold ``lexlogic analyze
FACTS.json`` whose pack comes from the pack cache reads no YAML; ``logic.pack.read_yaml`` imports this module
when a pack's files are read.
"""

from __future__ import annotations

from typing import Any

import yaml


class LineLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """YAML loader that remembers the line of every mapping (for file:line errors). libyaml's C parser when
    PyYAML has it (five times faster on a pack's files: most of a cold start's reading), else pure Python."""


def _construct_mapping(loader: LineLoader, node: yaml.MappingNode) -> dict[str, Any]:
    mapping = {str(k): v for k, v in yaml.SafeLoader.construct_mapping(loader, node, deep=True).items()}
    mapping["__line__"] = node.start_mark.line + 1
    return mapping


def _construct_timestamp(loader: LineLoader, node: yaml.ScalarNode) -> Any:
    """Dates as the YAML spec reads them, but an impossible date (2019-02-30) is a located error."""
    try:
        return yaml.SafeLoader.construct_yaml_timestamp(loader, node)
    except ValueError as exc:
        raise yaml.constructor.ConstructorError(
            None, None, f"impossible date '{node.value}' ({exc})", node.start_mark
        ) from exc


LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
LineLoader.add_constructor("tag:yaml.org,2002:timestamp", _construct_timestamp)

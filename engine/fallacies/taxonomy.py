"""Fallacy taxonomy: an immutable tree of nodes, loaded from the project's YAML or an Argumentum CSV.

One in-memory shape for both sources so the navigators never care where the tree came from. Ids are
strings (the YAML slug, or the Argumentum ``PK``); ``path`` is the dotted position from the root.
"""

from __future__ import annotations

import csv
import hashlib
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, Field

from lexlogic.logic import yaml_load
from lexlogic.logic.errors import LexlogicError
from lexlogic.logic.model_defaults import new_list

DATA_DIR = Path(__file__).parent / "data"
BUILTIN_TAXONOMY = DATA_DIR / "taxonomy.yaml"


class TaxonomyError(LexlogicError, ValueError):
    """A taxonomy file is malformed; the message names the file and the row/node."""


class FallacyNode(BaseModel):
    id: str
    path: str = Field(description="dotted position from the root, e.g. '3.1.2'; the root is '0'")
    depth: int
    name_fr: str
    name_en: str = ""
    definition_fr: str = ""
    definition_en: str = ""
    example_fr: str = ""
    more_examples_fr: list[str] = Field(
        default_factory=new_list, description="extra exemplars for the offline navigator"
    )
    legal: bool = False
    parent_id: str | None = None
    children_ids: list[str] = Field(default_factory=new_list)

    @property
    def is_leaf(self) -> bool:
        return not self.children_ids

    def embedding_text(self) -> str:
        """What the offline navigator compares an argument with (name, definition, example)."""
        parts = [self.name_fr, self.definition_fr, self.example_fr, *self.more_examples_fr]
        return " ".join(p.strip() for p in parts if p and p.strip())


class Taxonomy:
    """A rooted tree of FallacyNode, indexed by id."""

    def __init__(self, nodes: list[FallacyNode], source: str) -> None:
        self.nodes: dict[str, FallacyNode] = {n.id: n for n in nodes}
        if len(self.nodes) != len(nodes):
            raise TaxonomyError(f"{source}: duplicate node ids")
        roots = [n for n in nodes if n.parent_id is None]
        if len(roots) != 1:
            raise TaxonomyError(f"{source}: expected exactly one root, found {len(roots)}")
        self.root = roots[0]
        self.source = source
        self.warnings: list[str] = []  # non-fatal oddities found while loading
        self._hash: str | None = None
        self._by_path = {n.path: n for n in nodes}

    def __len__(self) -> int:
        return len(self.nodes)

    def __iter__(self) -> Iterator[FallacyNode]:
        return iter(self.nodes.values())

    def get(self, node_id: str) -> FallacyNode | None:
        return self.nodes.get(str(node_id))

    def children(self, node_id: str) -> list[FallacyNode]:
        return [self.nodes[c] for c in self.nodes[node_id].children_ids]

    def ancestors(self, node_id: str) -> list[FallacyNode]:
        """From the root down to (excluding) the node."""
        out: list[FallacyNode] = []
        cur = self.nodes[node_id].parent_id
        while cur is not None:
            out.append(self.nodes[cur])
            cur = self.nodes[cur].parent_id
        return list(reversed(out))

    def family(self, node_id: str) -> FallacyNode:
        """The depth-1 ancestor (or the node itself at depth 1; the root for the root)."""
        node = self.nodes[node_id]
        if node.depth <= 1:
            return node
        return self.ancestors(node_id)[1]

    def by_path(self, path: str) -> FallacyNode | None:
        return self._by_path.get(path)

    def leaves(self) -> list[FallacyNode]:
        return [n for n in self if n.is_leaf]

    def content_hash(self) -> str:
        """Hash of what the navigators read (ids + texts): keys the embedding cache. Memoised: a loaded
        taxonomy is treated as read-only (navigators call this at every node)."""
        if self._hash is not None:
            return self._hash
        h = hashlib.sha256()
        for n in sorted(self.nodes.values(), key=lambda n: n.path):
            h.update(f"{n.id}\x1f{n.path}\x1f{n.embedding_text()}\x1e".encode())
        self._hash = h.hexdigest()
        return self._hash


# ---------------------------------------------------------------- project YAML (nested tree)

_REQUIRED = ("id", "name_fr", "name_en", "definition_fr", "example_fr")


def _walk_yaml(
    raw: dict[str, Any], path: str, depth: int, parent: str | None, source: str, out: list[FallacyNode]
) -> str:
    missing = [k for k in _REQUIRED if not str(raw.get(k) or "").strip()]
    if missing:
        raise TaxonomyError(f"{source}: node at path {path} ({raw.get('id')!r}) lacks {', '.join(missing)}")
    node = FallacyNode(
        id=str(raw["id"]),
        path=path,
        depth=depth,
        name_fr=raw["name_fr"],
        name_en=raw["name_en"],
        definition_fr=raw["definition_fr"],
        definition_en=raw.get("definition_en", ""),
        example_fr=raw["example_fr"],
        more_examples_fr=[str(x) for x in raw.get("more_examples_fr") or []],
        legal=bool(raw.get("legal", False)),
        parent_id=parent,
    )
    out.append(node)
    for i, child in enumerate(raw.get("children") or [], start=1):
        child_path = str(i) if depth == 0 else f"{path}.{i}"
        node.children_ids.append(_walk_yaml(child, child_path, depth + 1, node.id, source, out))
    return node.id


def load_yaml_taxonomy(path: Path | str) -> Taxonomy:
    path = Path(path)
    try:
        raw = yaml_load.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise TaxonomyError(f"{path}: invalid YAML: {exc}") from exc
    nodes: list[FallacyNode] = []
    _walk_yaml(raw, "0", 0, None, str(path), nodes)
    return Taxonomy(nodes, str(path))


@lru_cache(maxsize=1)
def builtin_taxonomy() -> Taxonomy:
    """The project's own taxonomy (shipped in the package; never reads ../shared)."""
    return load_yaml_taxonomy(BUILTIN_TAXONOMY)


# ---------------------------------------------------------------- Argumentum CSV (flat, dotted path)

_CSV_REQUIRED = ("PK", "path", "text_fr")


def _argumentum_rows(path: Path) -> list[tuple[int, dict[str, str]]]:
    """(line, row) of the CSV file, its required columns checked."""
    try:
        handle = path.open(encoding="utf-8-sig", newline="")
    except OSError as exc:
        raise TaxonomyError(f"{path}: cannot read: {exc}") from exc
    with handle:
        reader = csv.DictReader(handle)
        header = reader.fieldnames or []
        missing = [c for c in _CSV_REQUIRED if c not in header]
        if missing:
            raise TaxonomyError(f"{path}:1: not an Argumentum taxonomy, missing column(s) {', '.join(missing)}")
        return [(reader.line_num or lineno, row) for lineno, row in enumerate(reader, start=2)]


def _argumentum_place(path: Path, line: int, row: dict[str, str], warnings: list[str]) -> tuple[str, str, int]:
    """(PK, dotted path, depth) of a row; a ``depth`` column that disagrees with the path is a warning."""
    pk, dotted = (row.get("PK") or "").strip(), (row.get("path") or "").strip()
    if not pk or not dotted:
        raise TaxonomyError(f"{path}:{line}: empty PK or path")
    if any(not part.isdigit() for part in dotted.split(".")):
        raise TaxonomyError(f"{path}:{line}: path {dotted!r} is not dotted integers")
    depth = 0 if dotted == "0" else dotted.count(".") + 1
    declared = (row.get("depth") or "").strip()
    if declared and declared.replace(".0", "").isdigit() and int(float(declared)) != depth:
        # the reference file has such a row (PK 824): the path is what places a node, so keep it
        warnings.append(f"{path}:{line}: depth {declared} disagrees with path {dotted!r}; using {depth}")
    return pk, dotted, depth


def _argumentum_node(path: Path, line: int, row: dict[str, str], pk: str, dotted: str, depth: int) -> FallacyNode:
    """The node of a placed row (its French name is required)."""
    text_fr = (row.get("text_fr") or "").strip()
    if not text_fr:
        raise TaxonomyError(f"{path}:{line}: empty text_fr for PK {pk}")
    return FallacyNode(
        id=pk,
        path=dotted,
        depth=depth,
        name_fr=text_fr,
        name_en=(row.get("text_en") or "").strip(),
        definition_fr=(row.get("desc_fr") or "").strip(),
        definition_en=(row.get("desc_en") or "").strip(),
        example_fr=(row.get("example_fr") or "").strip(),
    )


def load_argumentum_csv(path: Path | str) -> Taxonomy:
    """Load the Argumentum format: one row per node, ``path`` dotted ('0' is the root, '1.2' a child of '1').

    ``depth`` is checked against the path when present; parents must exist; rows may come in any order.
    """
    path = Path(path)
    nodes: dict[str, FallacyNode] = {}
    by_path: dict[str, str] = {}
    warnings: list[str] = []
    for line, row in _argumentum_rows(path):
        pk, dotted, depth = _argumentum_place(path, line, row, warnings)
        if pk in nodes:
            raise TaxonomyError(f"{path}:{line}: duplicate PK {pk}")
        if dotted in by_path:
            raise TaxonomyError(f"{path}:{line}: duplicate path {dotted}")
        nodes[pk] = _argumentum_node(path, line, row, pk, dotted, depth)
        by_path[dotted] = pk
    for pk, node in nodes.items():
        if node.depth == 0:
            continue
        parent_path = "0" if node.depth == 1 else node.path.rsplit(".", 1)[0]
        parent_pk = by_path.get(parent_path)
        if parent_pk is None:
            raise TaxonomyError(f"{path}: node PK {pk} (path {node.path}) has no parent row with path {parent_path}")
        node.parent_id = parent_pk

    # children in path order (numeric), independent of row order
    def key(n: FallacyNode) -> list[int]:
        return [int(p) for p in n.path.split(".")]

    for node in sorted(nodes.values(), key=key):
        if node.parent_id is not None:
            nodes[node.parent_id].children_ids.append(node.id)
    taxonomy = Taxonomy(list(nodes.values()), str(path))
    taxonomy.warnings = warnings
    return taxonomy


def load_taxonomy(path: Path | str | None = None) -> Taxonomy:
    """The built-in taxonomy when ``path`` is None; otherwise by extension (.csv or .yaml/.yml)."""
    if path is None:
        return builtin_taxonomy()
    p = Path(path)
    if p.suffix.lower() == ".csv":
        return load_argumentum_csv(p)
    if p.suffix.lower() in (".yaml", ".yml"):
        return load_yaml_taxonomy(p)
    raise TaxonomyError(f"{p}: unknown taxonomy format (expected .csv in Argumentum format or .yaml)")

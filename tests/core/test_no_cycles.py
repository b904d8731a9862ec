"""No import cycle in the package (issue 28): every strongly connected component of lexlogic's import graph
is one module. A cycle is two modules that each need the other: the shared piece belongs in a third place.

grimp reads source without running it and cannot follow the editable install's import hook, so, as
scripts/lint does, we mirror the package-dir mapping as a tree of symlinks and build the graph from there
(in a child process, so this process's own `lexlogic` import is untouched)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
LAYERS = ["api", "bridges", "engine", "logic", "sandbox"]

# Tarjan's algorithm over grimp's direct imports; prints the components with more than one module.
_FIND_CYCLES = """
import json, sys
import grimp

graph = grimp.build_graph("lexlogic", cache_dir=None)
modules = sorted(graph.modules)
index, low, on_stack, stack, components = {}, {}, set(), [], []
sys.setrecursionlimit(10000)

def visit(module):
    index[module] = low[module] = len(index)
    stack.append(module)
    on_stack.add(module)
    for target in sorted(graph.find_modules_directly_imported_by(module)):
        if target not in index:
            visit(target)
            low[module] = min(low[module], low[target])
        elif target in on_stack:
            low[module] = min(low[module], index[target])
    if low[module] == index[module]:
        component = []
        while True:
            member = stack.pop()
            on_stack.discard(member)
            component.append(member)
            if member == module:
                break
        if len(component) > 1:
            components.append(sorted(component))

for module in modules:
    if module not in index:
        visit(module)
print(json.dumps({"modules": len(modules), "cycles": components}))
"""


def _link_tree(root: Path) -> Path:
    """The installed namespace as symlinks: root/lexlogic/<layer>/… → the repository's <layer>/…."""
    package = root / "lexlogic"
    package.mkdir(parents=True)
    (package / "__init__.py").symlink_to(REPO / "lexlogic" / "__init__.py")
    for layer in LAYERS:
        for source in (REPO / layer).rglob("*.py"):
            if "__pycache__" in source.parts:
                continue
            target = package / source.relative_to(REPO)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.symlink_to(source)
    return root


def test_the_import_graph_has_no_cycle(tmp_path: Path) -> None:
    tree = _link_tree(tmp_path / "tree")
    run = subprocess.run([sys.executable, "-c", _FIND_CYCLES], cwd=tree, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    found = json.loads(run.stdout)
    assert found["modules"] > 100, f"grimp saw only {found['modules']} modules: the link tree is wrong"
    assert found["cycles"] == [], "import cycles (each list is one strongly connected component):\n" + "\n".join(
        " ↔ ".join(component) for component in found["cycles"]
    )

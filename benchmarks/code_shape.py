"""The code's shape, as the next engineer meets it: functions over 80 lines and over cyclomatic complexity 15.

    .venv/bin/python benchmarks/code_shape.py            # counts, then the worst offenders
    .venv/bin/python benchmarks/code_shape.py --all      # every function over either limit

Lines: a function's span in the source (``def`` to its last line, decorators excluded), read with ``ast``.
Complexity: ruff's C901 (McCabe), asked for every function above the limit whatever pyproject says, so the
count does not depend on the lint's per-file ignores. Covers the installed layers (api, bridges, engine,
logic, sandbox); tests, benchmarks and scripts are not counted.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
LAYERS = ["api", "bridges", "engine", "logic", "sandbox"]
MAX_LINES, MAX_COMPLEXITY = 80, 15


def long_functions(limit: int = MAX_LINES) -> list[tuple[int, str]]:
    """(lines, file:line name) of every function longer than ``limit`` lines."""
    out: list[tuple[int, str]] = []
    for layer in LAYERS:
        for path in sorted((REPO / layer).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
            for node in ast.walk(tree):
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                    span = (node.end_lineno or node.lineno) - node.lineno + 1
                    if span > limit:
                        out.append((span, f"{path.relative_to(REPO)}:{node.lineno} {node.name}"))
    return sorted(out, reverse=True)


def complex_functions(limit: int = MAX_COMPLEXITY) -> list[tuple[int, str]]:
    """(complexity, file:line name) of every function above ``limit``, by ruff's C901."""
    ruff = Path(sys.executable).with_name("ruff")
    run = subprocess.run(
        [str(ruff), "check", "--isolated", "--select", "C901", "--config", f"lint.mccabe.max-complexity={limit}"]
        + ["--output-format", "json", *LAYERS],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    if run.returncode not in (0, 1):
        raise SystemExit(f"ruff failed: {run.stderr.strip()}")
    out: list[tuple[int, str]] = []
    for item in json.loads(run.stdout or "[]"):
        m = re.match(r"`(.+)` is too complex \((\d+) > \d+\)", item["message"])
        if m:
            where = f"{Path(item['filename']).relative_to(REPO)}:{item['location']['row']} {m.group(1)}"
            out.append((int(m.group(2)), where))
    return sorted(out, reverse=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--all", action="store_true", help="list every function over a limit, not the worst ten")
    args = ap.parse_args()
    long, complex_ = long_functions(), complex_functions()
    print(f"functions over {MAX_LINES} lines: {len(long)}")
    print(f"functions over complexity {MAX_COMPLEXITY}: {len(complex_)}")
    shown = None if args.all else 10
    print("\nlongest (lines):")
    for n, where in long[:shown]:
        print(f"  {n:4d}  {where}")
    print("\nmost complex (McCabe):")
    for n, where in complex_[:shown]:
        print(f"  {n:4d}  {where}")


if __name__ == "__main__":
    main()

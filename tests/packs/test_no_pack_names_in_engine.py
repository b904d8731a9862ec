"""The law lives in rules/ only: no shipped pack's name, fact or outcome in `engine/`, `api/`, `bridges/`.

Names with an underscore (``notice_written``, ``late_payment``) are searched everywhere (code, comments,
docstrings); one-word names (``rupture``, ``liable``, ``paid``) only as a quoted literal (``"liable"``),
since the same word in prose is no reference to a pack.

ALLOWED lists today's remaining offenders, each with its owner and the number of lines it may still
have: the list must only shrink (lower a count when a file gets cleaner; delete the entry at zero). A new
offender (a file not listed, or a listed file with more lines than allowed) fails the test.
"""

from __future__ import annotations

import re
from pathlib import Path

from lexlogic.logic.pack import find_packs, load_pack

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = ("engine", "api", "bridges")
SUFFIXES = {".py", ".yaml", ".yml", ".js", ".html", ".css", ".json", ".jinja"}

# file -> (lines allowed, why, who removes them)
ALLOWED: dict[str, tuple[int, str]] = {}  # empty again since issue 29 renamed the epistemic field (2026-11-28)


def _patterns() -> tuple[re.Pattern[str], re.Pattern[str]]:
    names: set[str] = set()
    for root in find_packs(ROOT / "rules"):
        pack = load_pack(root)
        names |= {pack.name, pack.manifest.target, *pack.facts, *pack.manifest.outcomes}
        names |= {c.outcome for c in pack.manifest.checks} | {c.output for c in pack.computations}
    compound = sorted((n for n in names if "_" in n), key=len, reverse=True)
    single = sorted(n for n in names if "_" not in n)
    anywhere = re.compile(r"(?<![A-Za-z0-9_])(" + "|".join(map(re.escape, compound)) + r")(?![A-Za-z0-9_])")
    quoted = re.compile(r"""(["'])(""" + "|".join(map(re.escape, single)) + r""")\1""")
    return anywhere, quoted


def offenders() -> dict[str, list[str]]:
    """file -> its offending lines (``line: names``)."""
    anywhere, quoted = _patterns()
    found: dict[str, list[str]] = {}
    for folder in FOLDERS:
        for path in sorted((ROOT / folder).rglob("*")):
            if path.suffix not in SUFFIXES or "__pycache__" in path.parts or not path.is_file():
                continue
            rel = path.relative_to(ROOT).as_posix()
            for i, line in enumerate(path.read_text(encoding="utf-8", errors="ignore").splitlines(), start=1):
                hits = [m.group(1) for m in anywhere.finditer(line)] + [m.group(2) for m in quoted.finditer(line)]
                if hits:
                    found.setdefault(rel, []).append(f"{i}: {', '.join(dict.fromkeys(hits))}")
    return found


def test_no_new_pack_names_in_engine_api_bridges() -> None:
    found = offenders()
    new = {f: lines for f, lines in found.items() if f not in ALLOWED}
    grown = {f: lines for f, lines in found.items() if f in ALLOWED and len(lines) > ALLOWED[f][0]}
    assert not new, "pack names outside rules/ (move them to pack data):\n" + "\n".join(
        f"{f}:{line}" for f, lines in new.items() for line in lines
    )
    assert not grown, "an allowed offender grew:\n" + "\n".join(
        f"{f}: {len(lines)} lines > {ALLOWED[f][0]} allowed\n  " + "\n  ".join(lines) for f, lines in grown.items()
    )


def test_the_allow_list_is_tight() -> None:
    """An allowance larger than what is left would let new pack names back in unseen: it shrinks with the code."""
    found = offenders()
    loose = {f: (n, len(found.get(f, []))) for f, (n, _) in ALLOWED.items() if len(found.get(f, [])) < n}
    assert not loose, "shrink the allow-list (file: allowed, found): " + ", ".join(
        f"{f}: {n}, {k}" for f, (n, k) in loose.items()
    )

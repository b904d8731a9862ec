"""Issue 33 (the review of session 6): no module-level cache of RESULTS — what the engine remembers belongs to the
run (``RunMemo.memos``), the verdict service or the pack library, and is passed in (``memos=``).

The scan (AST, the package folders) flags a module-level assignment of an EMPTY container (``{}``, ``[]``,
``set()``, ``dict()``…) or of a memo-like constructor (``OrderedDict``, ``IdentityMemo``, ``defaultdict``,
``deque``, ``Counter``, weak dictionaries) — what exists only to be filled at run time. A literal table of
constants (``{"no": 0, …}``, ``set("…".split())``) is not flagged. ``ALLOWED`` lists what may stay, with why:
memos of pure functions of CONSTANTS (a regex per cue, a TypeAdapter per type, an arange per length) and
process-level resources that are not results of a case, a pack or a model. ``PENDING`` lists result caches
not yet moved (the debt, named so it shrinks: a moved one must leave the list)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE_DIRS = ["api", "engine", "bridges", "logic", "sandbox", "lexlogic"]
MEMO_LIKE = {
    "OrderedDict",
    "IdentityMemo",
    "defaultdict",
    "deque",
    "Counter",
    "WeakKeyDictionary",
    "WeakValueDictionary",
}
EMPTY_CALLS = {"dict", "list", "set"}

ALLOWED: dict[str, str] = {
    # pure functions of constants: the same key gives the same value in any run, for any pack
    "logic/facts.py:_ADAPTERS": "a pydantic TypeAdapter per FactType (an enum of six)",
    "engine/prob/jl_vec.py:_ARANGES": "np.arange(n) per length n (16 kept)",
    "engine/prob/jl_vec.py:_USED": "a JSON-Logic tree's variables and operators, under the tree object itself (held,"
    " checked with `is`): a pure function of its key, it cannot serve one owner's result to another",
    "engine/perception/reader.py:_RX": "the compiled regex of a cue string (a pure function of the string)",
    "engine/perception/reader.py:_VRX": "the compiled verb regex of a cue string (a pure function of the string)",
    "engine/perception/amounts.py:_WORDS_RX": "one compiled regex of the number words, built on first use",
    "engine/text/numbers.py:MONTHS": "the French month table, filled at import by a loop",
    "engine/claims/retrieval.py:LEXICON_SKIP": "a retrieval tuning knob (empty), never written by the package",
    # process-level resources and state, not results of a case, a pack or a model
    "bridges/fol_prolog.py:_CACHE": "mirrors the programs loaded in the process's one SWI-Prolog engine",
    "bridges/fol_prolog.py:_BY_ID": "a belief set's fingerprint for the one SWI-Prolog engine (checked by version)",
    "bridges/spacy_nlp.py:_ahead": "docs parsed ahead in a batch, each taken once (a hand-over, not a memo)",
    "sandbox/worker.py:_cache": "the sandbox WORKER process's compiled rules (that process is the owner; per tenant)",
    "sandbox/worker.py:_cfg": "the sandbox worker process's configuration, set once at its start",
    "engine/store/db.py:_READS": "point-read helpers per SQLAlchemy engine, weakly held (die with the engine)",
    "engine/store/schema.py:_done": "database URLs whose schema this process has upgraded",
    "engine/jobs/batch_store.py:_by_engine": "one batch store per database engine of the process",
    "engine/jobs/tasks.py:_made": "the worker process's case stores (closed at its shutdown)",
    "engine/jobs/tasks.py:_health_cache": "the broker's health, a few seconds (not a result)",
    # keyed by CONTENT (a digest, ids and dependencies): a pure function of the key, right for any owner
    "engine/packs/library.py:_by_digest": "a pack folder's compiled pack under its sha256: libraries share the"
    " compiled objects, each library keeps its own loaded packs and memos (PackLibrary.memos)",
    "engine/case/planner.py:_ORDERS": "a topological order under the tasks' ids and dependencies (content)",
    "engine/fallacies/embedding_index.py:_INDEXES": "the embedding index of a taxonomy under its content hash",
    "api/routers/fallacies.py:_TAXONOMY": "the shipped fallacy taxonomy (reference data), loaded once",
    # the process's owners: a pool or Celery worker's entry point receives a folder name, not an object
    "engine/jobs/portfolio_groups.py:_LIBRARIES": "the pool process's pack library per rules folder (each holds"
    " its memos: a chunk's cases share them, as the process's did)",
    "engine/jobs/tasks.py:_libraries": "the Celery worker process's pack library per rules folder (and its memos)",
}

PENDING: dict[str, str] = {}  # result caches still module-level (none left): the owner each belongs to


def _top(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    for node in body:
        if isinstance(node, ast.If | ast.Try):
            yield from _top(node.body)
            yield from _top(node.orelse)
        else:
            yield node


def _memo_like(value: ast.expr) -> bool:
    if isinstance(value, ast.Dict):
        return not value.keys
    if isinstance(value, ast.List | ast.Set):
        return not value.elts
    if isinstance(value, ast.Call):
        f = value.func
        name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
        return name in MEMO_LIKE or (name in EMPTY_CALLS and not value.args and not value.keywords)
    return False


def module_caches(path: Path, rel: str) -> list[str]:
    """``rel:NAME`` of every module-level assignment of an empty container or a memo-like object."""
    found = []
    for node in _top(ast.parse(path.read_text(encoding="utf-8")).body):
        if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None and _memo_like(node.value):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            found += [f"{rel}:{ast.unparse(t)}" for t in targets]
    return found


def _scan() -> list[str]:
    found = []
    for folder in PACKAGE_DIRS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            found += module_caches(path, path.relative_to(ROOT).as_posix())
    return found


def test_no_module_level_cache_outside_the_allow_list() -> None:
    offenders = [f for f in _scan() if f not in ALLOWED and f not in PENDING]
    assert offenders == [], "module-level caches (make them an owner's, passed in — logic/memos.py):\n" + "\n".join(
        offenders
    )


def test_the_lists_name_what_exists() -> None:  # a moved cache leaves PENDING; a removed one leaves ALLOWED
    found = set(_scan())
    assert sorted(set(ALLOWED) - found) == []
    assert sorted(set(PENDING) - found) == []


def test_the_scan_sees_a_cache(tmp_path: Path) -> None:  # the guard above can fail
    sample = tmp_path / "m.py"
    sample.write_text(
        "from collections import OrderedDict\nA = {}\nB: dict[int, int] = {}\nC = OrderedDict()\n"
        "D = IdentityMemo(8)\nE = {'no': 0}\nF = set('a b'.split())\nG = []\nif True:\n    H = set()\n"
        "def f():\n    I = {}\n"
    )
    assert module_caches(sample, "m.py") == ["m.py:A", "m.py:B", "m.py:C", "m.py:D", "m.py:G", "m.py:H"]

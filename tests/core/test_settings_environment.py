"""``Settings`` reads the environment as pydantic-settings' ``BaseSettings`` did (issue 33: it no longer imports
pydantic-settings, whose import cost 30–60 ms of every cold command): the same values, the same fields set,
the same errors, for the same variables — checked against a ``BaseSettings`` twin with the same fields."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError, create_model
from pydantic_settings import BaseSettings, SettingsConfigDict

from lexlogic.settings import Settings


def _twin() -> type[BaseSettings]:
    fields: Any = {name: (f.annotation, f) for name, f in Settings.model_fields.items()}
    base = type("Base", (BaseSettings,), {"model_config": SettingsConfigDict(env_prefix="LEXLOGIC_", extra="ignore", frozen=True)})  # fmt: skip
    return create_model("Twin", __base__=base, **fields)


def _outcome(cls: type, **values: Any) -> Any:
    try:
        s = cls(**values)
    except ValidationError as exc:
        return [(e["loc"], e["msg"], e["input"]) for e in exc.errors()]
    return s.model_dump(), s.model_fields_set


ENVIRONMENTS = [
    {},
    {"LEXLOGIC_HOME": "/srv/lexlogic", "LEXLOGIC_NO_CACHE": "1", "LEXLOGIC_RUN_WAIT_SECONDS": "12.5"},
    {"lexlogic_home": "/lower/case", "Lexlogic_Sandbox_Workers": "3", "LEXLOGIC_DEFAULT_PACK": ""},
    {"LEXLOGIC_DATABASE_URL": "postgresql://x@h/db", "LEXLOGIC_RESUME": "off", "LEXLOGIC_UNKNOWN": "ignored"},
    {"LEXLOGIC_API_DATA": "", "LEXLOGIC_LLM_MODEL": "  spaced  ", "OTHER_HOME": "/not/ours"},
    {"LEXLOGIC_RUN_WAIT_SECONDS": "abc"},
    {"LEXLOGIC_RUN_WAIT_SECONDS": "-1", "LEXLOGIC_SANDBOX_WORKERS": "1.5"},
    {"LEXLOGIC_NO_CACHE": "maybe"},
    {"LEXLOGIC_INFERENCE_TARGET_SE": "0.7"},
]


@pytest.mark.parametrize("environment", ENVIRONMENTS)
def test_the_environment_is_read_as_base_settings_read_it(
    environment: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for key in [k for k in __import__("os").environ if k.lower().startswith("lexlogic_")]:
        monkeypatch.delenv(key)
    for key, value in environment.items():
        monkeypatch.setenv(key, value)
    twin = _twin()
    assert _outcome(Settings) == _outcome(twin)
    # values given to the constructor win over the environment, in both
    assert _outcome(Settings, home="/given", queue_prefix="q") == _outcome(twin, home="/given", queue_prefix="q")


def test_a_bad_variable_is_reported_with_its_name_by_the_cli(monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from lexlogic.api.cli import app

    monkeypatch.setenv("LEXLOGIC_RUN_WAIT_SECONDS", "abc")
    facts = Path(__file__).resolve().parents[2] / "examples" / "rupture_brutale" / "facts.json"
    result = CliRunner().invoke(app, ["analyze", str(facts), "--no-input"])
    assert result.exit_code == 2
    assert "LEXLOGIC_RUN_WAIT_SECONDS" in result.output


def test_the_cli_does_not_import_pydantic_settings() -> None:
    import subprocess
    import sys

    code = "import sys, lexlogic.api.cli; from lexlogic.settings import Settings; Settings(); print('pydantic_settings' in sys.modules)"  # fmt: skip
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_the_pack_cache_folder(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Under the home when it was set, else the user's cache folder; none without caches or without a home folder."""
    for key in [k for k in __import__("os").environ if k.lower().startswith("lexlogic_")]:
        monkeypatch.delenv(key)
    assert Settings(home=tmp_path).packs_cache == tmp_path / "cache" / "packs"
    assert Settings(home=tmp_path, no_cache=True).packs_cache is None
    assert Settings().packs_cache == Path.home() / ".cache" / "lexlogic" / "packs"

    def nowhere() -> Path:
        raise RuntimeError("Could not determine home directory.")

    monkeypatch.setattr(Path, "home", staticmethod(nowhere))
    assert Settings().packs_cache is None

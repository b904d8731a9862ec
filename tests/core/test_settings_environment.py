"""``Settings`` at the edge: a bad variable is named by the CLI; where the pack cache lives (issue 33)."""

from __future__ import annotations

from pathlib import Path

import pytest

from lexlogic.settings import Settings


def test_a_bad_variable_is_reported_with_its_name_by_the_cli(monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from lexlogic.api.cli import app

    monkeypatch.setenv("LEXLOGIC_RUN_WAIT_SECONDS", "abc")
    facts = Path(__file__).resolve().parents[2] / "examples" / "rupture_brutale" / "facts.json"
    result = CliRunner().invoke(app, ["analyze", str(facts), "--no-input"])
    assert result.exit_code == 2
    assert "LEXLOGIC_RUN_WAIT_SECONDS" in result.output


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

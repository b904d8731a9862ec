"""`lexlogic fallacies TEXT_OR_FILE`: fallacy analysis of an argument (confirmed fallacies or "no fallacy")."""

from __future__ import annotations

import sys
from enum import Enum
from pathlib import Path

import typer


class NavigatorChoice(str, Enum):
    auto = "auto"
    llm = "llm"
    offline = "offline"


from lexlogic.api.cli_common import OutputFormat, fail
from lexlogic.api.context import current


def _read_argument(text_or_file: str) -> str:
    if text_or_file == "-":
        return sys.stdin.read()
    path = Path(text_or_file)
    try:  # a long argument given as text is not a path: is_file() raises ENAMETOOLONG on it
        is_file = len(text_or_file) < 4096 and "\n" not in text_or_file and path.is_file()
    except OSError:
        is_file = False
    if is_file:
        try:
            return path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            fail(f"{path}: cannot read: {exc}")
    return text_or_file


def register(app: typer.Typer) -> None:
    """Add this capability's commands to `app`."""

    @app.command("fallacies")
    def fallacies(
        text_or_file: str = typer.Argument(..., help="the argument text, a UTF-8 file holding it, or - for stdin"),
        taxonomy: Path | None = typer.Option(
            None, "--taxonomy", help="an Argumentum CSV (or YAML) taxonomy; default: built-in"
        ),
        fmt: OutputFormat = typer.Option(OutputFormat.text, "--format", help="text or json"),
        navigator: NavigatorChoice = typer.Option(
            NavigatorChoice.auto, "--navigator", help="auto: LLM when LEXLOGIC_LLM_BASE_URL is set, else offline"
        ),
        beam: int = typer.Option(2, "--beam", min=1, max=8, help="branches opened per step"),
    ) -> None:
        """Analyse an argument for fallacies by guided navigation of a taxonomy."""
        from lexlogic.bridges.llm import LLMError
        from lexlogic.engine.fallacies.analyse import NavigatorUnavailable, analyse, make_navigator
        from lexlogic.engine.fallacies.taxonomy import TaxonomyError, load_taxonomy

        argument = _read_argument(text_or_file).strip()
        if not argument:
            fail("the argument is empty")
        try:
            tax = load_taxonomy(taxonomy)
            from lexlogic.bridges.llm import LLMClient

            settings = current().settings
            nav = make_navigator(navigator.value, LLMClient.from_settings(settings), settings.fallacies_cache)
            result = analyse(argument, tax, nav, beam_width=beam)
        except TaxonomyError as exc:
            fail(str(exc))
        except NavigatorUnavailable as exc:
            fail(str(exc))
        except LLMError as exc:
            fail(f"LLM navigator: {exc}")
        if fmt is OutputFormat.json:
            typer.echo(result.model_dump_json(indent=2))
            return
        if not result.confirmed:
            typer.echo(f"no fallacy: {result.reason}")
            return
        for f in result.confirmed:
            typer.echo(f"{f.name_fr} / {f.name_en}  [id {f.node_id}, path {f.path}]  confidence {f.confidence:.2f}")
            typer.echo(f"  {' > '.join(f.trail)}")
            typer.echo(f"  {f.justification}")

"""The main job behind `lexlogic analyze`: symbolic analysis, probabilistic verdict, output."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer
from rich.console import Console

from api.render import render_analysis
from bridges.clingo_bridge import CompiledProgram
from engine.analysis import analyse
from logic.facts import CaseFile
from logic.pack import RulePack

out = Console(highlight=False, soft_wrap=True)


def analyse_facts(pack: RulePack, program: CompiledProgram, case: CaseFile, *, format: str,
                  answers: dict[str, Any], whatif: dict[str, Any], interactive: bool,
                  html: Path | None) -> None:
    result = analyse(pack, program, case, answers)
    if format == "json":
        payload = result.model_dump(mode="json", exclude={"values"})
        payload["values"] = {k: {"status": v.status.value, "value": v.value, "missing": v.missing}
                             for k, v in result.values.items()}
        print(json.dumps(payload, ensure_ascii=False, indent=2))
    else:
        print(render_analysis(result))


def analyse_dossier(source: Path, **kwargs: Any) -> None:
    from engine.dossier import run_dossier  # the case pipeline (documents → facts → verdict)

    run_dossier(source, **kwargs)
    raise typer.Exit(code=0)

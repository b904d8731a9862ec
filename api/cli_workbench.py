"""`lexlogic audit`: the legal engineer's workbench on the command line (thin: the work is in
``engine/workbench/``)."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from lexlogic.api.cli_common import LazyConsole, OutputFormat, fail
from lexlogic.api.cli_rules import _packs_path
from lexlogic.engine.packs.library import load_folder
from lexlogic.logic.pack import PackError, find_packs

out = LazyConsole(highlight=False, soft_wrap=True, markup=False, emoji=False)


def audit(
    path: Path | None = typer.Argument(
        None, help="a pack folder, a folder of packs, or a pack's name under --rules (default: the rules folder)"
    ),
    time_limit: float | None = typer.Option(
        None, "--time-limit", help="seconds per pack (default: audit.yaml's time_limit_s, else 60)"
    ),
    write: Path | None = typer.Option(None, "--write", help="write each finding's counterexample facts file here"),
    format: OutputFormat = typer.Option(OutputFormat.text, "--format"),
) -> None:
    """Gaps, conflicts, dead rules and shadowed exceptions over every combination of the pack's inputs.

    Exit 1 when a finding is neither fixed nor accepted (with its reason) in the pack's audit.yaml, or when
    the time budget ran out; 2 on a broken pack."""
    from lexlogic.engine.workbench.audit import audit_pack, write_counterexamples

    roots = find_packs(_packs_path(path))
    if not roots:
        fail(f"{path}: no pack.yaml found")
    failing = False
    reports = []
    for root in roots:
        try:
            loaded = load_folder(root)
            pack, program = loaded.pack, loaded.program
            report = audit_pack(pack, program, time_limit)
        except PackError as exc:
            fail(exc)
        reports.append(report)
        failing |= bool(report.open_findings) or not report.complete
        files = write_counterexamples(report, write / pack.name) if write else []
        if format is OutputFormat.text:
            _print(report, root, files)
    if format is OutputFormat.json:
        print(json.dumps([r.model_dump(mode="json") for r in reports], ensure_ascii=False, indent=2))
    if failing:
        raise typer.Exit(code=1)


def _print(report: object, root: Path, files: list[Path]) -> None:
    from lexlogic.engine.workbench.audit import AuditReport

    assert isinstance(report, AuditReport)
    head = "complete" if report.complete else "INCOMPLETE (time budget spent)"
    out.print(f"{root}: {len(report.open_findings)} open finding(s), {len(report.findings)} in all, search {head}")
    for finding in report.findings:
        state = f"accepted: {finding.accepted}" if finding.accepted else "OPEN"
        out.print(f"  [{finding.kind}] {finding.subject} — {state}")
        out.print(f"      {finding.message}")
        for rule in finding.rules:
            out.print(f"      rule {rule}")
        if finding.counterexample is not None:
            out.print("      counterexample: " + json.dumps(finding.counterexample["facts"], ensure_ascii=False))
        if finding.assumed:
            out.print("      assuming computed values: " + json.dumps(finding.assumed, ensure_ascii=False))
    for acc in report.stale:
        out.print(f"  stale acceptance in audit.yaml: [{acc.kind}] {acc.subject} is no longer found")
    for file in files:
        out.print(f"  wrote {file}")


def impact(
    portfolio: Path = typer.Argument(
        ..., help="a folder of case files and dossier folders, or a JSON-lines file of cases"
    ),
    base: str = typer.Option(..., "--base", help="the rules before the change: a git ref or a rules folder"),
    rules: Path | None = typer.Option(None, "--rules", help="the rules after the change (default: the rules folder)"),
    format: str = typer.Option("text", "--format", help="text | markdown | json"),
    fail_on_flip: bool = typer.Option(False, "--fail-on-flip", help="exit 1 when a case flips (for CI)"),
    batch: bool = typer.Option(
        False,
        "--batch",
        help="run both versions as one batch: Celery workers when a broker is set, else local processes",
    ),
    local: bool = typer.Option(False, "--local", help="with --batch: the local pool even when a broker is set"),
    concurrency: int | None = typer.Option(None, "--concurrency", "-c", min=1, help="with --batch: local processes"),
    timeout: float | None = typer.Option(None, "--timeout", min=1, help="with --batch: give up waiting after N s"),
    db: str | None = typer.Option(
        None,
        "--db",
        help="database URL for the runs (default: with --batch LEXLOGIC_DATABASE_URL, else a scratch file)",
    ),
) -> None:
    """The same portfolio under two versions of the rules: flips, ΔP(target), shifts, why."""
    import tempfile

    from lexlogic.api.context import current
    from lexlogic.engine.jobs.impact_runs import impact as run_impact
    from lexlogic.engine.workbench import impact as im

    if format not in ("text", "markdown", "json"):
        fail(f"--format {format!r}: expected text, markdown or json")
    new_folder = rules if rules is not None else current().packs.root
    if not new_folder.is_dir():
        fail(f"--rules {new_folder}: not a folder")
    # the workers read the rules folders by path (same machine or shared disk): a git ref is exported under
    # the scratch folder, which lives until the report is written
    with tempfile.TemporaryDirectory(prefix="lexlogic-impact-") as tmp:
        base_folder = Path(base)
        if not base_folder.is_dir():
            base_folder = im.rules_at_ref(new_folder, base, Path(tmp) / "base")
        report = run_impact(
            portfolio,
            im.Rules(base_folder, base),
            im.Rules(new_folder, str(new_folder)),
            scratch=Path(tmp),
            mode="batch" if batch else "here",
            settings=current().settings,
            db_url=db or (current().settings.database if batch else None),
            distributed=False if local else None,
            concurrency=concurrency,
            timeout=timeout,
        )
    render = {"text": im.render_text, "markdown": im.render_markdown, "json": im.render_json}[format]
    print(render(report), end="")
    if fail_on_flip and report.flipped:
        raise typer.Exit(code=1)


def mutate(
    path: Path | None = typer.Argument(
        None, help="a pack folder, a folder of packs, or a pack's name under --rules (default: the rules folder)"
    ),
    properties: bool = typer.Option(False, help="also run the properties on the mutants the tests let survive"),
    max_examples: int = typer.Option(30, help="examples per property and mutant (with --properties)"),
    time_limit: float | None = typer.Option(None, "--time-limit", help="seconds per pack: stop judging after"),
    min_score: float | None = typer.Option(None, "--min-score", help="exit 1 below this score (0 to 1)"),
) -> None:
    """Mutation testing: break the rules one change at a time; list the mutants no test notices."""
    from lexlogic.engine.workbench.mutate import mutate as run
    from lexlogic.engine.workbench.mutate import render
    from lexlogic.engine.workbench.ruletests import pack_properties, pack_tests

    roots = find_packs(_packs_path(path))
    if not roots:
        fail(f"{path}: no pack.yaml found")
    low = False
    for root in roots:
        try:
            pack = load_folder(root).pack
            tests = pack_tests(pack)
            props = pack_properties(pack) if properties else []
        except PackError as exc:
            fail(exc)
        report = run(pack, tests, props, max_examples=max_examples, time_limit_s=time_limit)
        for line in render(report):
            out.print(line)
        low |= min_score is not None and report.score < min_score
    if low:
        raise typer.Exit(code=1)


def lsp() -> None:
    """A language server for pack files over stdio (check's diagnostics as you type, hover, definition,
    completion): see docs/pack-authoring.md for VS Code and Neovim."""
    from lexlogic.api.lsp_server import serve

    serve()


def register(app: typer.Typer) -> None:
    app.command("audit")(audit)
    app.command("impact")(impact)
    app.command("mutate")(mutate)
    app.command("lsp")(lsp)

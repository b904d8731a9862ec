"""CLI for the case pipeline: `lexlogic case run|states|restore|replay` and `lexlogic ingest DIR`."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import typer

case_app = typer.Typer(
    help="Dossier runs: analyse a directory, list/restore/replay persisted states.", no_args_is_help=True
)


from lexlogic.api.cli_common import fail, parse_assignments


@case_app.command("run")
def run(
    directory: Path = typer.Argument(..., help="dossier directory"),
    answer: list[str] = typer.Option([], "--answer", "-a", help="FACT=VALUE (JSON value), repeatable"),
    no_input: bool = typer.Option(False, "--no-input", help="stop at the question instead of asking"),
    fresh: bool = typer.Option(False, "--fresh", help="restart from scratch (ignore saved states)"),
    resume: bool = typer.Option(False, "--resume", help="resume the saved run even if its pieces or pack changed"),
    out: Path | None = typer.Option(None, "--out", help="output directory (report.html, result.json)"),
    db: str | None = typer.Option(None, "--db", help="database URL (default LEXLOGIC_DATABASE_URL or SQLite)"),
    as_json: bool = typer.Option(False, "--json", help="print the result JSON on stdout"),
) -> None:
    """Analyse a dossier directory (resumes the last persisted state of the same dossier)."""
    from lexlogic.api.analyze_command import dossier_console
    from lexlogic.api.context import current
    from lexlogic.api.report_html import render_report
    from lexlogic.engine.case.dossier import run_dossier
    from lexlogic.logic.errors import LexlogicError

    if not directory.is_dir():
        fail(f"{directory}: not a directory")
    if fresh and resume:
        fail("--fresh and --resume: choose one")
    ctx = current()
    try:
        result = run_dossier(
            directory,
            packs=ctx.packs,
            settings=ctx.settings,
            db_url=db,
            answers=parse_assignments(answer, "--answer"),
            fresh=fresh,
            resume=resume,
            out_dir=out,
            render_report=render_report,
            **dossier_console(progress=not as_json, interactive=not no_input),
        )
    except LexlogicError as exc:
        fail(str(exc))
    if as_json:
        typer.echo(result.model_dump_json(indent=1))


@case_app.command("states")
def states(case_id: str, db: str | None = typer.Option(None, "--db")) -> None:
    """List a case's persisted states (time travel)."""
    from lexlogic.api.context import current
    from lexlogic.engine.store.cases import CaseStore

    rows = CaseStore(db or current().settings.database).states(case_id)
    if not rows:
        fail(f"case {case_id!r}: no states")
    for r in rows:
        typer.echo(f"{r['seq']:>4}  {r['phase']:<11} {r['status']:<15} {r['hash']}  {r['note']}")


@case_app.command("list")
def list_cases(db: str | None = typer.Option(None, "--db")) -> None:
    """List the persisted cases."""
    from lexlogic.api.context import current
    from lexlogic.engine.store.cases import CaseStore

    for c in CaseStore(db or current().settings.database).cases():
        typer.echo(f"{c['case_id']}  head={c['head']}  {c['phase']:<11} {c['status']:<15} {c['source']}")


@case_app.command("restore")
def restore(case_id: str, seq: int, db: str | None = typer.Option(None, "--db")) -> None:
    """Make state SEQ the head again (appended; history is kept). The next `case run` resumes from it."""
    from lexlogic.api.context import current
    from lexlogic.engine.store.cases import CaseStore

    try:
        new = CaseStore(db or current().settings.database).restore(case_id, seq)
    except KeyError as exc:
        fail(str(exc.args[0]))
    typer.echo(f"{case_id}: state {seq} restored as state {new}")


@case_app.command("replay")
def replay_cmd(case_id: str, seq: int, db: str | None = typer.Option(None, "--db")) -> None:
    """Re-run a case from state SEQ under the id CASE_ID@SEQ (original untouched)."""
    from lexlogic.api.context import current
    from lexlogic.engine.case.machine import replay
    from lexlogic.engine.store.cases import CaseStore, LeaseTimes

    try:
        settings = current().settings
        store = CaseStore(db or settings.database, LeaseTimes.from_settings(settings))
        state = replay(store, case_id, seq, packs=current().packs, documents_cache=settings.documents_cache)
    except KeyError as exc:
        fail(str(exc.args[0]))
    typer.echo(f"{state.case_id}: {state.phase.value} {state.status} {state.message}")


def ingest(
    directory: Path = typer.Argument(..., help="dossier directory"),
    as_json: bool = typer.Option(False, "--json", help="print documents as JSON"),
    chunks: bool = typer.Option(False, "--chunks", help="also list the chunks"),
) -> None:
    """Ingest a dossier: documents, pages, layout blocks (OCR for scans)."""
    from lexlogic.engine.documents.chunking import chunk_document
    from lexlogic.engine.documents.ingest import IngestError, dossier_files, ingest_dossier

    try:
        from lexlogic.api.context import current

        docs = ingest_dossier(directory, cache=current().settings.documents_cache)
        skipped = dossier_files(directory)[1]
    except IngestError as exc:
        fail(str(exc))
    if as_json:
        typer.echo(json.dumps([d.model_dump(mode="json", exclude={"pages"}) for d in docs], ensure_ascii=False))
        return
    for d in docs:
        ocr = f" OCR p.{d.metadata['ocr_pages']}" if d.metadata.get("ocr_pages") else ""
        kinds: dict[str, int] = {}
        for b in d.blocks:
            kinds[b.kind.value] = kinds.get(b.kind.value, 0) + 1
        typer.echo(
            f"{d.id:<32} {d.kind.value:<14} {d.media_type:<18} {len(d.text):>6} chars "
            f"{len(d.pages)} p.{ocr}  blocks {kinds}"
        )
        if chunks:
            for c in chunk_document(d):
                typer.echo(f"    {c.id} [{c.char_start}:{c.char_end}] {c.section or ''}")
    for p in skipped:
        typer.echo(f"skipped (unsupported): {p}", err=True)


def register(app: typer.Typer) -> None:
    app.add_typer(case_app, name="case")
    app.command("ingest")(ingest)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(case_app())

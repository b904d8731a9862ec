"""`lexlogic batch DIR`: every case file and dossier folder under DIR, one result per line, and a summary.

Distributed over Celery workers when ``LEXLOGIC_BROKER_URL`` is set, on a local process pool otherwise; the
batch id (derived from DIR unless given) makes a second run skip what is done and resume what was not.
"""

from __future__ import annotations

import sys
from enum import Enum
from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table

from lexlogic.api.cli_common import fail


class BatchFormat(str, Enum):
    jsonl = "jsonl"
    csv = "csv"


def batch(
    directory: Path = typer.Argument(..., help="a folder of case files (*.json) and/or dossier folders"),
    out: Path | None = typer.Option(None, "--out", "-o", help="results file (default: standard output)"),
    fmt: BatchFormat = typer.Option(BatchFormat.jsonl, "--format", help="jsonl | csv"),
    batch_id: str | None = typer.Option(None, "--batch-id", help="resume or name a batch (default: from DIR)"),
    concurrency: int | None = typer.Option(None, "--concurrency", "-c", min=1, help="local processes (no broker)"),
    local: bool = typer.Option(False, "--local", help="use the local pool even when a broker is configured"),
    timeout: float | None = typer.Option(None, "--timeout", min=1, help="give up waiting for workers after N s"),
    db: str | None = typer.Option(None, "--db", help="database URL (default LEXLOGIC_DATABASE_URL or SQLite)"),
) -> None:
    """Analyse a portfolio: one line per case (verdict, P(liability), missing facts), then a summary table."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from lexlogic.engine.batch import run_batch, write_results

    if not directory.is_dir():
        fail(f"{directory}: not a directory")
    err = Console(stderr=True)
    progress = Progress(
        TextColumn("[bold]batch[/bold]"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=err,
        disable=not err.is_terminal,
        transient=False,
    )
    task = progress.add_task("batch", total=None)

    def on_progress(done: int, total: int) -> None:
        progress.update(task, completed=done, total=total)

    with progress:
        report = run_batch(
            directory,
            db_url=db,
            batch_id=batch_id,
            concurrency=concurrency,
            distributed=False if local else None,
            timeout=timeout,
            on_progress=on_progress,
        )
    if out is None:
        write_results(report.results, sys.stdout, fmt.value)
        sys.stdout.flush()
    else:
        out.parent.mkdir(parents=True, exist_ok=True)
        with out.open("w", encoding="utf-8", newline="") as fh:
            write_results(report.results, fh, fmt.value)
    _summary(err if out is None else Console(), report)


def _summary(console: Console, report) -> None:  # type: ignore[no-untyped-def]
    s = report.summary
    console.print(
        f"batch [bold]{report.batch_id}[/bold] ({report.mode}): {s.total} results, {report.skipped} already done, "
        f"{report.seconds:.1f} s"
    )
    t = Table(title="verdicts", show_header=True)
    t.add_column("status / verdict")
    t.add_column("cases", justify="right")
    for k, v in s.by_status.items():
        t.add_row(f"status {k}", str(v))
    for k, v in s.by_verdict.items():
        t.add_row(f"verdict {k}", str(v))
    console.print(t)
    p = s.p_liability
    h = Table(title=f"P(liability): mean {p['mean']}, median {p['median']} (n={p['n']})")
    h.add_column("range")
    h.add_column("cases", justify="right")
    for k, v in p["histogram"].items():
        h.add_row(k, f"{v} {'█' * v}")
    console.print(h)
    m = Table(title="top missing facts across the portfolio")
    m.add_column("fact")
    m.add_column("cases", justify="right")
    for fact, n in s.top_missing:
        m.add_row(fact, str(n))
    console.print(m)


def register(app: typer.Typer) -> None:
    app.command("batch")(batch)

"""`lexlogic batch DIR`: every case file and dossier folder under DIR, one result per line, and a summary.

Distributed over Celery workers when ``LEXLOGIC_BROKER_URL`` is set, on a local process pool otherwise; the
batch id (derived from DIR unless given) makes a second run skip what is done and resume what was not.
"""

from __future__ import annotations

import sys
import time
from enum import Enum
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.table import Table

from lexlogic.api.cli_common import fail
from lexlogic.api.progress_view import StepProgress, seconds
from lexlogic.engine.text import formatting
from lexlogic.logic.errors import LexlogicError
from lexlogic.settings import BATCH_SETTINGS, Settings


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
    portfolio: bool = typer.Option(
        False,
        "--portfolio",
        help="case files by groups of the same pack and structure, results only (chunks on the workers when a "
        "broker is configured, else the local pool)",
    ),
    proofs: bool = typer.Option(False, "--proofs", help="with --portfolio: each result carries its proof tree"),
    outage_limit: float = typer.Option(
        900, "--outage-limit", min=1, help="wait out a database/broker outage up to N s (then exit 3; re-run resumes)"
    ),
) -> None:
    """Analyse a portfolio: one line per case (verdict, P(target), missing facts), then a summary per pack."""
    from lexlogic.api.context import current
    from lexlogic.engine.jobs.batch import ItemResult, discover, run_batch

    if not directory.is_dir():
        fail(f"{directory}: not a directory")
    if proofs and not portfolio:
        fail("--proofs goes with --portfolio (case by case, each run's proof is in its stored states)")
    err = Console(stderr=True, soft_wrap=True)
    try:
        n = len(discover(directory))  # the total, fixed before anything runs
    except LexlogicError as exc:
        fail(exc)
    view = StepProgress(err, ["analyses"]) if err.is_terminal else None  # a pipe: one line per finished case
    if view is not None:
        view.start("analyses", n)
    t0 = time.monotonic()

    def on_item(r: ItemResult, rank: int, total: int) -> None:
        if view is not None:
            view.advance(rank, r.key)
            return
        left = (time.monotonic() - t0) / rank * (total - rank) if rank < total else 0.0
        err.print(
            f"[{rank}/{total}] {r.key} — {item_words(r)} — {seconds(time.monotonic() - t0)}"
            + (f", reste ≈ {seconds(left)}" if rank < total else ""),
            highlight=False,
            markup=False,
        )

    common: dict[str, Any] = {
        "packs": current().packs,
        "settings": current().settings,
        "db_url": db or current().settings.database,
        "batch_id": batch_id,
        "concurrency": concurrency,
        "on_item": on_item,
    }
    common.update(
        distributed=False if local else None,
        timeout=timeout,
        on_notice=lambda msg: err.print(f"batch: {msg}", markup=False, highlight=False),
        outage_limit=outage_limit,
    )
    if portfolio:
        from lexlogic.engine.jobs.portfolio import run_portfolio

        report = run_portfolio(directory, proofs=proofs, **common)
    else:
        report = run_batch(directory, **common)
    if view is not None:
        view.stop()
    _write(report.results, out, fmt.value)
    _summary(err if out is None else Console(soft_wrap=True), report)


def _write(results: Any, out: Path | None, fmt: str) -> None:
    """The results file (standard output when no --out)."""
    from lexlogic.engine.jobs.batch import write_results

    if out is None:
        write_results(results, sys.stdout, fmt)  # type: ignore[arg-type]
        sys.stdout.flush()
        return
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", encoding="utf-8", newline="") as fh:
        write_results(results, fh, fmt)  # type: ignore[arg-type]


def item_words(r: Any) -> str:
    """One finished case in the verdict's own words: status, the target's state, P(target)."""
    if r.status == "invalid":
        return f"invalide : {r.message}"
    words = [r.status_text or STATUS_WORDS.get(r.status, r.status)]
    if r.target_label and r.target_state:
        words.append(f"{r.target_label} : {r.target_state}")
    if r.p_liability is not None:
        words.append(f"P = {formatting.probability(r.p_liability)}")
    if r.question:
        words.append("une question attend une réponse")
    return ", ".join(words)


MODE_WORDS = {
    "local": "local",
    "celery": "workers Celery",
    "portfolio": "portefeuille, par groupes",
    "portfolio_celery": "portefeuille, par groupes, sur les workers Celery",
}

STATUS_WORDS = {
    "verdict": "verdict",
    "awaiting_answer": "information nécessaire",
    "inconsistent": "faits incohérents",
    "stopped_budget": "arrêté (budget)",
    "stopped_loop": "arrêté (boucle)",
    "invalid": "invalide",
}


def _summary(console: Console, report: Any) -> None:
    """In French, per pack: a probability is only averaged over one pack's cases (one target, one event)."""
    s = report.summary
    console.print(
        f"Lot {report.batch_id} ({MODE_WORDS.get(report.mode, report.mode)}) : {s.total} affaires, "
        f"{report.skipped} déjà faites, {seconds(report.seconds)}",
        highlight=False,
        markup=False,
    )
    for ps in s.by_pack:
        label = ps.target_label or "conclusion"
        t = Table(title=f"{ps.pack} — {ps.n} affaire{'s' if ps.n > 1 else ''} ({label})", show_header=True)
        t.add_column(label)
        t.add_column("affaires", justify="right")
        for k, v in ps.by_state.items():
            t.add_row(k, str(v))
        for k, v in ps.by_status.items():
            t.add_row(f"statut : {k}", str(v))
        console.print(t)
        p = ps.p_target
        if p["n"]:
            h = Table(
                title=f"P({label}) : moyenne {formatting.probability(p['mean'])}, "
                f"médiane {formatting.probability(p['median'])} (n = {p['n']})"
            )
            h.add_column("intervalle")
            h.add_column("affaires", justify="right")
            for k, v in p["histogram"].items():
                h.add_row(k, f"{v} {'█' * v}")
            console.print(h)
        if ps.top_missing:
            m = Table(title=f"faits manquants les plus fréquents ({ps.pack})")
            m.add_column("fait")
            m.add_column("affaires", justify="right")
            labels = _fact_labels(ps.pack)
            for fact, k in ps.top_missing:
                m.add_row(labels.get(fact, fact), str(k))
            console.print(m)


def _fact_labels(pack_name: str) -> dict[str, str]:
    """The pack's words for its facts (the summary names no identifier when the pack has a label)."""
    from lexlogic.api.context import current

    try:
        pack = current().packs.pack(pack_name)
    except LexlogicError:
        return {}
    return {name: spec.label or name for name, spec in pack.facts.items()}


def register(app: typer.Typer) -> None:
    app.command("batch", epilog="Settings:\n\n" + Settings.describe(BATCH_SETTINGS))(batch)

"""`lexlogic worker`: a Celery worker that advances runs and batch items (``engine.tasks``).

Why a command of our own rather than `celery -A …`: the queues, the acknowledgement policy and the
resumer (interrupted runs are taken over when a worker starts) are part of lexlogic's contract, not of
each deployment's command line.
"""

from __future__ import annotations

import os
import socket

import typer

from lexlogic.api.cli_common import fail
from lexlogic.api.context import current
from lexlogic.settings import WORKER_SETTINGS, Settings


def worker(
    concurrency: int | None = typer.Option(None, "--concurrency", "-c", min=1, help="processes (default: CPUs)"),
    queues: str = typer.Option("ingest,analysis", "--queues", "-Q", help="comma-separated: ingest, analysis"),
    pool: str = typer.Option("prefork", help="prefork | solo | threads"),
    name: str | None = typer.Option(None, "--name", "-n", help="worker name (default lexlogic-PID@host)"),
    log_level: str = typer.Option("info", "--log-level"),
) -> None:
    """Consume runs from the broker at LEXLOGIC_BROKER_URL (PostgreSQL at LEXLOGIC_DATABASE_URL holds state)."""
    # The pool forks this process: no background model loading here (a spaCy warm-up thread would be
    # mid-load, holding its lock, at fork time); workers never start one (only the dossier driver does).
    from lexlogic.engine.jobs import tasks

    settings = current().settings  # the worker's edge: its environment, read once, passed to every task
    url = settings.broker_url
    if not url:
        fail(f"no broker: set {tasks.BROKER_ENV} (e.g. amqp://guest:guest@127.0.0.1:5672//)")
    wanted = [q.strip() for q in queues.split(",") if q.strip()]
    bad = [q for q in wanted if q not in ("ingest", "analysis")]
    if bad or not wanted:
        fail(f"--queues: unknown queue(s) {', '.join(bad) or '(none)'} (choose among ingest, analysis)")
    if pool not in ("prefork", "solo", "threads"):
        fail(f"--pool: {pool!r} is not one of prefork, solo, threads")
    app = tasks.celery_app(settings, url)
    _install_signals(settings)
    argv = [
        "worker",
        f"--loglevel={log_level.upper()}",
        "-Q",
        ",".join(tasks.queue_name(q, settings) for q in wanted),  # type: ignore[arg-type]
        f"--concurrency={concurrency or os.cpu_count() or 1}",
        f"--pool={pool}",
        "-n",
        name or f"lexlogic-{os.getpid()}@{socket.gethostname()}",
        "--without-gossip",
        "--without-mingle",
    ]
    app.worker_main(argv)


def _install_signals(settings: Settings) -> None:
    from celery.signals import worker_process_init, worker_ready, worker_shutdown

    from lexlogic.engine.jobs import tasks

    state: dict[str, tasks.Resumer] = {}

    def ready(**_: object) -> None:  # the main process: interrupted runs are re-enqueued
        state["resumer"] = tasks.Resumer(tasks.store_for(settings), settings).start()

    def child(**_: object) -> None:  # a forked pool process: never reuse the parent's connections
        tasks.forget_stores()

    def shutdown(**_: object) -> None:
        if "resumer" in state:
            state["resumer"].stop()

    worker_ready.connect(ready, weak=False)
    worker_process_init.connect(child, weak=False)
    worker_shutdown.connect(shutdown, weak=False)


def register(app: typer.Typer) -> None:
    app.command("worker", epilog="Settings:\n\n" + Settings.describe(WORKER_SETTINGS))(worker)

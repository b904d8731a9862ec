"""Issue 34: the Redis visibility timeout is chosen from the time limits, not fixed (docs/deployment.md,
« Broker settings »). Shorter than the longest time a live worker may hold a message unacknowledged (a step
up to its hard limit, a retry countdown), Redis would hand a long ingestion to a second worker while it still
runs; raising a hard limit must raise it too."""

from __future__ import annotations

from lexlogic.engine.jobs.tasks import _celery, visibility_timeout
from lexlogic.settings import Settings


def test_an_hour_with_the_defaults() -> None:
    assert visibility_timeout(Settings()) == 3600


def test_it_outlasts_a_raised_hard_limit_and_a_countdown() -> None:
    s = Settings(ingest_soft_limit=4000, ingest_hard_limit=5000, outage_retry_max_seconds=120)
    assert visibility_timeout(s) == 2 * 5000 + 120
    assert visibility_timeout(s) > s.ingest_hard_limit + s.outage_retry_max_seconds


def test_the_celery_app_carries_it() -> None:
    s = Settings(analysis_hard_limit=2500)
    app = _celery("redis://127.0.0.1:1/0", s)  # built, never connected
    assert app.conf.broker_transport_options["visibility_timeout"] == 2 * 2500 + 60
    assert app.conf.task_acks_late and app.conf.task_reject_on_worker_lost
    assert app.conf.worker_prefetch_multiplier == 1

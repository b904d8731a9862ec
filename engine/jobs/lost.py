"""Messages lost by the broker, told from a long queue, and sent again.

A run waiting in the broker holds a *queued lease* (``queued:<token>``, engine.store.cases) for up to an hour,
so a long queue never lets the resumer take it over. But a broker restarted without persistence (Redis
without AOF, a RabbitMQ node lost) drops the messages while their leases stay: before, such a run waited the
whole hour (a ``POST …/run`` answered 409 meanwhile, a batch item stood still).

How a lost message is told from a long queue: every queued lease stands for one message in its stage's
queue. A queue that holds FEWER messages than it has queued leases older than ``grace`` seconds has lost
some. Messages are consumed first in, first out, so the missing ones are the oldest: those leases are taken
over (compare-and-set on their token, one winner among resumers) and their run is sent again under a new
token. A message the worker has already taken but not yet claimed is the one race left: ``grace`` (default
20 s) covers it, and a duplicate is harmless anyway (its stale token finds the run busy, then finished).
"""

from __future__ import annotations

import logging
from typing import Any, Literal

from lexlogic.engine.store.cases import CaseStore, new_owner

log = logging.getLogger("lexlogic.lost")
StageName = Literal["ingest", "analysis"]


def queue_depths(url: str, names: dict[StageName, str], timeout: float = 2.0) -> dict[StageName, int] | None:
    """Messages ready in each stage's queue; a queue the broker does not know (emptied by a restart) holds 0.
    None when the broker cannot be reached (then nothing can be judged lost)."""
    from kombu import Connection
    from kombu.exceptions import ChannelError

    out: dict[StageName, int] = {}
    try:
        with Connection(url, connect_timeout=timeout) as conn:
            conn.ensure_connection(max_retries=1, interval_start=0, interval_step=0.1, interval_max=0.1)
            for stage, name in names.items():
                channel = conn.channel()
                try:
                    out[stage] = int(channel.queue_declare(queue=name, passive=True).message_count)
                except ChannelError:  # no such queue (a restarted Redis, a lost node): nothing in it
                    out[stage] = 0
                finally:
                    try:
                        channel.close()
                    except Exception:
                        pass
    except Exception as exc:
        log.warning("queue depth unknown (%s: %s): no message judged lost", type(exc).__name__, exc)
        return None
    return out


def stage_of(lease: dict[str, Any]) -> StageName:
    """The queue a queued run waits in: ingestion while its head is INIT, analysis after (as ``submit``); a
    portfolio chunk (no run, no phase) waits in the analysis queue (``engine.jobs.chunks``)."""
    if (lease.get("job") or {}).get("kind") == "chunk":
        return "analysis"
    return "ingest" if lease.get("phase") == "INIT" else "analysis"


def lost_leases(store: CaseStore, depths: dict[StageName, int], grace: float) -> list[dict[str, Any]]:
    """The queued leases whose message the broker no longer holds: per stage, the oldest ones beyond the
    queue's depth. Depths are read BEFORE the leases: a message taken meanwhile has its lease claimed
    (no longer queued) or is counted in neither, so nothing in flight is judged lost."""
    lost: list[dict[str, Any]] = []
    by_stage: dict[StageName, list[dict[str, Any]]] = {"ingest": [], "analysis": []}
    for lease in store.queued(grace):
        by_stage[stage_of(lease)].append(lease)
    for stage, leases in by_stage.items():
        missing = len(leases) - depths.get(stage, 0)
        if missing > 0:
            lost.extend(leases[:missing])  # oldest first
    return lost


def requeue(store: CaseStore, lease: dict[str, Any], send: Any) -> bool:
    """Take the lost run's queued lease over (only if it still holds the lost token) and send it again under
    a new token: ``send(run_id, token)``. False when another resumer or a worker got there first."""
    token = new_owner("queued")
    if not store.claim(lease["case_id"], token, store.leases.queued, adopt=lease["owner"]):
        return False
    send(lease["case_id"], token)  # if the broker refuses, the new lease is judged again after ``grace``
    return True

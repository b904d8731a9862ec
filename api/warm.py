"""A new case's verdict computed off the request thread (issue 33).

Why: ``POST /v1/cases`` from a facts JSON answered at once, and the first ``GET …/verdict`` then computed the
verdict on a request thread (~0.1–0.3 s of CPU, seconds under load). Now creating the case hands its verdict
to one background thread, under the very key the verdict route looks up; the verdict cache is single-flight,
so a GET arriving while it computes waits for that computation instead of starting a second one. Bounded: at
most ``MAX_PENDING`` verdicts wait; beyond that a case is simply computed on its first GET, as before.
"""

from __future__ import annotations

import logging
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from lexlogic.engine.verdict.build import VerdictService

MAX_PENDING = 32
log = logging.getLogger(__name__)


class VerdictWarmer:
    """One background thread computing the verdicts of new cases into the verdict cache."""

    def __init__(self, verdicts: VerdictService, max_pending: int = MAX_PENDING) -> None:
        self.verdicts = verdicts
        self._slots = threading.BoundedSemaphore(max_pending)
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="verdict-warm")

    def submit(self, case_id: str, key: dict[str, Any], case_file: dict[str, Any]) -> bool:
        """Queue the verdict of a new case (no answers, no priors) under ``key``, GET …/verdict's (``api.etags.
        verdict_key``; the default form: proofs=target); False when full."""
        if not self._slots.acquire(blocking=False):
            return False

        def work() -> None:
            try:
                self.verdicts.verdict_json(case_id, case_file, {}, {}, key=key, proofs="target")
            except Exception:  # the GET computes it again and answers the error as a problem
                log.warning("background verdict of case %s failed", case_id, exc_info=True)
            finally:
                self._slots.release()

        try:
            self._pool.submit(work)
        except RuntimeError:  # closed (the app shut down): the GET computes the verdict, as before warming
            self._slots.release()
            return False
        return True

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)

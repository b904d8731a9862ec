"""A new case's verdict is computed off the request thread (issue 33): creating a case from facts hands its
verdict to a background thread, under the key GET …/verdict looks up, so the first GET finds it cached
(or joins the computation under way) instead of computing it on a request thread."""

from __future__ import annotations

import time

from lexlogic.api.etags import verdict_key
from lexlogic.engine.verdict.build import cache_key
from tests.support.api_app import Api


def test_a_new_case_verdict_is_computed_in_the_background(sqlite_api: Api) -> None:
    api, c = sqlite_api, sqlite_api.client
    svc = c.app.state.services  # type: ignore[attr-defined]
    cid = api.create_facts_case()
    case = svc.cases.get_case(svc.tenants.principal(api.key_a)[0], cid)
    key = cache_key(verdict_key(svc.packs, case, svc.runs.head_seq(case.run_id), a={}, p={}), "target")
    deadline = time.monotonic() + 120
    while svc.verdicts.peek(key) is None:  # no request asked for it
        assert time.monotonic() < deadline, "the new case's verdict was not computed in the background"
        time.sleep(0.05)
    v = c.get(f"/v1/cases/{cid}/verdict", headers=api.h())
    assert v.status_code == 200 and v.headers["x-cache"] == "hit"
    assert v.json()["label"] == "LIABLE" and v.json()["probability"]["method_text"].startswith("(calcul exact")


def test_the_background_queue_is_bounded() -> None:
    import threading

    from lexlogic.api.warm import VerdictWarmer

    gate = threading.Event()

    class Slow:
        def verdict_json(self, *a: object, **k: object) -> None:
            gate.wait(10)

    w = VerdictWarmer(Slow(), max_pending=2)  # type: ignore[arg-type]
    try:
        assert w.submit("a", {"run": "r1"}, {}) and w.submit("b", {"run": "r2"}, {})
        assert not w.submit("c", {"run": "r3"}, {})  # full: that case is computed on its first GET, as before
    finally:
        gate.set()
        w.close()

"""CPU of a NEW prior-only what-if in-process (``VerdictService.verdict_json``, the API's ``_what_if`` minus
HTTP): the proof trees' JSON spliced from ``serialise.FieldJson`` (new) vs one ``model_dump_json`` of the whole
verdict (old), in the same process, rounds alternated old/new/new/old, each round a fresh service warmed by the
case's own verdict, then N priors never asked (each slider in turn at values of its own). Also checks that both
forms give the same bytes for every request (exits non-zero otherwise).
Run: .venv/bin/python benchmarks/whatif_new_prior.py [N] [--proofs target|all] [--rounds 4]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lexlogic.engine.packs.library import PackLibrary
from lexlogic.engine.verdict import build, serialise
from lexlogic.engine.verdict.build import VerdictService
from lexlogic.engine.verdict.model import Verdict
from lexlogic.settings import SHIPPED_RULES

_NEW = serialise.verdict_json
FACTS = ROOT / "examples" / "rupture_brutale" / "facts.json"


def _plain(verdict: Verdict, trees: serialise.FieldJson) -> bytes:
    """The old serialisation: the whole verdict dumped at once."""
    return verdict.model_dump_json().encode()


DUMPS: list[float] = []  # CPU ms of each serialisation alone (the step that differs)


def _timed(f: Any) -> Any:
    def g(verdict: Verdict, fields: serialise.FieldJson) -> bytes:
        c = time.process_time()
        out = f(verdict, fields)
        DUMPS.append((time.process_time() - c) * 1000)
        return bytes(out)

    return g


def _round(packs: PackLibrary, raw: dict[str, Any], priors: list[dict[str, float]], proofs: str, old: bool):
    """(CPU ms per what-if, bodies) of one round on a fresh, warmed service."""
    build.serialise.verdict_json = _timed(_plain if old else _NEW)  # type: ignore[attr-defined]
    svc = VerdictService(packs)
    body = svc.verdict_json("c1", raw, {}, {}, proofs=proofs)[0]  # type: ignore[arg-type]
    xs, bodies = [], []
    DUMPS.clear()
    for p in priors:
        c = time.process_time()
        bodies.append(svc.verdict_json("c1", raw, {}, p, proofs=proofs)[0])  # type: ignore[arg-type]
        xs.append((time.process_time() - c) * 1000)
    return xs, [body, *bodies], DUMPS[1:]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("n", nargs="?", type=int, default=40)
    ap.add_argument("--proofs", default="target", choices=["target", "all"])
    ap.add_argument("--rounds", type=int, default=4)
    a = ap.parse_args()
    if a.rounds < 2:  # rounds alternate old/new: one round has no « new » side to compare
        ap.error("--rounds must be at least 2 (old and new alternate)")
    packs = PackLibrary(SHIPPED_RULES)
    raw = json.loads(FACTS.read_text(encoding="utf-8"))
    base = json.loads(VerdictService(packs).verdict_json("c1", raw, {}, {})[0])
    sliders = [s["name"] for s in base.get("sliders") or [] if s.get("group") == "priors"]
    k = a.n * a.rounds

    def priors(r: int) -> list[dict[str, float]]:  # never asked before, in this round or another
        return [{sliders[i % len(sliders)]: round(0.03 + 0.94 * (i * a.rounds + r) / k, 5)} for i in range(a.n)]

    print(
        f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; {a.n} new what-ifs a round, "
        f"proofs={a.proofs}"
    )
    seen: dict[bool, list[float]] = {True: [], False: []}
    dumps: dict[bool, list[float]] = {True: [], False: []}
    for r in range(a.rounds):
        old = r % 4 in (0, 3)
        xs, _, ds = _round(packs, raw, priors(r), a.proofs, old)
        seen[old] += xs
        dumps[old] += ds
        print(
            f"  round {r + 1} {'old' if old else 'new'}: median {statistics.median(xs):.2f} ms CPU, of which the "
            f"serialisation {statistics.median(ds):.2f} ms"
            f"(load {os.getloadavg()[0]:.2f})"
        )
    mo, mn = statistics.median(seen[True]), statistics.median(seen[False])
    print(f"old {mo:.2f} ms, new {mn:.2f} ms a new what-if (median CPU); new/old {mn / mo:.3f}")
    do, dn = statistics.median(dumps[True]), statistics.median(dumps[False])
    print(f"the serialisation alone: old {do:.2f} ms, new {dn:.2f} ms (median CPU); new/old {dn / do:.3f}")
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    same = _round(packs, raw, priors(0), a.proofs, True)[1] == _round(packs, raw, priors(0), a.proofs, False)[1]
    build.serialise.verdict_json = _NEW  # type: ignore[attr-defined]
    if not same:
        sys.exit("the bytes differ between old and new")
    print(f"bytes identical old vs new ({a.n + 1} responses of round 1's priors, fresh services both sides)")


if __name__ == "__main__":
    main()

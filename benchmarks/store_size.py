"""Bytes a whole run of the example dossier leaves in the store (issue 28: ≤ 300 KB).

Runs ``lexlogic analyze examples/rupture_brutale/dossier --no-input`` in a fresh process with a fresh
``LEXLOGIC_HOME`` (so a fresh SQLite store and an empty document cache), then sums the stored JSON of the
snapshot rows (``case_states.state``) and the document rows (``case_documents.document``).

    .venv/bin/python benchmarks/store_size.py [DOSSIER]
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOSSIER = ROOT / "examples" / "rupture_brutale" / "dossier"


def measure(dossier: Path) -> dict[str, int]:
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / "dossier"
        subprocess.run(["cp", "-r", str(dossier), str(work)], check=True)
        env = {**os.environ, "LEXLOGIC_HOME": str(Path(tmp) / "home")}
        env.pop("LEXLOGIC_DATABASE_URL", None)
        cmd = [str(Path(sys.executable).parent / "lexlogic"), "analyze", str(work), "--no-input"]
        done = subprocess.run(cmd, env=env, capture_output=True, text=True, cwd=tmp)
        if done.returncode not in (0, 3):  # 3: the run stopped on a question (--no-input)
            raise SystemExit(f"analyze failed ({done.returncode}):\n{done.stderr[-2000:]}")
        db = sqlite3.connect(Path(tmp) / "home" / "lexlogic.db")
        states = db.execute("select count(*), coalesce(sum(length(state)), 0) from case_states").fetchone()
        docs = db.execute("select count(*), coalesce(sum(length(document)), 0) from case_documents").fetchone()
        return {"snapshots": states[0], "snapshot_bytes": states[1], "documents": docs[0], "document_bytes": docs[1]}


def main() -> None:
    dossier = Path(sys.argv[1]) if len(sys.argv) > 1 else DOSSIER
    m = measure(dossier)
    total = m["snapshot_bytes"] + m["document_bytes"]
    print(f"snapshots: {m['snapshots']} rows, {m['snapshot_bytes']:,} bytes")
    print(f"documents: {m['documents']} rows, {m['document_bytes']:,} bytes")
    print(f"whole run: {total:,} bytes ({total / 1000:.1f} KB)")


if __name__ == "__main__":
    main()

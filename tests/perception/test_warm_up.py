"""Issue 33: the dossier's warm-up thread loads the French pipeline and then reads one date, so that dateparser
is imported and its French parser built (its patterns compiled) before perception's first date, off the main
thread. (That the dossier reads the same with it and without it: tests/perception/test_cold_dossier.py, whose
reference runs without a warm-up.)"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from lexlogic.settings import child_environment

pytestmark = pytest.mark.slow

PROBE = """
import json, sys, threading
from lexlogic.bridges import dates, spacy_nlp
from lexlogic.engine.perception import nlp
before = "dateparser" in sys.modules
nlp.warm_up(None)
for thread in threading.enumerate():
    if thread.name == "perception-warm-up":
        thread.join(600)
print(json.dumps({"before": before, "dateparser": "dateparser" in sys.modules,
                  "parsers": dates._parser.cache_info().currsize, "pipeline": spacy_nlp.loaded()}))
"""


def test_the_warm_up_builds_the_pipeline_and_the_date_parser(tmp_path: Path) -> None:
    env = {**child_environment(("",)), "LEXLOGIC_HOME": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    got = json.loads(done.stdout.strip().splitlines()[-1])
    assert got == {"before": False, "dateparser": True, "parsers": 1, "pipeline": True}

"""Issue 34: rule data printed by `lexlogic rules dynamic …` cannot draw lines or reach the terminal raw.

Before: a newline in a rule's output value drew a fake « ✔ … [fact] » line and ESC sequences were printed
as they came.
"""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from lexlogic.api.cli import app
from lexlogic.logic.printable import printable

EVIL = (
    "def rule(facts):\n"
    "    return {'verdict_note': 'ok\\n\\u2714 faute_grave = True  [fact]\\x1b[2J\\x1b]0;pwned\\x07\\u202egnp.exe'}\n"
)


def test_printable_escapes_controls_and_bidi() -> None:
    assert printable("a\nb\x1b[31mc\u202ed\x9b") == "a\\nb\\x1b[31mc\\u202ed\\x9b"
    assert printable("line1\nline2\t\x1b", keep_lines=True) == "line1\nline2\t\\x1b"
    assert printable("préavis ancienneté €") == "préavis ancienneté €"


def test_apply_prints_rule_output_escaped(tmp_path: Path) -> None:
    runner = CliRunner()
    (tmp_path / "evil.py").write_text(EVIL)
    (tmp_path / "evil.meta.yaml").write_text('name: "note\\nline\\u001b[1m"\noutput: {verdict_note: str}\n')
    (tmp_path / "facts.json").write_text(json.dumps({"x": 1}))
    db = f"sqlite:///{tmp_path / 'rules.db'}"
    dyn = ["rules", "dynamic"]
    res = runner.invoke(app, [*dyn, "add", str(tmp_path / "evil.py"), "--author", "llm", "--id", "e1", "--db", db])
    assert res.exit_code == 0, res.output
    assert "\x1b" not in res.stdout and res.stdout.count("\n") == 1
    assert runner.invoke(app, [*dyn, "approve", "e1", "--by", "Me Dupont", "--db", db]).exit_code == 0
    res = runner.invoke(app, [*dyn, "apply", "--facts", str(tmp_path / "facts.json"), "--db", db])
    assert res.exit_code == 0, res.output
    out = res.stdout
    assert "\x1b" not in out and "\x07" not in out and "\u202e" not in out
    # only the real line starts with ✔: the one in the value is shown as data, on the same line
    assert sum(ln.lstrip().startswith("✔") for ln in out.splitlines()) == 1
    assert "\\n" in out and "\\x1b[2J" in out
    for cmd in (["list"], ["show", "e1"]):
        res = runner.invoke(app, [*dyn, *cmd, "--db", db])
        assert res.exit_code == 0 and "\x1b" not in res.stdout, res.output

"""`lexlogic rules dynamic …` through Typer's runner and once as a real process."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lexlogic.api.cli import app

runner = CliRunner()
NOTICE = """def rule(facts):
    seniority = whole_months_between(facts["relation_start"], facts["notification_date"])
    reasonable = min(18, max(3, seniority // 12))
    return {"reasonable_notice_months": reasonable,
            "notice_sufficient": facts.get("notice_given_months", 0) >= reasonable}
"""
FACTS = {"relation_start": "2012-03-01", "notification_date": "2021-06-15", "notice_given_months": 3}
LEXLOGIC = Path(sys.executable).with_name("lexlogic")


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    (tmp_path / "notice.py").write_text(NOTICE)
    (tmp_path / "notice.meta.yaml").write_text(
        "name: preavis\noutput: {reasonable_notice_months: int, notice_sufficient: bool}\nreliability: 0.6\n"
    )
    (tmp_path / "facts.json").write_text(json.dumps(FACTS))
    (tmp_path / "bad_facts.json").write_text('{"a": 1,\n  "b": }')
    (tmp_path / "evil.py").write_text("def rule(facts):\n    x = 1\n    return open('/etc/passwd').read()\n")
    (tmp_path / "loop.py").write_text("def rule(facts):\n    while True:\n        pass\n")
    (tmp_path / "crash.py").write_text("def rule(facts):\n    return facts['relation_start'] / 2\n")
    (tmp_path / "wrong.py").write_text("def rule(facts):\n    return {'notice_sufficient': 'no'}\n")
    return {p.stem: p for p in tmp_path.iterdir()} | {"db": tmp_path / "rules.db"}


def invoke(*args: str):  # type: ignore[no-untyped-def]
    return runner.invoke(app, list(args))


def test_run_prints_the_result_as_json(files) -> None:
    res = invoke("rules", "dynamic", "run", str(files["notice"]), "--facts", str(files["facts"]), "--format", "json")
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["output"] == {"reasonable_notice_months": 9, "notice_sufficient": False}
    assert out["reads"] == ["notice_given_months", "notification_date", "relation_start"]


@pytest.mark.parametrize(
    "rule, extra, expected",
    [
        ("evil", [], r"refused at compile time \(compile\): .*evil\.py:3: name \"open\" is not available in rules"),
        ("loop", ["--cpu-seconds", "1", "--timeout", "2"], r"limit hit \((cpu|wall)\): .*loop\.py"),
        ("crash", [], r"failed at run time \(exception\): .*crash\.py:2: TypeError"),
        (
            "wrong",
            ["--schema", '{"notice_sufficient": "bool"}'],
            r"output invalid \(schema\): .*wrong\.py: does not match the declared output: \$\.notice_sufficient",
        ),
    ],
)
def test_run_failures_say_which_on_stderr_with_exit_2(files, rule: str, extra: list[str], expected: str) -> None:
    res = invoke("rules", "dynamic", "run", str(files[rule]), "--facts", str(files["facts"]), *extra)
    assert res.exit_code == 2
    assert res.stdout == ""
    assert re.search(expected, res.stderr), res.stderr


def test_bad_input_files_are_located(files) -> None:
    res = invoke("rules", "dynamic", "run", str(files["notice"]), "--facts", str(files["bad_facts"]))
    assert res.exit_code == 2 and f"facts file {files['bad_facts']}:2:8: invalid JSON" in res.stderr
    res = invoke("rules", "dynamic", "run", str(files["notice"]) + ".missing", "--facts", str(files["facts"]))
    assert res.exit_code == 2 and "no such file" in res.stderr
    res = invoke(
        "rules", "dynamic", "run", str(files["notice"]), "--facts", str(files["facts"]), "--schema", '{"x": "tuple"}'
    )
    assert res.exit_code == 2 and "invalid output schema: $.x: unknown type 'tuple'" in res.stderr


def test_lifecycle_commands(files) -> None:
    db = f"sqlite:///{files['db']}"
    res = invoke(
        "rules",
        "dynamic",
        "add",
        str(files["notice"]),
        "--author",
        "gpt-4o",
        "--id",
        "notice-v1",
        "--db",
        db,
        "--format",
        "json",
    )
    assert res.exit_code == 0, res.output
    added = json.loads(res.stdout)
    assert added["status"] == "proposed" and added["name"] == "preavis" and added["reliability"] == 0.6
    assert added["output_schema"] == {"reasonable_notice_months": "int", "notice_sufficient": "bool"}

    res = invoke("rules", "dynamic", "add", str(files["evil"]), "--author", "gpt-4o", "--db", db)
    assert res.exit_code == 2 and "refused at compile time" in res.stderr

    res = invoke("rules", "dynamic", "apply", "--facts", str(files["facts"]), "--db", db)
    assert res.exit_code == 0 and "no dynamic facts" in res.stdout  # proposed rules do not run

    res = invoke("rules", "dynamic", "approve", "notice-v1", "--by", "gpt-4o", "--db", db)
    assert res.exit_code == 2 and "cannot be approved by its own author" in res.stderr
    res = invoke("rules", "dynamic", "approve", "notice-v1", "--by", "Me Dupont", "--db", db)
    assert res.exit_code == 0 and "notice-v1: active" in res.stdout

    res = invoke("rules", "dynamic", "apply", "--facts", str(files["facts"]), "--db", db, "--format", "json")
    assert res.exit_code == 0, res.output
    facts = json.loads(res.stdout)["facts"]
    assert {f["name"]: f["value"] for f in facts} == {"reasonable_notice_months": 9, "notice_sufficient": False}
    assert all(f["proof"]["kind"] == "dynamic" and f["rule_id"] == "notice-v1" for f in facts)

    res = invoke("rules", "dynamic", "list", "--db", db, "--status", "active")
    assert res.exit_code == 0 and "notice-v1  active" in res.stdout
    res = invoke("rules", "dynamic", "retire", "notice-v1", "--by", "Me Dupont", "--reason", "pack v2", "--db", db)
    assert res.exit_code == 0 and "retired" in res.stdout
    res = invoke("rules", "dynamic", "show", "notice-v1", "--db", db)
    assert res.exit_code == 0 and "active → retired  by Me Dupont  pack v2" in res.stdout
    res = invoke("rules", "dynamic", "list", "--db", db, "--status", "bogus")
    assert res.exit_code == 2 and "--status must be one of" in res.stderr
    res = invoke("rules", "dynamic", "retire", "nope", "--by", "x", "--db", db)
    assert res.exit_code == 2 and "no dynamic rule with id nope" in res.stderr


def test_real_process(files) -> None:
    ok = subprocess.run(
        [
            str(LEXLOGIC),
            "rules",
            "dynamic",
            "run",
            str(files["notice"]),
            "--facts",
            str(files["facts"]),
            "--format",
            "json",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout)["output"]["reasonable_notice_months"] == 9
    bad = subprocess.run(
        [str(LEXLOGIC), "rules", "dynamic", "run", str(files["evil"]), "--facts", str(files["facts"])],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr.startswith("error: refused at compile time") and "evil.py:3" in bad.stderr

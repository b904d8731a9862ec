"""Issue 21, sandbox: what a hostile tenant found, each closed and shown here."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lexlogic.api.cli import app
from lexlogic.engine.tenancy.quota import QuotaExceeded, QuotaLimits, TenantQuotas
from lexlogic.sandbox.errors import ErrorKind, SandboxError, one_line
from lexlogic.sandbox.policy import MAX_CODE_BYTES, RuleRefused, code_bytes, compile_rule, freeze
from lexlogic.sandbox.pool import Limits, SandboxPool
from lexlogic.sandbox.schema import SchemaError, build_output_adapter

from .conftest import TEST_LIMITS

ROOT = Path(__file__).resolve().parents[2]
BOMB = "def rule(facts):\n    return 1\nX = [" + ",".join(f"'p{i:05d}'*682" for i in range(4000)) + "]\n"


def test_constant_folding_bomb_is_refused_at_compile_time_and_costs_nothing(pool: SandboxPool) -> None:
    assert len(BOMB.encode()) < 64_000  # within the source cap: the old worker cached ~20 MB per copy
    with pytest.raises(RuleRefused, match=r"compiles to \d+ bytes of code and constants \(cap"):
        compile_rule(BOMB)
    for _ in range(20):  # 20 proposals would have filled the old worker's memory (~14 did)
        with pytest.raises(SandboxError) as err:
            pool.check(BOMB)
        assert err.value.kind is ErrorKind.REFUSED
    assert pool.run("def rule(facts):\n    return facts['x'] + 1\n", {"x": 1}).output == 2
    assert code_bytes(compile_rule("def rule(facts):\n    return 1\n")) < 10_000 < MAX_CODE_BYTES


@pytest.mark.parametrize(
    "body,code",
    [
        ("    try:\n        x = 'a' * (10**9)\n    except Exception:\n        return 1\n", "memory"),
        ("    try:\n        x = 'a' * (10**9)\n    except:\n        return 1\n", "memory"),
        ("    try:\n        return f(0)\n    except Exception:\n        return 1\n", "recursion"),
        ("    try:\n        return f(0)\n    except RecursionError:\n        return 1\n", None),  # name not available
        # issue 34: swallowed by a `return`/`break` in `finally`, no handler ever sees the error
        ("    try:\n        x = 'a' * (10**9)\n    finally:\n        return 1\n", "memory"),
        ("    try:\n        return f(0)\n    finally:\n        return 1\n", "recursion"),
        (
            "    for i in range(2):\n        try:\n            f(0)\n        finally:\n            break\n    return 1\n",
            "recursion",
        ),
    ],
)
def test_a_rule_that_catches_a_resource_error_fails_and_its_worker_is_recycled(body: str, code: str | None) -> None:
    src = "def f(n):\n    return f(n + 1)\n\ndef rule(facts):\n" + body
    with SandboxPool(size=1, limits=TEST_LIMITS) as p:
        before = p.worker_pids()
        with pytest.raises(SandboxError) as err:
            p.run(src, {})
        if code is None:
            assert err.value.code == "exception" and "RecursionError" in err.value.message
            return
        assert err.value.kind is ErrorKind.LIMIT and err.value.code == code
        assert "caught the error" in err.value.message
        assert p.worker_pids() != before and p.replaced == 1  # a clean interpreter for the next tenant
        assert p.run("def rule(facts):\n    return 7\n", {}).output == 7


def test_worker_is_recycled_after_n_runs() -> None:
    with SandboxPool(size=1, limits=Limits(cpu_seconds=1, max_runs_per_worker=3)) as p:
        pids = [p.run("def rule(facts):\n    return 1\n", {}).worker_pid for _ in range(7)]
    assert len(set(pids)) == 3 and pids[:3] == [pids[0]] * 3


@pytest.mark.parametrize(
    "expr",
    [
        "repr(facts)",
        "str(facts)",
        "'%s' % (facts,)",
        "facts == {}",
        "facts != {}",
        "list(facts)",
        "sorted(facts)",
        "list(reversed(facts))",
        "facts | {}",
        "{} | facts",
        "dict(facts)",
        "{**facts}",
        "facts.copy()",
        "[k for k in facts]",
        "list(facts.items())",
        "max(facts)",
    ],
)
def test_every_access_path_records_what_was_read(pool: SandboxPool, expr: str) -> None:
    run = pool.run(f"def rule(facts):\n    x = {expr}\n    return 1\n", {"a": 1, "b": 2})
    assert run.reads == ["a", "b"], expr


def test_premises_are_exactly_what_was_read(pool: SandboxPool) -> None:
    src = (
        "def rule(facts):\n    facts.get('a')\n    'b' in facts\n"
        "    facts.get('absent')\n    facts.get('zz\\x1b[31mred')\n    facts.get('x' * 500)\n    return 1\n"
    )
    run = pool.run(src, {"a": 1, "b": 2, "c": 3})
    assert run.reads == ["a", "b"]  # c was never read: not a premise
    assert run.missing == ["absent"]  # asked for and absent; names with control characters or 500 chars: dropped
    reads: set = set()
    missing: set = set()
    facts = freeze({"a": 1}, reads, missing)
    _ = facts.get("nope"), facts.get(["unhashable"]) if False else None
    assert reads == set() and missing == {"nope"}


def test_messages_are_one_sanitised_line(pool: SandboxPool) -> None:
    src = "def rule(facts):\n    raise ValueError('bad\\nerror: forged line\\x1b[2J\\u202eevil')\n"
    with pytest.raises(SandboxError) as err:
        pool.run(src, {}, filename="r.py")
    text = err.value.describe()
    assert "\n" not in text and "\x1b" not in text and "\u202e" not in text
    assert "bad\\x0aerror: forged line\\x1b[2J\\u202eevil" in text
    assert one_line("a\r\nb\x07") == "a\\x0d\\x0ab\\x07"
    assert SandboxError(ErrorKind.RUNTIME, "x\ny", "m", filename="f\n.py").describe().count("\n") == 0


@pytest.mark.parametrize("name", ["model_config", "model_dump", "model_fields", "schema", "copy", "model_x"])
def test_reserved_schema_field_names_are_refused(name: str) -> None:
    with pytest.raises(SchemaError, match="is reserved"):
        build_output_adapter({"output": {name: "int"}})
    with pytest.raises(SchemaError, match="deeper than"):
        spec: object = "int"
        for _ in range(30):
            spec = {"a": spec}
        build_output_adapter(spec)


def test_cli_meta_with_a_reserved_field_is_one_line_exit_2(tmp_path: Path) -> None:
    (tmp_path / "r.py").write_text("def rule(facts):\n    return {'model_config': 1}\n")
    (tmp_path / "r.meta.json").write_text(json.dumps({"output": {"model_config": "int"}}))
    (tmp_path / "f.json").write_text("{}")
    res = CliRunner().invoke(
        app, ["rules", "dynamic", "run", str(tmp_path / "r.py"), "--facts", str(tmp_path / "f.json")]
    )
    assert res.exit_code == 2, res.output
    assert "Traceback" not in res.output and "reserved" in res.stderr and res.stderr.strip().count("\n") == 0


def test_quotas_refuse_with_retry_after() -> None:
    now = [0.0]
    q = TenantQuotas(
        QuotaLimits(proposals_per_minute=3, concurrent_runs=1, worker_seconds_per_minute=5), lambda: now[0]
    )
    for _ in range(3):
        q.propose("a")
    with pytest.raises(QuotaExceeded) as err:
        q.propose("a")
    assert err.value.status == 429 and err.value.retry_after == 60
    q.propose("b")  # another tenant is not affected
    now[0] = 30.0
    with q.run("a"):
        with pytest.raises(QuotaExceeded, match="concurrent"):
            with q.run("a"):
                pass
        with q.run("b"):
            pass
        now[0] = 36.0  # this run held a worker 6 s
    with pytest.raises(QuotaExceeded, match="worker-seconds") as err:
        with q.run("a"):
            pass
    assert err.value.retry_after == 60  # the 6 s charged at t=36 leave the window at t=96
    now[0] = 97.0
    with q.run("a"):
        pass


OS_PROBE = """
import os, socket, sys
sys.path.append({root!r})
from lexlogic.sandbox import oslayer
oslayer.unshare_network()
oslayer.install_seccomp()
out = dict(oslayer.report())
def attempt(name, fn):
    try:
        fn()
        out[name] = "allowed"
    except PermissionError:
        out[name] = "EPERM"
    except OSError as exc:
        out[name] = type(exc).__name__
attempt("socket", lambda: socket.socket())
attempt("open_write", lambda: open("/tmp/lexlogic-seccomp-probe", "w"))
attempt("execv", lambda: os.execv("/bin/true", ["true"]))
attempt("unlink", lambda: os.unlink("/nonexistent-lexlogic"))
attempt("open_read", lambda: open("/etc/hostname").read())
print(repr(out))
"""


def test_os_layer_blocks_network_exec_and_writes_where_the_platform_allows() -> None:
    res = subprocess.run(
        [sys.executable, "-I", "-c", OS_PROBE.format(root=str(ROOT))], capture_output=True, text=True, timeout=60
    )
    out = eval(res.stdout.strip().splitlines()[-1])
    if out["seccomp"] != "active":
        pytest.skip(f"seccomp not available here: {out['seccomp']}")
    assert out["no_new_privs"] is True
    assert out["socket"] == out["open_write"] == out["execv"] == out["unlink"] == "EPERM"
    assert out["open_read"] == "allowed"


def test_worker_reports_its_os_layer(pool: SandboxPool) -> None:
    layer = pool.probe()["os_layer"]
    assert set(layer) >= {"netns", "no_new_privs", "seccomp"}
    if layer["seccomp"] == "active":
        assert {"socket", "connect", "execve", "ptrace", "openat(write)"} <= set(layer["denied"])

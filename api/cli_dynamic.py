"""`lexlogic rules dynamic …`: manage dynamic rules and run one in the sandbox.

    lexlogic rules dynamic run RULE.py --facts FACTS.json [--format json]
    lexlogic rules dynamic add RULE.py --author gpt-x [--case C] [--reliability 0.7] [--schema '{"x": "bool"}']
    lexlogic rules dynamic approve RULE_ID --by "Me Dupont"
    lexlogic rules dynamic list [--status active] [--format json]
    lexlogic rules dynamic retire RULE_ID --by "Me Dupont" [--reason …]
    lexlogic rules dynamic apply --facts FACTS.json [--case C]      (runs the ACTIVE rules)

A rule file may have metadata beside it, `RULE.meta.json` or `RULE.meta.yaml` (id, name, output,
reliability, description, author, author_kind, case_id); command-line options win.
Errors: one line on stderr saying which (refused at compile time / failed at run time / limit hit /
output invalid, or a bad file with file:line:col), exit code 2.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer
from pydantic import ConfigDict, ValidationError

from lexlogic.logic.deferred import DeferredModel
from lexlogic.sandbox.errors import SandboxError

dynamic_app = typer.Typer(
    help="Dynamic (LLM- or person-written) rules: lifecycle and sandboxed runs.", no_args_is_help=True
)


class DynamicRuleMeta(DeferredModel):
    """Metadata declared beside a rule file."""

    model_config = ConfigDict(extra="forbid")

    id: str | None = None
    name: str | None = None
    output: Any = None
    reliability: float | None = None
    description: str = ""
    author: str | None = None
    author_kind: str | None = None
    case_id: str | None = None


from lexlogic.api.cli_common import fail
from lexlogic.logic.printable import printable


def _read_text(path: Path, what: str) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        fail(f"{what} {path}: no such file")
    except UnicodeDecodeError as exc:
        fail(f"{what} {path}: not UTF-8 text (byte {exc.start})")
    except OSError as exc:
        fail(f"{what} {path}: {exc.strerror or exc}")


def _load_json(path: Path, what: str) -> Any:
    text = _read_text(path, what)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        fail(f"{what} {path}:{exc.lineno}:{exc.colno}: invalid JSON: {exc.msg}")


def _load_meta(rule: Path) -> DynamicRuleMeta:
    import yaml  # here, not at the top: a cold `analyze` served from the pack cache reads no YAML (issue 33)

    for suffix in (".meta.json", ".meta.yaml", ".meta.yml"):
        path = rule.with_name(rule.stem + suffix)
        if not path.exists():
            continue
        text = _read_text(path, "metadata file")
        try:
            data = json.loads(text) if suffix == ".meta.json" else yaml.safe_load(text)
        except json.JSONDecodeError as exc:
            fail(f"metadata file {path}:{exc.lineno}:{exc.colno}: invalid JSON: {exc.msg}")
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            where = f":{mark.line + 1}:{mark.column + 1}" if mark else ""
            fail(f"metadata file {path}{where}: invalid YAML: {getattr(exc, 'problem', exc)}")
        try:
            return DynamicRuleMeta.model_validate(data or {})
        except ValidationError as exc:
            err = exc.errors()[0]
            loc = "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in err["loc"])
            fail(f"metadata file {path}: {loc}: {err['msg']}")
    return DynamicRuleMeta()


def _schema(option: str | None, meta: DynamicRuleMeta) -> Any:
    if option is None:
        spec = meta.output
    else:
        try:
            spec = json.loads(option)
        except json.JSONDecodeError:
            spec = option  # a bare type name such as bool or list[int]
    from lexlogic.sandbox.schema import SchemaError, build_output_adapter  # the sandbox: only for its commands

    try:
        build_output_adapter(spec)
    except SchemaError as exc:
        fail(f"invalid output schema: {exc}")
    return spec


def _store(db: str | None) -> Any:
    from lexlogic.api.context import current
    from lexlogic.engine.extensions.dynamic_rules import DeploymentPolicy, DynamicRuleStore

    settings = current().settings
    return DynamicRuleStore(db or settings.database, DeploymentPolicy.from_settings(settings))


def _lifecycle(call: Any) -> Any:
    from lexlogic.engine.extensions.dynamic_rules import DynamicRuleError

    try:
        return call()
    except DynamicRuleError as exc:
        fail(str(exc))
    except SandboxError as exc:
        fail(exc.describe())


FormatOpt = typer.Option("text", "--format", help="text | json")
DbOpt = typer.Option(None, "--db", help="database URL (default: LEXLOGIC_DATABASE_URL or ./.lexlogic/lexlogic.db)")


@dynamic_app.command("run")
def run_cmd(
    rule: Path = typer.Argument(..., help="a rule file defining `def rule(facts):`"),
    facts: Path = typer.Option(..., "--facts", help="the facts, a JSON file"),
    fmt: str = FormatOpt,
    schema: str | None = typer.Option(None, "--schema", help="declared output (JSON), overrides RULE.meta.*"),
    cpu_seconds: int = typer.Option(2, "--cpu-seconds", min=1, help="CPU time limit"),
    timeout: float = typer.Option(5.0, "--timeout", min=0.1, help="wall-clock limit, seconds"),
    memory_mb: int = typer.Option(256, "--memory-mb", min=64, help="address-space limit of the worker"),
) -> None:
    """Run one rule file in the sandbox: result on stdout (exit 0) or why not on stderr (exit 2)."""
    if fmt not in ("text", "json"):
        fail(f"--format must be text or json, not {fmt!r}")
    source = _read_text(rule, "rule file")
    meta = _load_meta(rule)
    spec = _schema(schema, meta)
    data = _load_json(facts, "facts file")
    from lexlogic.sandbox.pool import Limits, SandboxPool

    limits = Limits(cpu_seconds=cpu_seconds, wall_seconds=timeout, memory_mb=memory_mb)
    with SandboxPool(size=1, limits=limits) as pool:
        try:
            result = pool.run(source, data, output_schema=spec, filename=str(rule))
        except SandboxError as exc:
            fail(exc.describe())
    if fmt == "json":
        typer.echo(
            json.dumps(
                {
                    "rule": str(rule),
                    "sha256": result.sha256,
                    "output": result.output,
                    "reads": result.reads,
                    "elapsed_ms": round(result.elapsed_ms, 3),
                },
                ensure_ascii=False,
            )
        )
    else:
        typer.echo(printable(json.dumps(result.output, ensure_ascii=False, indent=2), keep_lines=True))
        typer.echo(
            f"(read: {', '.join(result.reads) or 'nothing'}; sha256 {result.sha256[:12]}; {result.elapsed_ms:.1f} ms)",
            err=True,
        )


@dynamic_app.command("add")
def add_cmd(
    rule: Path = typer.Argument(..., help="a rule file defining `def rule(facts):`"),
    rule_id: str | None = typer.Option(None, "--id", help="default: dyn-<sha256 prefix>"),
    name: str | None = typer.Option(None, "--name", help="the fact a scalar output is named after"),
    author: str | None = typer.Option(None, "--author", help="LLM model name or person"),
    author_kind: str | None = typer.Option(None, "--author-kind", help="llm | person"),
    case_id: str | None = typer.Option(None, "--case", help="restrict the rule to one case"),
    reliability: float | None = typer.Option(None, "--reliability", help="prior that the rule is right (0.7)"),
    schema: str | None = typer.Option(None, "--schema", help="declared output (JSON)"),
    description: str | None = typer.Option(None, "--description"),
    fmt: str = FormatOpt,
    db: str | None = DbOpt,
) -> None:
    """Store a rule as proposed (active at once where the deployment requires no approval)."""
    from lexlogic.engine.extensions.dynamic_rules import DEFAULT_RELIABILITY

    source = _read_text(rule, "rule file")
    meta = _load_meta(rule)
    spec = _schema(schema, meta)
    who = author or meta.author
    if not who:
        fail("--author is required (an LLM model name or a person), or `author` in the rule's metadata")
    store = _store(db)
    from lexlogic.sandbox.pool import SandboxPool

    with SandboxPool(size=1) as pool:
        stored = _lifecycle(
            lambda: store.add(
                source,
                author=who,
                author_kind=author_kind or meta.author_kind or "llm",
                name=name or meta.name,
                rule_id=rule_id or meta.id,
                case_id=case_id or meta.case_id,
                output_schema=spec,
                reliability=reliability if reliability is not None else (meta.reliability or DEFAULT_RELIABILITY),
                description=description if description is not None else meta.description,
                checker=lambda text: pool.check(text, filename=str(rule)),
            )
        )
    _print_rule(stored, fmt)


@dynamic_app.command("approve")
def approve_cmd(
    rule_id: str,
    by: str = typer.Option(..., "--by", help="the person approving"),
    activate: bool = typer.Option(True, "--activate/--no-activate"),
    fmt: str = FormatOpt,
    db: str | None = DbOpt,
) -> None:
    """A person approves a proposed rule (never its author); it becomes active unless --no-activate."""
    store = _store(db)
    rule = _lifecycle(lambda: store.approve(rule_id, by=by, activate=activate))
    _print_rule(rule, fmt)


@dynamic_app.command("activate")
def activate_cmd(
    rule_id: str, by: str = typer.Option(..., "--by"), fmt: str = FormatOpt, db: str | None = DbOpt
) -> None:
    """Activate an approved rule (or a proposed one where no approval is required)."""
    store = _store(db)
    _print_rule(_lifecycle(lambda: store.activate(rule_id, by=by)), fmt)


@dynamic_app.command("retire")
def retire_cmd(
    rule_id: str,
    by: str = typer.Option(..., "--by"),
    reason: str = typer.Option("", "--reason"),
    fmt: str = FormatOpt,
    db: str | None = DbOpt,
) -> None:
    """Retire a rule: it never runs again."""
    store = _store(db)
    _print_rule(_lifecycle(lambda: store.retire(rule_id, by=by, reason=reason)), fmt)


@dynamic_app.command("list")
def list_cmd(
    status: str | None = typer.Option(None, "--status", help="proposed|approved|active|retired"),
    case_id: str | None = typer.Option(None, "--case"),
    fmt: str = FormatOpt,
    db: str | None = DbOpt,
) -> None:
    """List stored dynamic rules."""
    from lexlogic.engine.extensions.dynamic_rules import RuleStatus

    if status is not None and status not in {s.value for s in RuleStatus}:
        fail(f"--status must be one of {', '.join(s.value for s in RuleStatus)}, not {status!r}")
    rules = _store(db).list(status=status, case_id=case_id)
    if fmt == "json":
        typer.echo(json.dumps([r.model_dump(mode="json", exclude={"text"}) for r in rules], ensure_ascii=False))
        return
    if not rules:
        typer.echo("no dynamic rules")
    for r in rules:
        scope = r.case_id or "all cases"
        typer.echo(
            f"{r.id}  {r.status.value:<8}  {printable(r.name)}  by {printable(r.author)} ({r.author_kind.value})  "
            f"reliability {r.reliability:.2f}  {printable(scope)}  sha256 {r.sha256[:12]}"
        )


@dynamic_app.command("show")
def show_cmd(rule_id: str, fmt: str = FormatOpt, db: str | None = DbOpt) -> None:
    """One rule with its text and its lifecycle history."""
    store = _store(db)
    rule = _lifecycle(lambda: store.get(rule_id))
    events = store.history(rule_id)
    if fmt == "json":
        typer.echo(
            json.dumps(
                {"rule": rule.model_dump(mode="json"), "history": [e.model_dump(mode="json") for e in events]},
                ensure_ascii=False,
            )
        )
        return
    _print_rule(rule, "text")
    for e in events:
        typer.echo(
            f"  {e.at.isoformat()}  {e.from_status.value if e.from_status else '-'} → {e.to_status.value}"
            f"  by {printable(e.actor)}  {printable(e.note)}"
        )
    typer.echo(printable(rule.text, keep_lines=True))


@dynamic_app.command("apply")
def apply_cmd(
    facts: Path = typer.Option(..., "--facts", help="the case's facts, a JSON object"),
    case_id: str | None = typer.Option(None, "--case"),
    fmt: str = FormatOpt,
    db: str | None = DbOpt,
) -> None:
    """Run the ACTIVE rules of a case on its facts: DYNAMIC facts with their proof (exit 2 if any rule failed)."""
    from lexlogic.engine.extensions.dynamic_rules import run_active_rules

    data = _load_json(facts, "facts file")
    if not isinstance(data, dict):
        fail(f"facts file {facts}: $: expected a JSON object")
    store = _store(db)
    from lexlogic.sandbox.pool import SandboxPool

    with SandboxPool(size=1) as pool:
        result = run_active_rules(store, data, case_id=case_id, pool=pool)
    if fmt == "json":
        typer.echo(result.model_dump_json())
    else:
        for fact in result.facts:
            typer.echo(fact.proof.render() + f"\n  premises: {fact.premises[:12]}")
        if not result.facts:
            typer.echo("no dynamic facts")
        for set_id in result.provenance.sets:  # each rule run's premises, printed once
            typer.echo(f"premises {set_id[:12]}:")
            for node in result.provenance.premises(set_id):
                typer.echo(node.render(1))
    for failure in result.failures:
        typer.echo(f"error: rule {printable(failure.rule_id)}: {printable(failure.message)}", err=True)
    if result.failures:
        raise typer.Exit(2)


def _print_rule(rule: Any, fmt: str) -> None:
    if fmt == "json":
        typer.echo(json.dumps(rule.model_dump(mode="json", exclude={"text"}), ensure_ascii=False))
    else:
        typer.echo(
            f"{printable(rule.id)}: {rule.status.value} ({printable(rule.name)}, by {printable(rule.author)}, "
            f"sha256 {rule.sha256[:12]})"
        )


def _find_group(app: typer.Typer, name: str) -> typer.Typer | None:
    for info in app.registered_groups:
        instance = info.typer_instance
        given = info.name if isinstance(info.name, str) else None
        if given is None and instance is not None and isinstance(instance.info.name, str):
            given = instance.info.name
        if given == name and instance is not None:
            return instance
    return None


def register(app: typer.Typer) -> None:
    """Mount `rules dynamic` — inside an existing `rules` group if another module made one."""
    rules_app = _find_group(app, "rules")
    if rules_app is None:
        rules_app = typer.Typer(help="Rule management", no_args_is_help=True)
        app.add_typer(rules_app, name="rules")
    rules_app.add_typer(dynamic_app, name="dynamic")

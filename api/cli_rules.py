"""`lexlogic check | test | analyze | schema`: the commands legal engineers use on rule packs."""

from __future__ import annotations

import json
import sys
from difflib import get_close_matches
from pathlib import Path
from typing import Any, Literal

import typer
from rich.console import Console

from lexlogic.engine.pack_check import check_pack
from lexlogic.engine.packs import get_pack, pack_by_name
from lexlogic.logic.facts import CaseFileError, facts_json_schema, load_case
from lexlogic.logic.pack import PackError, find_packs

err = Console(stderr=True)
out = Console(highlight=False, soft_wrap=True)


from lexlogic.api.cli_common import fail, parse_assignments

RULES_HELP = "rules folder (default: LEXLOGIC_RULES_DIR, else the shipped rules/)"


def _packs_path(path: Path | None) -> Path:
    """A command's pack path: the argument — a folder, or a pack's name under the rules folder — else the rules
    folder itself (``--rules`` / ``LEXLOGIC_RULES_DIR``)."""
    from lexlogic.engine.packs import rules_dir

    if path is None:
        return rules_dir()
    if not path.exists() and not path.is_absolute() and len(path.parts) == 1:
        named = rules_dir() / path.name
        if (named / "pack.yaml").exists():
            return named
        known = sorted(r.name for r in find_packs(rules_dir()))
        hint = get_close_matches(path.name, known, n=1)
        fail(
            f"{path}: neither a folder nor a pack of the rules folder {rules_dir()}"
            + (f" (did you mean {hint[0]!r}?)" if hint else f" (its packs: {', '.join(known) or 'none'})")
        )
    return path


def check(
    path: Path | None = typer.Argument(
        None, help="a pack folder, a folder of packs, or a pack's name under --rules (default: the rules folder)"
    ),
) -> None:
    """Validate rule packs: every problem as `file:line: message` (exit 2), with a "did you mean"."""
    path = _packs_path(path)
    roots = find_packs(path)
    if not roots:
        fail(f"{path}: no pack.yaml found")
    total = 0
    for root in roots:
        problems = check_pack(root)
        total += len(problems)
        for p in problems:
            err.print(f"{p.location()}: {p.message}", highlight=False, soft_wrap=True)
        if not problems:
            out.print(f"{root}: ok")
    if total:
        raise typer.Exit(code=2)


def test(
    path: Path | None = typer.Argument(
        None, help="a pack folder, a folder of packs, or a pack's name under --rules (default: the rules folder)"
    ),
    properties: bool = typer.Option(True, help="also check the declared properties with hypothesis"),
    max_examples: int | None = typer.Option(None, help="override each property's example count"),
    pattern: str | None = typer.Option(
        None, "-k", help="run only the tests and properties whose name, id, file or pack contains PATTERN"
    ),
    verbose: bool = typer.Option(False, "--verbose", "-v"),
) -> None:
    """Run the packs' YAML rule tests (and properties); ends with `N passed, N failed`."""
    # imported here: hypothesis costs ~0.1–0.4 s at start, and only this command uses it
    from lexlogic.engine.ruletests import PropertyViolation, check_property, check_test, pack_properties, pack_tests

    passed = failed = 0
    path = _packs_path(path)
    roots = find_packs(path)
    if not roots:
        fail(f"{path}: no pack.yaml found")
    for root in roots:
        try:
            pack, _ = get_pack(root)
            tests = pack_tests(pack)
            props = pack_properties(pack) if properties else []
        except PackError as exc:
            fail(str(exc))
        if pattern:
            needle = pattern.lower()
            tests = [t for t in tests if needle in f"{root.name} {Path(t.file).name} {t.name}".lower()]
            props = [p for p in props if needle in f"{root.name} {p.id} {p.label}".lower()]
        for t in tests:
            outcome = check_test(root, t)
            if outcome.passed:
                passed += 1
                if verbose:
                    out.print(f"PASS {t.file}:{t.line} {t.name}")
            else:
                failed += 1
                out.print(f"FAIL {t.file}:{t.line} {t.name}")
                for f in outcome.failures:
                    out.print(f"     {f}")
        for spec in props:
            try:
                check_property(root, spec, max_examples)
                passed += 1
                if verbose:
                    out.print(f"PASS property {spec.id}")
            except PropertyViolation as exc:
                failed += 1
                out.print(f"FAIL {exc}")
    out.print(f"{passed} passed, {failed} failed")
    if failed:
        raise typer.Exit(code=1)


def analyze(
    source: Path = typer.Argument(..., help="a case facts file (JSON) or a dossier folder"),
    format: str = typer.Option("text", "--format", help="text | json"),
    answer: list[str] = typer.Option([], "--answer", help="FACT=VALUE, repeatable: answers to questions"),
    whatif: list[str] = typer.Option([], "--whatif", help="NAME=VALUE, repeatable: override a prior or weight"),
    no_input: bool = typer.Option(False, "--no-input", help="never prompt: stop at the question"),
    inference: str = typer.Option(
        "auto", "--inference", help="auto | exact | sampling | pyro (Pyro's importance sampling on the same model)"
    ),
    html: Path | None = typer.Option(None, "--html", help="also write an HTML report here"),
    evidence: Path | None = typer.Option(
        None, "--evidence", help=("dossier folder the submissions' claims are verified against")
    ),
    claimant_submission: Path | None = typer.Option(
        None,
        "--claimant-submission",
        help=("the claimant's written submission: verified claims move the priors of their facts"),
    ),
    defence_submission: Path | None = typer.Option(
        None, "--defence-submission", help=("the defence's written submission (same)")
    ),
    dynamic_rules: bool = typer.Option(
        False,
        "--dynamic-rules",
        help=(
            "run the ACTIVE dynamic rules of the store (LEXLOGIC_DATABASE_URL) in the sandbox; their outputs "
            "fill facts nobody gave, marked as interpretations"
        ),
    ),
    proof: bool = typer.Option(False, "--proof", help="print the whole proof tree (each shared part once)"),
    debug: bool = typer.Option(False, "--debug", help="show rule and fact identifiers"),
) -> None:
    """Analyse a case: the verdict, its decisive reasons, what is missing and the next question."""
    if format not in ("text", "json"):
        fail(f"--format {format!r}: expected text or json")
    answers = parse_assignments(answer, "--answer")
    overrides = parse_assignments(whatif, "--whatif")
    from lexlogic.engine.verdict import INFERENCE, INFERENCE_METHODS

    if inference not in INFERENCE_METHODS:
        fail(f"--inference {inference!r}: expected one of {', '.join(INFERENCE_METHODS)}")
    INFERENCE.set(inference)  # the default of every decide() of this command
    if source.is_dir():
        from lexlogic.api.analyze_command import analyse_dossier

        analyse_dossier(
            source,
            format=format,
            answers=answers,
            whatif=overrides,
            interactive=not no_input and sys.stdin.isatty(),
            html=html,
            proof=proof,
            debug=debug,
        )
        return
    try:
        case, _pack = load_case(source, lambda name: pack_by_name(name)[0])
        pack, _program = pack_by_name(case.pack)
    except (CaseFileError, PackError) as exc:
        fail(str(exc))
    for name in answers:
        if name not in pack.facts:
            fail(f"--answer {name}: unknown fact (not declared in pack {pack.name})")
    from lexlogic.api.analyze_command import analyse_facts

    submissions: list[tuple[Literal["claimant", "defence"], str]] = []
    parties: tuple[tuple[Literal["claimant", "defence"], Path | None], ...] = (
        ("claimant", claimant_submission),
        ("defence", defence_submission),
    )
    for party, path in parties:
        if path is None:
            continue
        try:
            submissions.append((party, path.read_text(encoding="utf-8")))
        except (OSError, UnicodeDecodeError) as exc:
            fail(f"{path}: cannot read the submission: {exc}")
    if submissions and (evidence is None or not evidence.is_dir()):
        fail("--claimant-submission/--defence-submission need --evidence DOSSIER_DIR (a folder)")
    analyse_facts(
        pack,
        case,
        format=format,
        answers=answers,
        whatif=overrides,
        interactive=not no_input and sys.stdin.isatty(),
        html=html,
        dynamic_rules=dynamic_rules,
        evidence=evidence,
        submissions=submissions,
        proof=proof,
        debug=debug,
    )


def docs(
    path: Path = typer.Argument(..., help="a pack folder (or a pack name under the rules folder)"),
    write: bool = typer.Option(False, "--write", help="write PACK/RULES.md instead of printing"),
) -> None:
    """The pack's rule table (rule, legal source, validity dates) in Markdown."""
    from lexlogic.engine.pack_docs import pack_table
    from lexlogic.engine.packs import pack_root

    try:
        if not (path / "pack.yaml").exists() and not path.is_absolute() and len(path.parts) == 1:
            path = pack_root(path.name)
        text = pack_table(path)
    except PackError as exc:
        fail(str(exc))
    if write:
        (path / "RULES.md").write_text(text, encoding="utf-8")
        out.print(f"wrote {path / 'RULES.md'}")
    else:
        print(text, end="")


schema_app = typer.Typer(help="JSON Schemas of the inputs.")


@schema_app.command("facts")
def schema_facts(
    pack: str | None = typer.Option(None, help="pack name (default: the first pack of the rules folder)"),
) -> None:
    """Print the JSON Schema of a case facts file for a pack."""
    from lexlogic.engine.packs import default_pack

    try:
        rule_pack, _ = pack_by_name(pack or default_pack())
    except PackError as exc:
        fail(str(exc))
    out.print_json(json.dumps(facts_json_schema(rule_pack), ensure_ascii=False))


@schema_app.command("verdict")
def schema_verdict() -> None:
    """Print the JSON Schema of a verdict (the CLI JSON, the persisted state and the HTTP API share it)."""
    from lexlogic.api.analyze_command import verdict_schema

    out.print_json(json.dumps(verdict_schema(), ensure_ascii=False))


PACK_FILE_KINDS = ("pack", "facts", "computations", "parameters", "tests", "properties", "weights", "extraction")


@schema_app.command("pack")
def schema_pack(
    file: str | None = typer.Option(None, "--file", help="one kind: " + ", ".join(PACK_FILE_KINDS)),
    write: Path | None = typer.Option(None, "--write", help="write one NAME.schema.json per kind into this folder"),
) -> None:
    """JSON Schemas of every pack file (pack.yaml, facts, computations, parameters, tests, properties, …),
    for editors that validate YAML as you type."""
    from lexlogic.engine.pack_schema import pack_schemas

    schemas = pack_schemas()
    if file is not None:
        if file not in schemas:
            fail(f"--file {file!r}: expected one of {', '.join(schemas)}")
        schemas = {file: schemas[file]}
    if write is not None:
        write.mkdir(parents=True, exist_ok=True)
        for kind, schema in schemas.items():
            (write / f"{kind}.schema.json").write_text(json.dumps(schema, ensure_ascii=False, indent=2) + "\n")
            out.print(f"wrote {write / f'{kind}.schema.json'}")
        return
    out.print_json(json.dumps(schemas if file is None else schemas[file], ensure_ascii=False))


new_app = typer.Typer(help="Scaffolds for legal engineers.")


@new_app.command("pack")
def new_pack(
    name: str = typer.Argument(..., help="the pack's name (a folder name: lowercase letters, digits, _)"),
    folder: Path | None = typer.Option(
        None,
        "--dir",
        help="the folder to create NAME/ in (default: the rules folder, i.e. --rules or LEXLOGIC_RULES_DIR)",
    ),
    title: str = typer.Option("", help="the pack's title (French)"),
) -> None:
    """Create a pack that passes `lexlogic check` and `lexlogic test`: manifest, facts, one parameter, one
    computation, one annotated rule, tests, a property, RULES.md — then edit it (docs/pack-authoring.md)."""
    from lexlogic.engine.pack_scaffold import scaffold

    try:
        root = scaffold(name, _packs_path(folder), title)
    except (PackError, FileExistsError, ValueError) as exc:
        fail(str(exc))
    out.print(
        f"created {root}: every file holds an example (a deadline claim) to rewrite; next, "
        f"`lexlogic check {root}` and `lexlogic test {root}` (docs/pack-authoring.md)"
    )


def with_rules_option(command: Any) -> Any:
    """Give a command a `--rules DIR` option: the rules folder packs are looked up in, for this call
    (it sets LEXLOGIC_RULES_DIR while the command runs, so every layer sees the same folder)."""
    import functools
    import inspect
    import os

    sig = inspect.signature(command)
    if "rules" in sig.parameters:
        return command
    option = inspect.Parameter(
        "rules",
        inspect.Parameter.KEYWORD_ONLY,
        default=typer.Option(None, "--rules", help=RULES_HELP, envvar=None),
        annotation=Path | None,
    )

    @functools.wraps(command)
    def wrapper(*args: Any, rules: Path | None = None, **kwargs: Any) -> Any:
        if rules is None:
            return command(*args, **kwargs)
        if not rules.is_dir():
            fail(f"--rules {rules}: not a folder")
        before = os.environ.get("LEXLOGIC_RULES_DIR")
        os.environ["LEXLOGIC_RULES_DIR"] = str(rules.resolve())
        try:
            return command(*args, **kwargs)
        finally:
            if before is None:
                os.environ.pop("LEXLOGIC_RULES_DIR", None)
            else:
                os.environ["LEXLOGIC_RULES_DIR"] = before

    params = [
        p.replace(kind=inspect.Parameter.KEYWORD_ONLY) if p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD else p
        for p in sig.parameters.values()
    ]
    wrapper.__signature__ = sig.replace(parameters=[*params, option])  # type: ignore[attr-defined]
    return wrapper


def add_rules_option(app: typer.Typer) -> None:
    """`--rules DIR` on every command of the app (and of its sub-apps), registered or not by this module."""
    for info in app.registered_commands:
        if info.callback is not None:
            info.callback = with_rules_option(info.callback)
    for group in app.registered_groups:
        if group.typer_instance is not None:
            add_rules_option(group.typer_instance)


def register(app: typer.Typer) -> None:
    app.command("check")(check)
    app.command("test")(test)
    app.command("analyze")(analyze)
    app.command("docs")(docs)
    app.add_typer(schema_app, name="schema")
    app.add_typer(new_app, name="new")

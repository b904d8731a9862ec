"""`lexlogic check | test | analyze | schema`: the commands legal engineers use on rule packs."""

from __future__ import annotations

import gc
import json
import sys
from difflib import get_close_matches
from pathlib import Path
from typing import Any

import typer
from typer._click.globals import get_current_context

from lexlogic.api.cli_common import LazyConsole, fail, imports_done
from lexlogic.api.context import AppContext, current
from lexlogic.engine.packs.library import load_folder
from lexlogic.logic.facts import facts_json_schema
from lexlogic.logic.pack import PackError, find_packs, load_pack

err = LazyConsole(stderr=True)
out = LazyConsole(highlight=False, soft_wrap=True)

RULES_HELP = "rules folder (default: LEXLOGIC_RULES_DIR, else the shipped rules/)"


def _packs_path(path: Path | None) -> Path:
    """A command's pack path: the argument — a folder, or a pack's name under the rules folder — else the rules
    folder itself (``--rules`` / ``LEXLOGIC_RULES_DIR``)."""
    rules_dir = current().packs.root
    if path is None:
        return rules_dir
    if not path.exists() and not path.is_absolute() and len(path.parts) == 1:
        named = rules_dir / path.name
        if (named / "pack.yaml").exists():
            return named
        known = sorted(r.name for r in find_packs(rules_dir))
        hint = get_close_matches(path.name, known, n=1)
        fail(
            f"{path}: neither a folder nor a pack of the rules folder {rules_dir}"
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
        from lexlogic.engine.workbench.check import check_pack  # the pack checker: only for `check`
        from lexlogic.engine.workbench.priors import fallback_prior_warnings

        problems = check_pack(root)
        total += len(problems)
        for p in problems:
            err.print(f"{p.location()}: {p.message}", highlight=False, soft_wrap=True)
        warnings = [] if problems else fallback_prior_warnings(load_pack(root))
        for w in warnings:
            err.print(f"{w.location()}: warning: {w.message}", highlight=False, soft_wrap=True)
        if not problems:
            n = len(warnings)
            out.print(f"{root}: ok" + (f" ({n} warning{'s' if n > 1 else ''})" if n else ""))
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
    verbose: bool = typer.Option(
        False, "--verbose", "-v", help="list passing tests; under a failing one, the proof or why-not and the values"
    ),
    facts: str | None = typer.Option(
        None, "--facts", help="TEST_ID (FILE:LINE as printed, or name): write that test's case as a facts file"
    ),
    facts_out: Path | None = typer.Option(None, "--out", help="with --facts: the file to write (default: stdout)"),
    coverage: bool = typer.Option(
        False,
        "--coverage",
        help="instead of pass/fail: the rules, computation branches and parameter periods exercised",
    ),
) -> None:
    """Run the packs' YAML rule tests (and properties); ends with `N passed, N failed`."""
    # imported here: hypothesis costs ~0.1–0.4 s at start, and only this command uses it
    from lexlogic.engine.workbench.ruletests import (
        PropertyViolation,
        check_property,
        check_test,
        pack_properties,
        pack_tests,
    )
    from lexlogic.logic.memos import Memos

    memos = Memos()  # this command's memoised computations, shared by its tests
    passed = failed = 0
    path = _packs_path(path)
    roots = find_packs(path)
    if not roots:
        fail(f"{path}: no pack.yaml found")
    if facts is not None:
        _write_test_facts(roots, facts, facts_out)
        return
    if coverage:
        _coverage(roots, pattern)
        return
    for root in roots:
        try:
            pack = load_folder(root).pack
            tests = pack_tests(pack)
            props = pack_properties(pack) if properties else []
        except PackError as exc:
            fail(str(exc))
        if pattern:
            needle = pattern.lower()
            tests = [t for t in tests if needle in f"{root.name} {Path(t.file).name} {t.name}".lower()]
            props = [p for p in props if needle in f"{root.name} {p.id} {p.label}".lower()]
        for t in tests:
            outcome = check_test(root, t, memos=memos)
            if outcome.passed:
                passed += 1
                if verbose:
                    out.print(f"PASS {t.file}:{t.line} {t.name}")
            else:
                failed += 1
                out.print(f"FAIL {t.file}:{t.line} {t.name}")
                for f in outcome.failures:
                    out.print(f"     {f}")
                if verbose and outcome.result is not None:
                    from lexlogic.engine.workbench.explain_test import explain_failure

                    for line in explain_failure(pack, t, outcome.result):
                        out.print(f"     {line}", markup=False, emoji=False)
        for spec in props:
            try:
                check_property(root, spec, max_examples, memos=memos)
                passed += 1
                if verbose:
                    out.print(f"PASS property {spec.id}")
            except PropertyViolation as exc:
                failed += 1
                out.print(f"FAIL {exc}")
    out.print(f"{passed} passed, {failed} failed")
    if failed:
        raise typer.Exit(code=1)


def _coverage(roots: list[Path], pattern: str | None) -> None:
    """`lexlogic test --coverage`: what the tests exercise, and what none does, at file:line."""
    from lexlogic.engine.workbench.coverage import coverage, render
    from lexlogic.engine.workbench.ruletests import pack_tests

    for root in roots:
        loaded = load_folder(root)
        pack, program = loaded.pack, loaded.program
        tests = pack_tests(pack)
        if pattern:
            tests = [t for t in tests if pattern.lower() in f"{root.name} {Path(t.file).name} {t.name}".lower()]
        for line in render(coverage(pack, program, tests)):
            out.print(line, markup=False, emoji=False)


def _write_test_facts(roots: list[Path], test_id: str, dest: Path | None) -> None:
    """`lexlogic test --facts TEST_ID`: the test's case as a facts file (one pack's tests, or all)."""
    from lexlogic.engine.workbench.explain_test import UnknownTest, case_of_test, find_test
    from lexlogic.engine.workbench.ruletests import pack_tests

    found = []
    problem: Exception | str = f"{test_id}: no test found"
    for root in roots:
        pack = load_folder(root).pack
        try:
            found.append((pack, find_test(pack_tests(pack), test_id)))
        except UnknownTest as exc:
            problem = exc
    if len(found) != 1:
        fail(str(problem) if not found else f"{test_id}: tests of several packs match; name the pack")
    pack, t = found[0]
    text = json.dumps(case_of_test(pack, t), ensure_ascii=False, indent=2) + "\n"
    if dest is None:
        print(text, end="")
    else:
        dest.write_text(text, encoding="utf-8")
        err.print(f"wrote {dest} ({t.file}:{t.line} {t.name})", highlight=False)


# `analyze`'s options: one line each in the command's signature (what each does is said in its help)
SOURCE = typer.Argument(..., help="a case facts file (JSON) or a dossier folder")
FORMAT = typer.Option("text", "--format", help="text | json")
ANSWER = typer.Option([], "--answer", help="FACT=VALUE, repeatable: answers to questions")
WHATIF = typer.Option([], "--whatif", help="NAME=VALUE, repeatable: override a prior or weight")
NO_INPUT = typer.Option(False, "--no-input", help="never prompt: stop at the question")
INFERENCE = typer.Option(
    "auto", "--inference", help="auto | exact | sampling | pyro (Pyro's importance sampling on the same model)"
)
HTML = typer.Option(None, "--html", help="also write an HTML report here")
EVIDENCE = typer.Option(
    None, "--evidence", help="a facts file: the dossier folder the submissions are verified against"
)
CLAIMANT = typer.Option(
    None,
    "--claimant-submission",
    help="the claimant's written submission: verified claims move the priors of their facts",
)
DEFENCE = typer.Option(None, "--defence-submission", help="the defence's written submission (same)")
DYNAMIC = typer.Option(
    False,
    "--dynamic-rules",
    help=(
        "run the ACTIVE dynamic rules of the store (LEXLOGIC_DATABASE_URL) in the sandbox; their outputs "
        "fill facts nobody gave, marked as interpretations"
    ),
)
PROOF = typer.Option(False, "--proof", help="print the whole proof tree (each shared part once)")
DEBUG = typer.Option(False, "--debug", help="show rule and fact identifiers")
FRESH = typer.Option(False, "--fresh", help="a dossier: analyse afresh (ignore its saved run)")
RESUME = typer.Option(
    False, "--resume", help="a dossier: resume its saved run even if its pieces or pack changed since"
)


def analyze(
    source: Path = SOURCE,
    format: str = FORMAT,
    answer: list[str] = ANSWER,
    whatif: list[str] = WHATIF,
    no_input: bool = NO_INPUT,
    inference: str = INFERENCE,
    html: Path | None = HTML,
    evidence: Path | None = EVIDENCE,
    claimant_submission: Path | None = CLAIMANT,
    defence_submission: Path | None = DEFENCE,
    dynamic_rules: bool = DYNAMIC,
    proof: bool = PROOF,
    debug: bool = DEBUG,
    fresh: bool = FRESH,
    resume: bool = RESUME,
) -> None:
    """Analyse a case: the verdict, its decisive reasons, what is missing and the next question.

    A facts file and a dossier go through the same state machine (a facts file enters it after perception),
    so every flag means the same on both; a flag that cannot apply to the input is refused with its reason.
    A dossier's saved run is resumed only when its pieces and pack are unchanged; otherwise the analysis
    starts afresh and says why."""
    gc.disable()
    try:
        from lexlogic.api.analyze_command import AnalyzeFlags, analyse_source
    finally:
        imports_done()
    flags = AnalyzeFlags.checked(
        format=format,
        answer=answer,
        whatif=whatif,
        inference=inference,
        interactive=not no_input and sys.stdin.isatty(),
        html=html,
        evidence=evidence,
        parties=(("claimant", claimant_submission), ("defence", defence_submission)),
        dynamic_rules=dynamic_rules,
        proof=proof,
        debug=debug,
        fresh=fresh,
        resume=resume,
    )
    analyse_source(source, flags, current())


def docs(
    path: Path = typer.Argument(..., help="a pack folder (or a pack name under the rules folder)"),
    write: bool = typer.Option(False, "--write", help="write PACK/RULES.md instead of printing"),
) -> None:
    """The pack's rule table (rule, legal source, validity dates) in Markdown."""
    from lexlogic.engine.workbench.docs import pack_table

    try:
        if not (path / "pack.yaml").exists() and not path.is_absolute() and len(path.parts) == 1:
            path = current().packs.folder(path.name)
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
    try:
        rule_pack = current().packs.pack(pack)
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
    from lexlogic.engine.workbench.schema import pack_schemas

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
    from lexlogic.engine.workbench.scaffold import scaffold

    try:
        root = scaffold(name, _packs_path(folder), title)
    except (PackError, FileExistsError, ValueError) as exc:
        fail(str(exc))
    out.print(
        f"created {root}: every file holds an example (a deadline claim) to rewrite; next, "
        f"`lexlogic check {root}` and `lexlogic test {root}` (docs/pack-authoring.md)"
    )


def with_rules_option(command: Any) -> Any:
    """Give a command a `--rules DIR` option and build the call's context (settings + rule packs) on Typer's
    context object before it runs: `--rules` is that context's rules folder; the environment is never written."""
    import functools
    import inspect

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
        if rules is not None and not rules.is_dir():
            fail(f"--rules {rules}: not a folder")
        typer_ctx = get_current_context(silent=True)
        if typer_ctx is not None:
            typer_ctx.find_root().obj = AppContext.build(rules=rules)
        return command(*args, **kwargs)

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

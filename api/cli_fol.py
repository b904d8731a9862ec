"""`lexlogic fol …` (check, query, hierarchy of `.fologic` files) and `lexlogic tweety …` (status, install)."""

from __future__ import annotations

import json
import os

import typer

from lexlogic.api.cli_common import fail
from lexlogic.api.context import current
from lexlogic.settings import FOL_SETTINGS, Settings

_EPILOG = "Settings:\n\n" + Settings.describe(FOL_SETTINGS)
fol_app = typer.Typer(
    help="Sorted first-order belief sets (TweetyProject .fologic syntax).", no_args_is_help=True, epilog=_EPILOG
)
tweety_app = typer.Typer(help="TweetyProject jars for the Tweety FOL backend.", no_args_is_help=True, epilog=_EPILOG)


def _load(path: str, strict: bool = False):  # type: ignore[no-untyped-def]
    from lexlogic.logic.fol.syntax import FolSyntaxError, parse_report

    if not os.path.isfile(path):
        fail(f"{path}: no such file")
    from lexlogic.logic.fol.syntax import parse_belief_set

    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except (OSError, UnicodeDecodeError) as exc:
        fail(f"{path}: cannot read: {exc}")
    try:
        bs = parse_belief_set(text, strict=strict, source=path)
        warnings = parse_report(text, strict=strict, source=path).warnings
    except FolSyntaxError as exc:
        fail(exc.located())
    return bs, warnings


def _tools():  # type: ignore[no-untyped-def]
    """Where E and Tweety are, from this call's settings (LEXLOGIC_EPROVER, LEXLOGIC_TWEETY_*)."""
    from lexlogic.bridges.fol_tools import FolTools

    return FolTools.from_settings(current().settings)


@fol_app.command("check")
def check(
    file: str = typer.Argument(..., help=".fologic file"),
    strict: bool = typer.Option(False, "--strict", help="Tweety's exact sorts (no inferred sub-sorts)"),
    consistency: bool = typer.Option(False, "--consistency", help="also check the belief set is consistent"),
) -> None:
    """Parse FILE; exit 0, or 2 with `file:line:column: message`."""
    bs, warnings = _load(file, strict)
    for w in warnings:
        typer.echo(f"warning: {w}", err=True)
    sig = bs.signature
    typer.echo(
        f"{file}: ok — {len(sig.sorts)} sorts, {len(sig.predicates)} predicates, {len(bs.formulas)} "
        f"formulas, {len(bs.repairs)} repair(s)"
    )
    if consistency:
        from lexlogic.engine.extensions.fol_check import check_belief_set
        from lexlogic.logic.fol.answers import FolReasonerError

        try:
            report = check_belief_set(bs, tools=_tools())
        except FolReasonerError as exc:
            fail(f"{file}: {exc}")
        typer.echo(report.summary())
        if report.consistent is False:
            raise typer.Exit(1)


@fol_app.command("query")
def query(
    file: str = typer.Argument(...),
    formula: str = typer.Argument(..., help="query in .fologic syntax"),
    backend: str = typer.Option("auto", "--backend", help="auto|prolog|eprover|tweety|tweety-simple"),
    proof: bool = typer.Option(False, "--proof", help="print the proof (or the reason)"),
    fmt: str = typer.Option("text", "--format", help="text|json"),
) -> None:
    """Is FORMULA entailed by the belief set in FILE?"""
    from lexlogic.bridges.fol_reasoner import entails
    from lexlogic.logic.fol.answers import FolReasonerError
    from lexlogic.logic.fol.hierarchy import SortHierarchy
    from lexlogic.logic.fol.syntax import FolSyntaxError, parse_formula

    if backend not in ("auto", "prolog", "eprover", "tweety", "tweety-simple"):
        fail(f"--backend: unknown backend {backend!r} (auto|prolog|eprover|tweety|tweety-simple)")
    if fmt not in ("text", "json"):
        fail(f"--format: unknown format {fmt!r} (text|json)")
    bs, _ = _load(file)
    try:
        q, uses = parse_formula(formula, bs.signature, source="FORMULA")
    except FolSyntaxError as exc:
        fail(exc.located())
    h = SortHierarchy.from_belief_set(bs)
    for u in uses:
        if not h.is_subsort(u.actual, u.expected):
            fail(
                f"FORMULA:1:{u.column}: '{u.term}' of sort '{u.actual}' where {u.predicate} expects "
                f"'{u.expected}': no inferred link {u.actual} ⊑ {u.expected}"
            )
    try:
        ans = entails(bs, q, backend=backend, proof=proof, tools=_tools())  # type: ignore[arg-type]
    except FolReasonerError as exc:
        fail(f"{file}: {backend}: {exc}")
    if fmt == "json":
        typer.echo(
            json.dumps(json.loads(ans.model_dump_json()) | {"verdict": ans.verdict()}, ensure_ascii=False, indent=2)
        )
        return
    verdict = ans.verdict()
    if ans.entailed is None and ans.reason.startswith("unknown ("):  # a limit: say which
        verdict = ans.reason.split(":", 1)[0]
    typer.echo(f"{verdict}  [{ans.backend}, {ans.elapsed_ms:.1f} ms]")
    if proof:
        if ans.proof is not None:
            typer.echo(ans.proof.render())
        typer.echo(f"reason: {ans.reason}")


@fol_app.command("hierarchy")
def hierarchy(file: str = typer.Argument(...), fmt: str = typer.Option("text", "--format", help="text|json")) -> None:
    """The sort hierarchy inferred from FILE's universal implications, and the repairs it justifies."""
    from lexlogic.logic.fol.hierarchy import SortHierarchy

    bs, _ = _load(file)
    h = SortHierarchy.from_belief_set(bs)
    cycles = h.cycles()
    if fmt == "json":
        typer.echo(
            json.dumps(
                {
                    "hierarchy": h.as_dict(),
                    "links": [{"sub": a, "super": b, "because": h.because[(a, b)]} for a, b in h.edges()],
                    "cycles": cycles,
                    "repairs": [r.model_dump() for r in bs.repairs],
                },
                ensure_ascii=False,
                indent=2,
            )
        )
        return
    if not h.edges():
        typer.echo("no sub-sort links (no universal implication between predicates of different sorts)")
    for a, b in h.edges():
        typer.echo(f"{a} ⊑ {b}    because {h.because[(a, b)]}")
    for c in cycles:
        typer.echo(f"cycle: {' ⊑ '.join(c + [c[0]])} (these sorts are mutually compatible)")
    if bs.repairs:
        typer.echo("repairs:")
        for r in bs.repairs:
            line = f" (line {r.line})" if r.line else ""
            typer.echo(f"  {r.fact}{line}: {r.reason}")


@tweety_app.command("status")
def tweety_status(
    timeout: float = typer.Option(60.0, "--timeout", help="seconds for the JVM to load and answer"),
) -> None:
    """What is configured for the Tweety backend; when configured, LOAD the FOL classes in a JVM and run a
    one-line entailment (exit 2 if that fails: a jar that does not hold Tweety is not "available")."""
    from lexlogic.bridges.fol_tweety import ENV, TweetyLimits, available, probe, status
    from lexlogic.logic.fol.answers import FolReasonerError

    tools = _tools()
    st = status(tools)
    ok, why = available(tools)
    typer.echo(f"{ENV}={st['value'] or '(unset)'}")
    typer.echo(f"jars: {len(st['jars'])}" + "".join(f"\n  {j}" for j in st["jars"]))
    typer.echo(f"java: {st['java'] or 'not found'}")
    if not ok:
        typer.echo(f"tweety backend: NOT available — {why}")
        typer.echo("needed artifacts: " + ", ".join(st["artifacts"]))
        return
    try:
        res = probe(TweetyLimits(seconds=timeout, memory_mb=tools.tweety_memory_mb), tools)
    except FolReasonerError as exc:
        fail(f"tweety backend: NOT usable — {exc}")
    if "limit" in res or not res.get("ok"):
        fail(f"tweety backend: NOT usable — {res.get('reason') or res}")
    typer.echo("loaded: " + ", ".join(n.rsplit(".", 1)[1] for n in res["loaded"]))
    typer.echo(f"entailment: {res['entailment']} ({res['ms']:.0f} ms in the JVM)")
    typer.echo(f"tweety backend: ok — {why}")


@tweety_app.command("install")
def tweety_install(
    directory: str = typer.Argument(..., help="folder for the jars"),
    timeout: float = typer.Option(5.0, "--timeout", help="seconds per download"),
    repository: str = typer.Option("https://repo1.maven.org/maven2", "--repository"),
) -> None:
    """Fetch the Tweety FOL jars by Maven coordinates into DIRECTORY."""
    from lexlogic.bridges.fol_tweety import ENV, install
    from lexlogic.logic.fol.answers import FolReasonerError

    try:
        paths = install(directory, timeout=timeout, repository=repository)
    except FolReasonerError as exc:
        fail(f"tweety install: {exc}")
    for p in paths:
        typer.echo(p)
    typer.echo(f"export {ENV}={os.path.abspath(directory)}")


def register(app: typer.Typer) -> None:
    """Add this capability's commands to `app`."""
    app.add_typer(fol_app, name="fol")
    app.add_typer(tweety_app, name="tweety")

"""`lexlogic kg ...`: extract, ingest, promote, query and the KPI sentinel of the evidence graph.

Where assertions live: the case database (``--db`` URL, else ``LEXLOGIC_DATABASE_URL``, else the SQLite
file ``.lexlogic/lexlogic.db``), one journal per ``--case`` id (default "default"). ``kg extract`` only
prints unless ``--case`` is given, in which case it also journals what it extracted (and its
abstentions); ``kg ingest`` journals EXPLICIT/DISCURSIVE assertions from a JSON-lines file;
``kg promote`` rebuilds the canonical and semantic layers of the case from its journal; ``kg query``
walks the promoted layer of the case.
"""

from __future__ import annotations

import json
import sys
from enum import Enum
from pathlib import Path
from typing import Any

import typer
from pydantic import ValidationError

kg_app = typer.Typer(
    help="Evidence knowledge graph: explicit and discursive assertions, tiers, traversal.", no_args_is_help=True
)


from lexlogic.api.cli_common import OutputFormat, fail
from lexlogic.api.context import current


class Tiers(str, Enum):
    strict = "strict"
    extended = "extended"


def _store(db: str | None):  # type: ignore[no-untyped-def]
    from lexlogic.engine.kg.store import KGStore

    try:
        return KGStore(db or current().settings.database)
    except Exception as exc:  # connection or schema errors: say where
        fail(f"cannot open the case database {db or '(LEXLOGIC_DATABASE_URL / default)'}: {exc}".splitlines()[0])


def _span(s: Any) -> str:
    where = f"{s.doc_id}" + (f" § {s.section}" if s.section else "") + f" [{s.char_start}:{s.char_end}]"
    return f"{where} «{' '.join(s.text.split())}»"  # wrapped lines shown on one line; the span is exact


DB_OPTION = typer.Option(None, "--db", help="database URL (default: LEXLOGIC_DATABASE_URL or .lexlogic/lexlogic.db)")
CASE_OPTION = typer.Option("default", "--case", help="case id whose journal is used")


@kg_app.command("extract")
def extract_cmd(
    text_or_file: str = typer.Argument(..., help="a text, the path of a UTF-8 text file, or a dossier folder"),
    fmt: OutputFormat = typer.Option(OutputFormat.text, "--format"),
    doc_id: str | None = typer.Option(None, "--doc-id", help="document id (default: file name or 'text')"),
    case: str | None = typer.Option(None, "--case", help="also journal the result in this case"),
    db: str | None = DB_OPTION,
    no_llm: bool = typer.Option(False, "--no-llm", help="PATTERN only even when an LLM is configured"),
    discursive_only: bool = typer.Option(False, "--discursive-only", help="the issue-9 discursive extractor alone"),
) -> None:
    """Print, per document, the explicit and discursive assertions with their spans, the claims attributed
    to a speaker ("alleged by X") and the abstentions with reasons. A folder is read as a dossier
    (every supported document: text, e-mail, CSV, PDF)."""
    from lexlogic.bridges.llm import LLMClient
    from lexlogic.engine.kg.extract import extract as full_extract
    from lexlogic.engine.kg.hybrid import confirm
    from lexlogic.engine.kg.patterns import ExtractionResult
    from lexlogic.engine.kg.patterns import extract as discursive_extract

    path = Path(text_or_file)
    documents: list[tuple[str, str]] = []
    if len(text_or_file) < 4096 and path.is_dir():
        from lexlogic.engine.documents.ingest import ingest_dossier

        try:
            documents = [(d.id, d.text) for d in ingest_dossier(path, cache=current().settings.documents_cache)]
        except Exception as exc:  # unreadable dossier: say which and why
            fail(f"{path}: cannot read the dossier: {exc}".splitlines()[0])
    elif len(text_or_file) < 4096 and path.is_file() and path.suffix.lower() in (".pdf", ".eml", ".csv", ".docx"):
        from lexlogic.engine.documents.ingest import ingest_file

        try:
            d = ingest_file(path, cache=current().settings.documents_cache)
        except Exception as exc:  # unreadable document: say which and why
            fail(f"{path}: cannot read the document: {exc}".splitlines()[0])
        documents = [(doc_id or d.id, d.text)]
    elif len(text_or_file) < 4096 and path.is_file():
        try:
            documents = [(doc_id or path.name, path.read_text(encoding="utf-8"))]
        except UnicodeDecodeError as exc:
            fail(f"{path}: not a UTF-8 text file (byte {exc.start}); extract text from PDFs first")
    else:
        documents = [(doc_id or "text", text_or_file)]
    extractor = discursive_extract if discursive_only else full_extract
    llm = None if no_llm else LLMClient.from_settings(current().settings)
    per_doc: list[tuple[str, ExtractionResult]] = []
    for doc, text in documents:
        result = extractor(text, doc)
        if llm is not None:
            result = confirm(result, llm)
        per_doc.append((doc, result))
    if case:
        store = _store(db)
        for _, result in per_doc:
            store.append(case, result.assertions)
            store.record_abstentions(case, result.abstentions)
    if fmt is OutputFormat.json:
        if len(per_doc) == 1 and not path.is_dir():
            payload: Any = per_doc[0][1].model_dump(mode="json")
        else:
            payload = {"documents": [{"document": d, **r.model_dump(mode="json")} for d, r in per_doc]}
        typer.echo(json.dumps(payload, ensure_ascii=False, indent=2))
        return
    totals = [0, 0, 0]
    for doc, result in per_doc:
        if len(per_doc) > 1:
            typer.echo(f"== {doc}")
        _print_result(result)
        totals[0] += len(result.assertions)
        totals[1] += len(result.attributed)
        totals[2] += len(result.abstentions)
    typer.echo(
        f"{totals[0]} assertion(s), {totals[1]} attributed claim(s), {totals[2]} abstention(s)"
        + (f" in {len(per_doc)} documents" if len(per_doc) > 1 else "")
        + (f"; journaled in case '{case}'" if case else "")
    )


def _print_result(result: Any) -> None:
    for a in result.assertions:
        typer.echo(
            f"ASSERT  {a.kind.value}/{a.basis.value if a.basis else '-'}  {a.method.value}  "
            f"{a.subject} --{a.relation.value}--> {a.object}"
        )
        if a.markers:
            typer.echo(f"        cues: {', '.join(a.markers)}")
        for extra, label in ((a.qualifier, "qualifier"), (a.anchor, "anchor")):
            if extra:
                typer.echo(f"        {label}: {extra}")
        if a.enumeration_complete is not None:
            typer.echo(f"        list complete: {a.enumeration_complete}")
        for s in a.bundle.spans:
            typer.echo(f"        ↳ {_span(s)}")
    for c in result.attributed:
        typer.echo(
            f"ALLEGED {c.subject} --{c.relation.value}--> {c.object}  (alleged by {c.speaker}, {c.speech_act.value})"
        )
        typer.echo(f"        ↳ {_span(c.content_span)}")
    for x in result.abstentions:
        typer.echo(f"ABSTAIN {x.reason.value}: {x.detail}")
        if x.candidate:
            typer.echo(f"        declined: {x.candidate}")
        typer.echo(f"        ↳ {_span(x.span)}")


@kg_app.command("ingest")
def ingest_cmd(
    file: Path = typer.Argument(..., help="JSON lines, one RawAssertion per line (e.g. EXPLICIT ones from perception)"),
    case: str = CASE_OPTION,
    db: str | None = DB_OPTION,
) -> None:
    """Journal assertions from a file; all or nothing, refused ones named by line."""
    from lexlogic.engine.kg.constraints import check
    from lexlogic.engine.kg.model import RawAssertion

    if not file.is_file():
        fail(f"{file}: no such file")
    items = []
    for n, line in enumerate(file.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            a = RawAssertion.model_validate(json.loads(line))
        except json.JSONDecodeError as exc:
            fail(f"{file}:{n}:{exc.colno}: invalid JSON: {exc.msg}")
        except ValidationError as exc:
            err = exc.errors()[0]
            fail(f"{file}:{n}: $.{'.'.join(str(p) for p in err['loc'])}: {err['msg']}")
        violation = check(a)
        if violation is not None:
            fail(f"{file}:{n}: refused ({violation.rule}, {violation.reason.value}): {violation.detail}")
        items.append(a)
    count = _store(db).append(case, items)
    typer.echo(f"journaled {count} assertion(s) in case '{case}'")


@kg_app.command("promote")
def promote_cmd(
    case: str = CASE_OPTION,
    db: str | None = DB_OPTION,
    fmt: OutputFormat = typer.Option(OutputFormat.text, "--format"),
) -> None:
    """Aggregate the case journal, promote by the thresholds, assign grade and tier, log every decision."""
    store = _store(db)
    result = store.promote(case)
    if fmt is OutputFormat.json:
        typer.echo(json.dumps(result.model_dump(mode="json"), ensure_ascii=False, indent=2))
        return
    for rec in result.log:
        status = f"{rec.grade.value}/{rec.tier.value}" if rec.promoted and rec.grade and rec.tier else "not promoted"
        s = rec.strength
        typer.echo(
            f"{status:24} {rec.relation_id}  (support {s.support_count}: explicit {s.explicit_count}, "
            f"discursive {s.discursive_count}, docs {s.doc_coverage}, sections {s.distinct_sections}, "
            f"diversity {s.bundle_diversity:.2f}) — {rec.reason}"
        )
    tiers = result.by_tier()
    typer.echo(
        f"run {result.run_id}: {len(result.log)} canonical, {len(result.relations)} promoted "
        f"(STRICT {tiers['STRICT']}, EXTENDED {tiers['EXTENDED']}) in case '{case}'"
    )


@kg_app.command("query")
def query_cmd(
    entity: str = typer.Argument(...),
    tiers: Tiers = typer.Option(Tiers.strict, "--tiers"),
    depth: int = typer.Option(3, "--depth", min=1, max=10),
    escalate: bool = typer.Option(False, "--escalate", help="STRICT → EXTENDED → anchored text when nothing found"),
    case: str = CASE_OPTION,
    db: str | None = DB_OPTION,
    fmt: OutputFormat = typer.Option(OutputFormat.text, "--format"),
) -> None:
    """Walk the promoted graph from ENTITY; every edge printed with its grade and tier."""
    from lexlogic.engine.kg.traverse import TIER_SETS, query

    store = _store(db)
    result = query(
        store.graph(case), entity, TIER_SETS[tiers.value], depth, escalate, text_search=store.text_search(case)
    )
    if fmt is OutputFormat.json:
        typer.echo(json.dumps(result.model_dump(mode="json"), ensure_ascii=False, indent=2))
        return
    typer.echo(f"{result.entity}: answered at level {result.level} (tried {' → '.join(result.tried)})")
    for e in result.edges:
        arrow = f"<--{e.relation.value}--" if e.reversed else f"--{e.relation.value}-->"
        typer.echo(f"{'  ' * e.depth}{e.source} {arrow} {e.target}  [{e.grade.value}, {e.tier.value}]")
    for s in result.passages:
        typer.echo(f"  TEXT ↳ {_span(s)}")
    if result.level == "NONE":
        typer.echo("  nothing found (has `lexlogic kg promote` been run for this case?)")


@kg_app.command("sentinel")
def sentinel_cmd(
    data_dir: Path | None = typer.Option(None, "--data-dir", help="folder with type1.jsonl and type2.jsonl"),
    fmt: OutputFormat = typer.Option(OutputFormat.text, "--format"),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="list every failing item"),
) -> None:
    """Print the KPIs (FP Type 2 = 0 %, accept Type 1 ≥ 80 %, every abstain motivated); exit 1 if one is broken."""
    from lexlogic.engine.kg.sentinel import DATA_DIR, DataError, run

    try:
        report = run(data_dir or DATA_DIR)
    except (DataError, FileNotFoundError) as exc:
        fail(str(exc))
    if fmt is OutputFormat.json:
        typer.echo(json.dumps({"ok": report.ok, **report.model_dump(mode="json")}, ensure_ascii=False, indent=2))
    else:
        for k in report.kpis:
            value = f"{k.value:.1%}" if k.name not in ("type2_items", "speech_act_min_items") else f"{int(k.value)}"
            typer.echo(f"{'OK  ' if k.ok else 'FAIL'} {k.name:18} {value:>8}  target {k.target}")
        typer.echo(f"abstentions by reason: {report.abstentions_by_reason}")
        failing = [o for o in report.type1 + report.type2 if not o.ok]
        for o in failing if verbose else failing[:10]:
            typer.echo(f"  item {o.id}: {o.detail}")
    if not report.ok:
        raise typer.Exit(code=1)


def register(app: typer.Typer) -> None:
    """Add this capability's commands to `app`."""
    app.add_typer(kg_app, name="kg")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(kg_app())

"""CLI for claim verification: ``lexlogic verify DOSSIER_DIR "claim"`` / ``--submission FILE``."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import typer

from lexlogic.api.cli_common import OutputFormat, fail


def _settings():  # type: ignore[no-untyped-def]
    from lexlogic.api.context import current

    return current().settings


def _index_dir(dossier: Path, given: Path | None) -> Path:
    if given:
        return given
    from lexlogic.api.context import current

    home = current().settings.home
    key = hashlib.sha256(str(dossier.resolve()).encode()).hexdigest()[:16]
    return home / "evidence" / key


def _where(e) -> str:  # type: ignore[no-untyped-def]
    g = e.grounding
    quote = " ".join((g.quote or e.content).split())
    quote = quote if len(quote) <= 220 else quote[:217] + "..."
    page = f" p.{g.page}" if g.page is not None else ""
    return f"{g.document_id}{page} [{g.char_start}:{g.char_end}] «{quote}»"


def _render(result) -> str:  # type: ignore[no-untyped-def]
    lines = [f"{result.status.value:<13} {result.claim}", f"  confiance {result.confidence:.3f} · juge {result.judge}"]
    if result.proposed is not None:  # withheld below the judge's precision threshold (issue 29)
        lines.append(
            f"  non tranché : le juge lirait {result.proposed.value} mais sa confiance "
            f"({result.decision_confidence:.3f}) est sous le seuil de précision 0,97 — passage à vérifier"
        )
    if result.evidence:
        e = result.evidence
        lines.append(f"  pièce : {_where(e)}")
        lines.append(f"  nuance : {e.nuance}")
    for e in result.contradictory:
        lines.append(f"  contra : {_where(e)} — {e.nuance}")
    return "\n".join(lines)


def register(app: typer.Typer) -> None:
    """Add this capability's commands to `app`."""

    @app.command("verify")
    def verify(
        dossier: Path = typer.Argument(..., help="directory of the case's documents"),
        claim: str | None = typer.Argument(None, help="the claim to verify (French)"),
        submission: Path | None = typer.Option(None, "--submission", help="verify every claim of this file"),
        fmt: OutputFormat = typer.Option(OutputFormat.text, "--format", help="text | json"),
        k: int = typer.Option(10, "--k", min=1, max=50, help="passages read by the judge (sentence-level)"),
        index_dir: Path | None = typer.Option(None, "--index-dir", help="where the case's evidence index lives"),
    ) -> None:
        """Check a claim (or a submission's claims) against the dossier: VERIFIED, CONTRADICTED, AMBIGUOUS, UNKNOWN."""
        if not dossier.is_dir():
            fail(f"{dossier}: not a directory (DOSSIER_DIR)")
        if (claim is None) == (submission is None):
            fail("give exactly one of CLAIM or --submission FILE")
        text = ""
        if submission is not None:
            try:
                text = submission.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                fail(f"{submission}: cannot read submission: {exc}")
            if not text.strip():
                fail(f"{submission}:1: the submission is empty")
        elif not claim or not claim.strip():
            fail("CLAIM is empty")
        try:
            from lexlogic.engine.documents.ingest import (
                ingest_dossier,  # lazy: ingestion pulls PDF/OCR stacks
            )
        except ImportError as exc:  # pragma: no cover - present in this tree
            fail(f"document ingestion is unavailable (engine.documents.ingest): {exc}")
        try:
            documents = ingest_dossier(dossier, cache=_settings().documents_cache)
        except Exception as exc:  # ingestion names the file that failed
            fail(f"{dossier}: cannot ingest the dossier: {exc}")
        from lexlogic.engine.claims.batch import account_submission
        from lexlogic.engine.claims.retrieval import HybridMemory
        from lexlogic.engine.claims.verify import default_judge, find_evidence

        memory = HybridMemory.open(_index_dir(dossier, index_dir), documents)
        from lexlogic.bridges.llm import LLMClient

        judge = default_judge(LLMClient.from_settings(_settings()))
        if not documents:
            typer.echo(f"(dossier vide : {dossier})", err=True)
        if submission is None:
            assert claim is not None
            result = find_evidence(memory, claim.strip(), k=k, judge=judge)
            if fmt is OutputFormat.json:
                typer.echo(json.dumps(result.model_dump(mode="json"), ensure_ascii=False, indent=2))
            else:
                typer.echo(_render(result))
            return
        account = account_submission(memory, text, k=k, judge=judge)
        if fmt is OutputFormat.json:
            typer.echo(
                json.dumps([row.model_dump(mode="json") for row in account.sentences], ensure_ascii=False, indent=2)
            )
            return
        for row in account.sentences:
            if row.result is not None:
                typer.echo(f"[{row.n}] " + _render(row.result))
            else:
                typer.echo(f"[{row.n}] {'NON FACTUEL':<13} {row.sentence}\n  raison : {row.reason}")
        counts: dict[str, int] = {}
        for row in account.sentences:
            counts[row.status] = counts.get(row.status, 0) + 1
        summary = ", ".join(f"{v} {k}" for k, v in sorted(counts.items()))
        typer.echo(f"{len(account.sentences)} phrases : {summary}")

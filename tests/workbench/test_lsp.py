"""`lexlogic lsp` end to end, with a real LSP client (pytest-lsp) talking to the server over stdio:
a pack file with an error gets its diagnostic at the right line; hover, definition, completion."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as t
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.workbench.planted import RULES

PACK = RULES / "rupture_brutale"
SERVER = [sys.executable, "-c", "from lexlogic.api.cli import main; main()", "lsp"]


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def client(lsp_client: LanguageClient):  # type: ignore[no-untyped-def]
    await lsp_client.initialize_session(
        t.InitializeParams(capabilities=t.ClientCapabilities(), root_uri=PACK.parent.as_uri())
    )
    yield
    await lsp_client.shutdown_session()


def _open(client: LanguageClient, path: Path, text: str) -> str:
    uri = path.as_uri()
    client.text_document_did_open(
        t.DidOpenTextDocumentParams(text_document=t.TextDocumentItem(uri=uri, language_id="asp", version=1, text=text))
    )
    return uri


@pytest.mark.asyncio
async def test_diagnostic_at_the_line_of_an_unsaved_error(client: LanguageClient) -> None:
    path = PACK / "brutalite.lp"
    lines = path.read_text(encoding="utf-8").splitlines()
    lines.insert(4, "brutal :- notice_insufficient not safe_harbour.")  # missing comma, line 5 of the buffer
    uri = _open(client, path, "\n".join(lines) + "\n")
    await client.wait_for_notification(t.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    diagnostics = client.diagnostics[uri]
    assert len(diagnostics) == 1
    assert diagnostics[0].range.start.line == 4  # 0-based: the fifth line
    assert "syntax error" in diagnostics[0].message
    # the buffer fixed (not saved): the diagnostic goes away
    fixed = "\n".join(lines[:4] + lines[5:]) + "\n"
    client.text_document_did_change(
        t.DidChangeTextDocumentParams(
            text_document=t.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[t.TextDocumentContentChangeWholeDocument(text=fixed)],
        )
    )
    await client.wait_for_notification(t.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    assert list(client.diagnostics[uri]) == []


@pytest.mark.asyncio
async def test_hover_definition_and_completion_of_a_parameter(client: LanguageClient) -> None:
    path = PACK / "computations.yaml"
    text = path.read_text(encoding="utf-8")
    uri = _open(client, path, text)
    await client.wait_for_notification(t.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    assert list(client.diagnostics[uri]) == []  # the shipped file is clean
    row = next(i for i, line in enumerate(text.splitlines()) if "{param: safe_harbour_months}" in line)
    col = text.splitlines()[row].index("safe_harbour_months") + 3
    hover = await client.text_document_hover_async(
        t.HoverParams(text_document=t.TextDocumentIdentifier(uri=uri), position=t.Position(line=row, character=col))
    )
    assert hover is not None and isinstance(hover.contents, t.MarkupContent)
    assert "safe_harbour_months" in hover.contents.value and "18 mois" in hover.contents.value
    assert "L.442-1 II" in hover.contents.value  # its legal reference
    where = await client.text_document_definition_async(
        t.DefinitionParams(
            text_document=t.TextDocumentIdentifier(uri=uri), position=t.Position(line=row, character=col)
        )
    )
    assert isinstance(where, t.Location) and where.uri.endswith("parameters.yaml")
    defined = (PACK / "parameters.yaml").read_text(encoding="utf-8").splitlines()[where.range.start.line]
    assert defined.strip().startswith("safe_harbour_months:")
    items = await client.text_document_completion_async(
        t.CompletionParams(text_document=t.TextDocumentIdentifier(uri=uri), position=t.Position(line=row, character=0))
    )
    assert items is not None
    labels = {i.label for i in (items.items if isinstance(items, t.CompletionList) else items)}
    assert {"safe_harbour_months", "notice_written", "effective_notice_months"} <= labels

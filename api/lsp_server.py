"""`lexlogic lsp`: a language server for pack files (``.lp``, ``.yaml``, ``RULES.md``) over stdio.

Diagnostics are ``lexlogic check``'s problems on the files as edited (open buffers overlaid on a copy of
the pack), published on open, change and save; hover shows a fact's, parameter's, computed value's,
outcome's, rule's or source's reading; definition jumps to where a name is declared; completion offers the
pack's fact, parameter, computed-value and outcome names. The pack knowledge is ``engine/workbench/
packindex.py``'s; this module only speaks the protocol (pygls).
"""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types as t
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path

from lexlogic.engine.workbench.packindex import PackIndex, pack_root_of, problems, word_at


class PackServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("lexlogic-lsp", "1")
        self.indexes: dict[Path, tuple[float, PackIndex | None]] = {}
        self.published: dict[Path, set[str]] = {}

    def index(self, root: Path) -> PackIndex | None:
        stamp = max((p.stat().st_mtime for p in root.rglob("*") if p.is_file()), default=0.0)
        hit = self.indexes.get(root)
        if hit is None or hit[0] != stamp:
            hit = self.indexes[root] = (stamp, PackIndex.load(root))
        return hit[1]

    def buffers(self, root: Path) -> dict[Path, str]:
        out: dict[Path, str] = {}
        for uri, doc in self.workspace.text_documents.items():
            path = Path(to_fs_path(uri) or "")
            if root in path.parents:
                out[path] = doc.source
        return out

    def publish(self, uri: str) -> None:
        path = Path(to_fs_path(uri) or "")
        root = pack_root_of(path)
        if root is None:
            return
        by_file: dict[str, list[t.Diagnostic]] = {}
        for p in problems(root, self.buffers(root)):
            line = max((p.line or 1) - 1, 0)
            rng = t.Range(start=t.Position(line=line, character=0), end=t.Position(line=line, character=10_000))
            diag = t.Diagnostic(
                range=rng, message=p.message, severity=t.DiagnosticSeverity.Error, source="lexlogic check"
            )
            by_file.setdefault(from_fs_path(str(p.file)) or str(p.file), []).append(diag)
        stale = self.published.get(root, set()) - set(by_file)
        for file_uri in {uri, *stale, *by_file}:
            self.text_document_publish_diagnostics(
                t.PublishDiagnosticsParams(uri=file_uri, diagnostics=by_file.get(file_uri, []))
            )
        self.published[root] = set(by_file)

    def symbol_at(self, uri: str, position: t.Position) -> tuple[PackIndex, str] | None:
        path = Path(to_fs_path(uri) or "")
        root = pack_root_of(path)
        index = self.index(root) if root else None
        if index is None:
            return None
        word = word_at(self.workspace.get_text_document(uri).source, position.line, position.character)
        return (index, word) if word and word in index.symbols else None


server = PackServer()


@server.feature(t.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: PackServer, params: t.DidOpenTextDocumentParams) -> None:
    ls.publish(params.text_document.uri)


@server.feature(t.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: PackServer, params: t.DidChangeTextDocumentParams) -> None:
    ls.publish(params.text_document.uri)


@server.feature(t.TEXT_DOCUMENT_DID_SAVE)
def did_save(ls: PackServer, params: t.DidSaveTextDocumentParams) -> None:
    ls.publish(params.text_document.uri)


@server.feature(t.TEXT_DOCUMENT_HOVER)
def hover(ls: PackServer, params: t.HoverParams) -> t.Hover | None:
    found = ls.symbol_at(params.text_document.uri, params.position)
    if found is None:
        return None
    index, word = found
    return t.Hover(contents=t.MarkupContent(kind=t.MarkupKind.Markdown, value=index.symbols[word].hover))


@server.feature(t.TEXT_DOCUMENT_DEFINITION)
def definition(ls: PackServer, params: t.DefinitionParams) -> t.Location | None:
    found = ls.symbol_at(params.text_document.uri, params.position)
    if found is None:
        return None
    index, word = found
    symbol = index.symbols[word]
    if symbol.file is None:
        return None
    start = t.Position(line=symbol.line - 1, character=0)
    return t.Location(uri=from_fs_path(str(symbol.file)) or "", range=t.Range(start=start, end=start))


@server.feature(t.TEXT_DOCUMENT_COMPLETION, t.CompletionOptions(trigger_characters=["{", " ", ","]))
def completion(ls: PackServer, params: t.CompletionParams) -> t.CompletionList:
    root = pack_root_of(Path(to_fs_path(params.text_document.uri) or ""))
    index = ls.index(root) if root else None
    kinds = {"fact": t.CompletionItemKind.Field, "parameter": t.CompletionItemKind.Constant}
    items = [
        t.CompletionItem(
            label=s.name,
            kind=kinds.get(s.kind, t.CompletionItemKind.Variable),
            detail=s.kind,
            documentation=t.MarkupContent(kind=t.MarkupKind.Markdown, value=s.hover),
        )
        for s in (index.completions() if index else [])
    ]
    return t.CompletionList(is_incomplete=False, items=items)


def serve() -> None:
    """Serve on stdin/stdout until the client says exit."""
    server.start_io()

"""What an editor needs to know about a pack's names: each fact, parameter, computed value, outcome, rule
and legal source with its reading (for hover), where it is defined (for go-to-definition), and the names
to complete; and ``check``'s problems on the files as they are being edited (unsaved buffers overlaid on a
copy of the pack). Plain data: the language server (``api/lsp_server.py``) turns it into LSP messages.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from lexlogic.bridges.clingo_bridge import CompiledProgram
from lexlogic.engine.packs.library import compile_loaded
from lexlogic.engine.workbench.check import check_pack
from lexlogic.logic.errors import LexlogicError
from lexlogic.logic.pack import RulePack, load_pack

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True)
class Symbol:
    name: str
    kind: str  # fact | parameter | computed | outcome | rule | source
    hover: str  # Markdown
    file: Path | None = None
    line: int = 1  # 1-based


@dataclass(frozen=True)
class PackIndexProblem:
    file: Path
    line: int | None  # 1-based; None: the file as a whole
    message: str


def pack_root_of(path: Path) -> Path | None:
    """The pack folder a file belongs to (the nearest folder above it with a pack.yaml)."""
    for folder in [path.parent, *path.parents]:
        if (folder / "pack.yaml").exists():
            return folder
    return None


def word_at(text: str, line: int, character: int) -> str | None:
    """The identifier under a 0-based (line, character) position."""
    lines = text.splitlines()
    if line >= len(lines):
        return None
    for m in _WORD.finditer(lines[line]):
        if m.start() <= character <= m.end():
            return m.group(0)
    return None


def problems(root: Path, buffers: Mapping[Path, str]) -> list[PackIndexProblem]:
    """``check``'s problems for the pack at ``root`` with the open buffers' text instead of the files'."""
    root = root.resolve()
    with tempfile.TemporaryDirectory(prefix="lexlogic-lsp-") as tmp:
        copy = Path(tmp) / root.name
        shutil.copytree(root, copy, ignore=shutil.ignore_patterns(".*", "__pycache__"))
        for path, text in buffers.items():
            try:
                rel = path.resolve().relative_to(root)
            except ValueError:
                continue
            (copy / rel).parent.mkdir(parents=True, exist_ok=True)
            (copy / rel).write_text(text, encoding="utf-8")
        found = check_pack(copy)
        out = []
        for p in found:
            file = Path(p.file)
            try:
                file = root / file.resolve().relative_to(copy.resolve())
            except ValueError:
                file = root / "pack.yaml"
            out.append(PackIndexProblem(file=file, line=p.line, message=p.message))
        return out


class PackIndex:
    """The names of one loaded pack (built once per version of its files)."""

    def __init__(self, pack: RulePack, program: CompiledProgram | None = None) -> None:
        self.pack = pack
        self.symbols: dict[str, Symbol] = {}
        self._sources()
        self._rules(program)
        self._computations()
        self._parameters()
        self._facts()

    @classmethod
    def load(cls, root: Path) -> PackIndex | None:
        try:
            pack = load_pack(root)
        except LexlogicError:
            return None
        try:
            program: CompiledProgram | None = compile_loaded(pack)
        except LexlogicError:
            program = None
        return cls(pack, program)

    def completions(self) -> list[Symbol]:
        return [s for s in self.symbols.values() if s.kind in ("fact", "parameter", "computed", "outcome")]

    # ------------------------------------------------------------------ each kind of name
    def _line_of(self, file: Path, pattern: str) -> int:
        try:
            for i, text in enumerate(file.read_text(encoding="utf-8").splitlines(), start=1):
                if re.search(pattern, text):
                    return i
        except OSError:
            pass
        return 1

    def _facts(self) -> None:
        path = self.pack.root / self.pack.manifest.files.facts
        for name, f in self.pack.facts.items():
            lines = [f"**{f.label}** — fait `{name}` ({f.type.value})"]
            if f.values:
                lines.append("valeurs : " + ", ".join(f.values))
            if f.question:
                lines.append(f"question : {f.question}")
            if f.appreciation:
                lines.append("appréciation souveraine du juge (jamais demandée)")
            if f.default is not None:
                lines.append(f"défaut si non allégué : {f.default!r} (charge de la preuve : {f.burden})")
            line = self._line_of(path, rf"^\s+{re.escape(name)}\s*:")
            self.symbols[name] = Symbol(name, "fact", "\n\n".join(lines), path, line)

    def _parameters(self) -> None:
        for name, p in (self.pack.parameters or {}).items():
            periods = [f"- {q.valid_from or '…'} → {q.valid_to or '…'} : {q.value} {p.unit}" for q in p.values]
            src = self.pack.source(p.reference)
            lines = [f"**{p.label}** — paramètre `{name}` ({p.unit})", *periods]
            if src is not None:
                lines.append(f"source : {src.cite()}")
            file = Path(p.file) if p.file else self.pack.root / "parameters.yaml"
            line = self._line_of(file, rf"^\s+{re.escape(name)}\s*:")  # the name's line (p.line: its first key)
            self.symbols[name] = Symbol(name, "parameter", "\n".join(lines), file, line)

    def _computations(self) -> None:
        for c in self.pack.computations:
            cites = [s.cite() for sid in c.sources if (s := self.pack.source(sid))]
            text = f"**{c.label}** — valeur calculée `{c.output}` ({c.type.value}), calcul {c.id}"
            if cites:
                text += "\n\nsources : " + "; ".join(cites)
            self.symbols[c.output] = Symbol(c.output, "computed", text, Path(c.file) if c.file else None, c.line or 1)

    def _rules(self, program: CompiledProgram | None) -> None:
        if program is None:
            return
        for rule in program.rules:
            for name, _arity in rule.head_signatures:
                if name not in self.symbols:
                    text = f"**{self.pack.label_of(name)}** — issue `{name}`"
                    self.symbols[name] = Symbol(name, "outcome", text, Path(rule.file), rule.line)
            if rule.meta is not None:
                cites = [s.cite() for sid in rule.meta.sources if (s := self.pack.source(sid))]
                text = f"**{rule.meta.label}** — règle `{rule.meta.id}`"
                if rule.meta.valid_from or rule.meta.valid_to:
                    text += f" (en vigueur {rule.meta.valid_from or '…'} → {rule.meta.valid_to or '…'})"
                if cites:
                    text += "\n\nsources : " + "; ".join(cites)
                self.symbols[rule.meta.id] = Symbol(rule.meta.id, "rule", text, Path(rule.file), rule.line)

    def _sources(self) -> None:
        manifest = self.pack.root / "pack.yaml"
        for sid, src in self.pack.manifest.sources.items():
            text = f"**{src.reference}** — source `{sid}`\n\n{src.cite()}" + (
                f"\n\n{src.url}" if getattr(src, "url", None) else ""
            )
            self.symbols[sid] = Symbol(
                sid, "source", text, manifest, self._line_of(manifest, rf"^\s+{re.escape(sid)}\s*:")
            )

"""Layout blocks from plain text: titles, articles (with their body), numbered clauses, tables, paragraphs.

Works on the document's final text (whatever the source: text, PDF text layer, OCR), so every block
is a span of that text. Articles are the unit of contracts: an article runs from its heading to the
next article heading or title; clauses ("5.1 …") are nested inside articles.
"""

from __future__ import annotations

import re

from lexlogic.engine.documents.model import Block, BlockKind

ARTICLE_RE = re.compile(r"^\s*(?:#+\s*)?(?:ARTICLE|Article|Art\.)\s+(\d+|premier|PREMIER|[IVXL]+)\b.*$")
CLAUSE_RE = re.compile(r"^\s*(\d+\.\d+(?:\.\d+)?)[.)]?\s+\S")
MD_TITLE_RE = re.compile(r"^\s*#{1,6}\s+\S")
TABLE_RE = re.compile(r"(\|.*\|)|(^[^;]*(;[^;]*){2,}$)")


def _lines(text: str) -> list[tuple[int, int, str]]:
    out, pos = [], 0
    for raw in text.split("\n"):
        out.append((pos, pos + len(raw), raw))
        pos += len(raw) + 1
    return out


def _is_title(line: str) -> bool:
    s = line.strip()
    if MD_TITLE_RE.match(line):
        return True
    letters = [c for c in s if c.isalpha()]
    return 3 <= len(s) <= 90 and len(letters) >= 3 and all(c.isupper() for c in letters)


def detect_blocks(text: str, start: int = 0, end: int | None = None, page: int | None = None) -> list[Block]:
    """Blocks of ``text[start:end]`` (offsets stay those of the whole text)."""
    end = len(text) if end is None else end
    reader = _BlockReader(page)
    for s, e, line in _lines(text):
        if s >= start and e <= end:
            reader.read(s, e, line)
    return reader.finish()


class _BlockReader:
    """The blocks of a run of lines, read one line at a time: an article open (and a clause in it), a paragraph
    or a table being gathered, the blocks closed so far."""

    def __init__(self, page: int | None) -> None:
        self.page = page
        self.blocks: list[Block] = []
        self.article: Block | None = None
        self.clause: Block | None = None
        self.para: list[tuple[int, int]] = []
        self.table: list[tuple[int, int]] = []

    def read(self, s: int, e: int, line: str) -> None:
        stripped = line.strip()
        if ARTICLE_RE.match(line):
            self._close_para()
            self._close_table()
            self._close_article()
            title = stripped.lstrip("#").strip()
            self.article = Block(kind=BlockKind.ARTICLE, char_start=s, char_end=e, page=self.page, title=title)
            return
        if self.article is not None:
            if not (stripped and _is_title(line) and not CLAUSE_RE.match(line)):
                self._in_article(s, e, line)
                return
            self._close_article()  # a title ends the article; the line is read as outside one
        self._outside(s, e, line, stripped)

    def _in_article(self, s: int, e: int, line: str) -> None:
        """A line of an open article: extends it, opens a numbered clause or extends the open one."""
        if not line.strip() or self.article is None:
            return
        self.article.char_end = e
        m_cl = CLAUSE_RE.match(line)
        if m_cl:
            self._close_clause()
            start = s + len(line) - len(line.lstrip())
            self.clause = Block(
                kind=BlockKind.CLAUSE, char_start=start, char_end=e, page=self.page, title=m_cl.group(1)
            )
        elif self.clause is not None:
            self.clause.char_end = e

    def _outside(self, s: int, e: int, line: str, stripped: str) -> None:
        """A line outside any article: a blank ends the paragraph or table; else a title, a table row, or prose."""
        if not stripped:
            self._close_para()
            self._close_table()
        elif _is_title(line):
            self._close_para()
            self._close_table()
            title = stripped.lstrip("#").strip()
            self.blocks.append(Block(kind=BlockKind.TITLE, char_start=s, char_end=e, page=self.page, title=title))
        elif TABLE_RE.search(line):
            self._close_para()
            self.table.append((s, e))
        else:
            self._close_table()
            self.para.append((s, e))

    def finish(self) -> list[Block]:
        self._close_para()
        self._close_table()
        self._close_article()
        self.blocks.sort(key=lambda b: (b.char_start, -b.char_end))
        return self.blocks

    def _close_para(self) -> None:
        if self.para:
            span = self.para[0][0], self.para[-1][1]
            self.blocks.append(Block(kind=BlockKind.PARAGRAPH, char_start=span[0], char_end=span[1], page=self.page))
            self.para.clear()

    def _close_table(self) -> None:
        if self.table:
            span = self.table[0][0], self.table[-1][1]
            self.blocks.append(Block(kind=BlockKind.TABLE, char_start=span[0], char_end=span[1], page=self.page))
            self.table.clear()

    def _close_clause(self) -> None:
        if self.clause is not None:
            self.blocks.append(self.clause)
            self.clause = None

    def _close_article(self) -> None:
        self._close_clause()
        if self.article is not None:
            self.blocks.append(self.article)
            self.article = None

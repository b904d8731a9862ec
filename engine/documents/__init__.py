"""Documents of a dossier: ingestion with layout, text with character offsets, chunks that keep grounding."""

from lexlogic.engine.documents.model import Block, Chunk, Document, Page, Word

__all__ = ["Block", "Chunk", "Document", "Page", "Word"]

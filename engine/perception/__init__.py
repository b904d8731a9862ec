"""Perception: documents → grounded facts (offline French extractor, or an LLM), ambiguity nodes."""

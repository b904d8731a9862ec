"""Evidence knowledge graph: explicit and discursive assertions, promotion, defensibility tiers.

Three layers, no fourth: ``RawAssertion`` (append-only journal) → ``CanonicalRelation`` (dedup and
aggregation) → ``SemanticRelation`` (promoted, traversable). Evidence lives in ``EvidenceBundle``s,
which justify but are never traversed.
"""

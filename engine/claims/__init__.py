"""Claim verification against the dossier: search widely (embeddings), verify precisely (a judge).

Modules: ``models`` (VerificationResult…), ``memory`` (evidence memory and its index), ``facets``
(what French legal claims turn on: dates, durations, amounts, parties, negation, modality),
``judge_offline`` / ``judge_llm``, ``verify`` (find_evidence), ``extract`` (claims of a submission),
``case_updates`` (results → prior updates / ambiguities).
"""

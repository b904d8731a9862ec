"""Pydantic models whose validator and serializer are built on their first use, not when their module is imported.

Why: a cold ``lexlogic analyze FACTS.json`` takes its pack from the pack cache on disk
(``engine/packs/disk_cache``): the pack's objects are unpickled, never validated, so the pack's own models
(the manifest, facts, computations, parameters, the weights file and its laws of numbers…) need no validator in that process; building them at import
cost ~10 ms of every cold command (issue 33). A process that reads a pack's files builds them on first use.
Also the models such a command never meets: the documents of a dossier, an LLM's plan proposal, a dynamic
rule's metadata (~5 ms more).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class DeferredModel(BaseModel):
    """A ``BaseModel`` built on first use (``defer_build``); a subclass's own ``model_config`` adds to it."""

    model_config = ConfigDict(defer_build=True)

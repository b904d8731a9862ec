"""Fallacy analysis: own taxonomy (+ Argumentum CSV loader), guided navigation with a stop condition,
LLM and offline navigators, and the attachment of findings to a narrative's arguments."""

from lexlogic.engine.fallacies.analyse import analyse, make_navigator
from lexlogic.engine.fallacies.navigation import ConfirmedFallacy, FallacyAnalysis, StepStatus, navigate, step
from lexlogic.engine.fallacies.taxonomy import (
    FallacyNode,
    Taxonomy,
    TaxonomyError,
    builtin_taxonomy,
    load_argumentum_csv,
    load_taxonomy,
)

__all__ = [
    "analyse",
    "make_navigator",
    "navigate",
    "step",
    "StepStatus",
    "FallacyAnalysis",
    "ConfirmedFallacy",
    "FallacyNode",
    "Taxonomy",
    "TaxonomyError",
    "builtin_taxonomy",
    "load_argumentum_csv",
    "load_taxonomy",
]

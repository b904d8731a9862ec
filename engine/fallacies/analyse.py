"""One entry point: analyse a text with the LLM navigator when configured, the offline one otherwise."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from lexlogic.bridges.llm import LLMClient
from lexlogic.engine.fallacies.actions import Navigator
from lexlogic.engine.fallacies.navigation import FallacyAnalysis, navigate
from lexlogic.engine.fallacies.taxonomy import Taxonomy, load_taxonomy
from lexlogic.logic.errors import UnavailableError

Mode = Literal["auto", "llm", "offline"]


class NavigatorUnavailable(UnavailableError, RuntimeError):
    pass


def make_navigator(mode: Mode = "auto", client: LLMClient | None = None, cache: Path | None = None) -> Navigator:
    """auto: the LLM when the edge gives a client (``LLMClient.from_settings``: LEXLOGIC_LLM_BASE_URL is set),
    else the offline memory navigator, its vectors cached in ``cache`` (``Settings.fallacies_cache``)."""
    if mode in ("auto", "llm"):
        if client is not None:
            from lexlogic.engine.fallacies.navigators.llm import LLMNavigator

            return LLMNavigator(client)
        if mode == "llm":
            raise NavigatorUnavailable("no LLM configured: set LEXLOGIC_LLM_BASE_URL (or use --navigator offline)")
    from lexlogic.engine.fallacies.navigators.knn import KnnNavigator

    return KnnNavigator(
        cache=cache
    )  # memory + structural detectors (issue 19); hands over to issue 11's on other taxonomies


def analyse(
    text: str,
    taxonomy: Taxonomy | Path | str | None = None,
    navigator: Navigator | None = None,
    *,
    beam_width: int = 2,
    max_steps: int = 24,
) -> FallacyAnalysis:
    tax = taxonomy if isinstance(taxonomy, Taxonomy) else load_taxonomy(taxonomy)
    return navigate(text.strip(), tax, navigator or make_navigator(), beam_width=beam_width, max_steps=max_steps)

"""Offline navigator: embedding similarity between the argument and each branch's exemplars.

A branch's score is the best cosine between the argument and any exemplar (name+definition, example)
in its subtree, where a fallacy whose cue pattern fires on the argument (data/cues.yaml: the surface
form of the reasoning, which embeddings of the topic miss) gets the calibrated bonus β on all its
exemplars; the "sound" reference is the best cosine with the shipped sound legal arguments. The
margin score − reference, against the calibrated τ, decides: below τ at the root → conclude no fallacy;
otherwise explore the best branch (and a runner-up within beam_delta), confirm a leaf, or confirm the
current node when its own exemplar beats all its children. A cue alone never confirms anything: the
margin must still clear τ.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from lexlogic.bridges.embeddings import embed_query
from lexlogic.engine.fallacies.actions import ConcludeNoFallacy, ConfirmFallacy, Decision, ExploreBranch
from lexlogic.engine.fallacies.cues import cue_hits
from lexlogic.engine.fallacies.embedding_index import index_for, node_texts, sound_anchor_vectors
from lexlogic.engine.fallacies.taxonomy import FallacyNode, Taxonomy
from lexlogic.engine.fallacies.thresholds import NavigatorThresholds, load_thresholds


class OfflineNavigator:
    name = "offline-embeddings"

    def __init__(
        self,
        thresholds: NavigatorThresholds | None = None,
        beam_width: int = 2,
        query_vectors: dict[str, np.ndarray] | None = None,
        cache: Path | None = None,
    ) -> None:
        self.cache = cache  # the vectors' disk cache (Settings.fallacies_cache; None: the user's cache)
        self.thresholds = thresholds or load_thresholds()
        self.beam_width = beam_width
        self.query_vectors = query_vectors  # argument → its embedding, when already computed (calibration)
        # (argument, taxonomy hash, β, scores, reference, cue hits)
        self._last: tuple[str, str, float, np.ndarray, float, set[str]] | None = None

    def scores(self, argument: str, taxonomy: Taxonomy) -> tuple[np.ndarray, float]:
        """Scores of every exemplar row (cosine + β on the rows of cued fallacies), and the sound reference.

        One embedding per argument; the cue bonus goes on the rows, so subtree maxima carry it upwards.
        """
        key = taxonomy.content_hash()
        beta = self.thresholds.cue_weight
        if self._last and self._last[:3] == (argument, key, beta):
            return self._last[3], self._last[4]
        q = self.query_vectors.get(argument) if self.query_vectors else None
        q = embed_query(argument) if q is None else q
        index = index_for(taxonomy, self.cache)
        sims = index.similarities(q).copy()
        hits = {h for h in cue_hits(argument) if h in index.own} if beta else set()
        for node_id in hits:
            sims[index.own[node_id]] += beta
        reference = float((sound_anchor_vectors(self.cache) @ q).max())
        self._last = (argument, key, beta, sims, reference, hits)
        return sims, reference

    def cue_hits(self, argument: str, taxonomy: Taxonomy) -> set[str]:
        """The fallacies whose cue fired on the argument (as used in its scores)."""
        self.scores(argument, taxonomy)
        assert self._last is not None
        return set(self._last[5])

    def margin(self, argument: str, taxonomy: Taxonomy) -> tuple[float, FallacyNode]:
        """Margin of the best family over the sound reference (what calibration fits τ on)."""
        sims, ref = self.scores(argument, taxonomy)
        index = index_for(taxonomy, self.cache)
        best = max(taxonomy.children(taxonomy.root.id), key=lambda c: index.subtree_score(sims, c.id))
        return index.subtree_score(sims, best.id) - ref, best

    def _why(self, node: FallacyNode, sims: np.ndarray, taxonomy: Taxonomy, margin: float) -> str:
        index = index_for(taxonomy, self.cache)
        rows = index.own[node.id]
        which = int(np.argmax(sims[rows]))
        part = "sa définition" if which == 0 else ("son exemple" if which == 1 else "un exemple complémentaire")
        cued = self._last is not None and node.id in self._last[5]
        beta = self.thresholds.cue_weight
        cue = f", dont +{beta:.3f} car sa forme typique est repérée dans le texte" if cued else ""
        return (
            f"L'argument est le plus proche de {part} (score {float(sims[rows][which]):.3f}{cue}, cos "
            f"{float(sims[rows][which]) - (beta if cued else 0.0):.3f}) ; "
            f"écart {margin:+.3f} avec l'argument sain de référence le plus proche "
            f"(seuil calibré τ={self.thresholds.margin_conclude:+.3f})."
        )

    def decide(self, argument: str, taxonomy: Taxonomy, node: FallacyNode) -> Decision:
        sims, ref = self.scores(argument, taxonomy)
        index = index_for(taxonomy, self.cache)
        th = self.thresholds
        children = taxonomy.children(node.id)
        if not children:
            return Decision(note="leaf reached without confirmation")
        scored = sorted(((index.subtree_score(sims, c.id), c) for c in children), key=lambda t: -t[0])
        best_score, best = scored[0]
        if best_score - ref < th.margin_conclude:
            if node.id == taxonomy.root.id:
                return Decision(
                    actions=[
                        ConcludeNoFallacy(
                            reason=(
                                f"aucune famille ne se distingue : la plus proche, « {best.name_fr} » (score {best_score:.3f}), "
                                f"n'excède la référence d'argument sain ({ref:.3f}) que de {best_score - ref:+.3f}, "
                                f"sous le seuil calibré τ={th.margin_conclude:+.3f}"
                            )
                        )
                    ]
                )
            return Decision(note="branch below threshold: abandoned")
        own = index.own_score(sims, node.id)
        if node.id != taxonomy.root.id and own >= best_score:
            m = own - ref
            return Decision(
                actions=[
                    ConfirmFallacy(
                        node_id=node.id, confidence=th.confidence(m), justification=self._why(node, sims, taxonomy, m)
                    )
                ]
            )
        actions: list = []
        for score, child in scored[: self.beam_width]:
            m = score - ref
            if score < best_score - th.beam_delta or m < th.margin_conclude:
                break
            if child.is_leaf:
                actions.append(
                    ConfirmFallacy(
                        node_id=child.id, confidence=th.confidence(m), justification=self._why(child, sims, taxonomy, m)
                    )
                )
            else:
                actions.append(ExploreBranch(node_id=child.id, score=score))
        return Decision(actions=actions)


__all__ = ["OfflineNavigator", "node_texts"]

"""Offline navigator of issue 19: nearest-neighbour memory + structural detectors, jointly calibrated.

For an argument: every leaf's score is its memory score (``memory.FallacyMemory``) plus β × the strength
of a structural detector that recognises that fallacy's form (``detectors``). A fallacy is found when the
margin of the best leaf over the sound reference reaches the calibrated τ, or when the memory's linear
head (``head.py``) gives P(fallacious) ≥ θ; the best leaf names it. At the root: below τ → conclude no fallacy;
otherwise explore the branch that holds the best leaf, down to it, and confirm it. The walk through the
tree is kept (the trace shows each step) although the decision is taken once, on the leaves.

Only the built-in taxonomy has a memory; for another taxonomy (an Argumentum CSV) this navigator hands
over to issue 11's embedding navigator.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from pydantic import BaseModel, Field

from lexlogic.engine.fallacies.actions import ConcludeNoFallacy, ConfirmFallacy, Decision, ExploreBranch
from lexlogic.engine.fallacies.detectors import Detection, detect
from lexlogic.engine.fallacies.memory import FallacyMemory, builtin_memory
from lexlogic.engine.fallacies.taxonomy import DATA_DIR, FallacyNode, Taxonomy, builtin_taxonomy

KNN_THRESHOLDS = DATA_DIR / "knn_thresholds.json"

if TYPE_CHECKING:  # imported lazily at run time (a heavy module)
    from lexlogic.engine.fallacies.navigators.offline import OfflineNavigator


class KnnThresholds(BaseModel):
    """Written by ``python -m tests.fallacies.cv --write`` (cross-validated on the development sets; never by hand)."""

    tau: float = Field(default=0.0, description="margin (best leaf score − sound reference) needed to confirm")
    beta: float = Field(default=0.05, description="weight of a structural detector's strength on its leaf")
    m: int = Field(default=2, description="nearest rows averaged per leaf")
    theta: float = Field(default=1.01, description="P(fallacious) from the linear head that also confirms (>1: off)")
    logistic_a: float = 40.0
    calibrated_on: str = ""
    figures: dict[str, float] = Field(default_factory=dict)

    def fired(self, margin: float, p_fallacious: float) -> bool:
        return margin >= self.tau or p_fallacious >= self.theta

    def confidence(self, margin: float, p_fallacious: float = 0.0) -> float:
        z = self.logistic_a * (margin - self.tau) + 1.0
        return round(max(1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, z)))), p_fallacious), 3)

    def save(self, path: Path = KNN_THRESHOLDS) -> None:
        path.write_text(json.dumps(self.model_dump(), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def load_knn_thresholds(path: Path = KNN_THRESHOLDS) -> KnnThresholds:
    return KnnThresholds.model_validate_json(path.read_text(encoding="utf-8")) if path.exists() else KnnThresholds()


class KnnReading(BaseModel):
    leaf: str
    score: float
    margin: float
    sound: float
    detection: str = ""
    nearest: str = ""
    p_fallacious: float = 0.0


class KnnNavigator:
    name = "offline-memory"

    def __init__(
        self, thresholds: KnnThresholds | None = None, memory: FallacyMemory | None = None, cache: Path | None = None
    ) -> None:
        self.cache = cache  # the vectors' disk cache (Settings.fallacies_cache; None: the user's cache)
        self.th = thresholds or load_knn_thresholds()
        self._memory = memory
        self._cache: dict[str, KnnReading] = {}
        self._fallback: OfflineNavigator | None = None

    @property
    def memory(self) -> FallacyMemory:
        if self._memory is None:
            self._memory = builtin_memory(self.cache)
        return self._memory

    def read(self, argument: str, q: np.ndarray | None = None) -> KnnReading:
        """The best leaf for ``argument`` with its margin over sound arguments (cached per argument)."""
        hit = self._cache.get(argument)
        if hit is not None and q is None:
            return hit
        q = self.memory.embed(argument) if q is None else q
        scores, sound, nearest = self.memory.scores(q, self.th.m)
        dets: dict[str, Detection] = {}
        for d in detect(argument):
            if d.node in scores and d.node not in dets:
                dets[d.node] = d
        combined = {
            leaf: s + self.th.beta * (dets[leaf].strength if leaf in dets else 0.0) for leaf, s in scores.items()
        }
        leaf = max(combined, key=lambda k: combined[k])
        r = KnnReading(
            leaf=leaf,
            score=combined[leaf],
            margin=combined[leaf] - sound,
            sound=sound,
            detection=dets[leaf].reason if leaf in dets else "",
            nearest=nearest.get(leaf, ""),
            p_fallacious=round(float(self.memory.head.probability(q)), 4),
        )
        if len(self._cache) > 2048:
            self._cache.clear()
        self._cache[argument] = r
        return r

    def _why(self, r: KnnReading, node: FallacyNode) -> str:
        form = f" ; forme repérée : {r.detection} (+{self.th.beta:.3f})" if r.detection else ""
        return (
            f"Argument le plus proche des exemples de « {node.name_fr} » (score {r.score:.3f}) ; exemple voisin : "
            f"« {r.nearest[:140]} »{form} ; écart {r.margin:+.3f} avec les arguments sains les plus proches "
            f"(seuil calibré τ={self.th.tau:+.3f}) ; probabilité d'un sophisme selon la mémoire {r.p_fallacious:.2f} "
            f"(seuil θ={self.th.theta:.2f})."
        )

    def decide(self, argument: str, taxonomy: Taxonomy, node: FallacyNode) -> Decision:
        if taxonomy.content_hash() != builtin_taxonomy().content_hash():
            if self._fallback is None:
                from lexlogic.engine.fallacies.navigators.offline import OfflineNavigator

                self._fallback = OfflineNavigator(cache=self.cache)
            return self._fallback.decide(argument, taxonomy, node)
        r = self.read(argument)
        if not self.th.fired(r.margin, r.p_fallacious):
            if node.id == taxonomy.root.id:
                best = taxonomy.nodes[r.leaf]
                return Decision(
                    actions=[
                        ConcludeNoFallacy(
                            reason=(
                                f"aucun sophisme ne se distingue : le plus proche, « {best.name_fr} » (score "
                                f"{r.score:.3f}), n'excède les arguments sains ({r.sound:.3f}) que de {r.margin:+.3f}, "
                                f"sous le seuil calibré τ={self.th.tau:+.3f}, et la probabilité d'un sophisme "
                                f"({r.p_fallacious:.2f}) reste sous θ={self.th.theta:.2f}"
                            )
                        )
                    ]
                )
            return Decision(note="below threshold: abandoned")
        path = [a.id for a in taxonomy.ancestors(r.leaf)] + [r.leaf]
        if node.id not in path:
            return Decision(note="the best leaf is in another branch")
        nxt = taxonomy.nodes[path[path.index(node.id) + 1]]
        if nxt.is_leaf:
            return Decision(
                actions=[
                    ConfirmFallacy(
                        node_id=nxt.id,
                        confidence=self.th.confidence(r.margin, r.p_fallacious),
                        justification=self._why(r, nxt),
                    )
                ]
            )
        return Decision(actions=[ExploreBranch(node_id=nxt.id, score=r.score)])

"""How a probability was computed, in the words the CLI, the report and the API share.

Why one place: a sampled probability must never read as a computed one. « calcul exact » only when the
number is exact (contraction or enumeration); a sampled one is « estimée par échantillonnage (± x …) »,
x the half-width of its 95 % interval in points, with the draws counted.
"""

from __future__ import annotations

from typing import Any

from lexlogic.engine.text import formatting

SAMPLED = {"monte_carlo": "échantillonnage", "pyro": "échantillonnage d'importance (Pyro)"}


def _count(n: int, one: str, many: str) -> str:
    return f"{formatting.number(n)} {one if n <= 1 else many}"


def _points(x: float) -> str:
    """A half-width in percentage points: ``0,4 point``, ``1,2 points``."""
    pts = round(100 * x, 1)
    if pts < 0.1:
        return "moins de 0,1 point"  # never « ± 0 »: a sampled number is never known to be exact
    return f"{formatting.number(pts)} point{'s' if pts >= 2 else ''}"


def method_phrase(prob: dict[str, Any]) -> str:
    """« (calcul exact, 1 024 mondes) » or « estimée par échantillonnage (± 0,4 point à 95 %, 62 515 tirages) »
    from a verdict's ``probability`` (its JSON, or the fields by name); "" without a method."""
    method = str(prob.get("method") or "")
    if not method:
        return ""
    plan = prob.get("plan") or {}
    n = int(prob.get("n_worlds") or 0)
    if method in SAMPLED or plan.get("route") in ("sampling", "pyro"):
        how = SAMPLED.get(method, "échantillonnage")
        draws = int(plan.get("samples") or n)
        half = 1.96 * float(prob.get("error") or 0.0) or 3.0 / max(draws, 1)  # every draw agreed: rule of three
        return f"estimée par {how} (± {_points(half)} à 95 %, {_count(draws, 'tirage', 'tirages')})"
    how = {"exact": "calcul exact", "symbolic": "règles seules"}.get(method, method)
    if method == "exact" and plan.get("route") == "enumeration":
        how = "calcul exact par énumération"
    return f"({how}, {_count(n, 'monde', 'mondes')})" if n else f"({how})"

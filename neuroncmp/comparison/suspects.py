"""Which of a side's values cannot be trusted: its input anomalies, and the derived values that inherit them.

Apart from the differ so that the views of one profile (``show``'s bounds) read it without loading the
comparison's machinery.
"""

from __future__ import annotations

from functools import lru_cache

from ..catalog import derived_specs
from .result import Side


def suspects(side: Side) -> dict[str, str]:
    """Metric -> why its value on this side cannot be trusted (its anomalies, or an input's)."""
    found: dict[str, str] = {}
    for profile in side.profiles:
        for anomaly in profile.anomalies:
            if anomaly.metric:
                found.setdefault(anomaly.metric, f"{side.label}: {anomaly.code} ({anomaly.message})")
    if not found:
        return found  # nothing to inherit (every side of a clean sweep: no walk over the derived metrics)
    for name, source in _inherited(frozenset(found)):
        found[name] = found[source]
    return found


@lru_cache(maxsize=256)
def _inherited(doubted: frozenset[str]) -> tuple[tuple[str, str], ...]:
    """(derived metric, the input whose doubt it inherits) for the metrics ``doubted``, in the order
    they are inherited: the first doubted input of each derived metric not doubted itself, in catalog
    order, a derived input included. It depends on which metrics are doubted only (a shape: 500
    sides of one sweep doubt the same seven), so it is worked out once per set of them."""
    having, plan = set(doubted), []
    for spec in derived_specs():
        source = next((name for name in spec.every_input if name in having), None)
        if source is not None and spec.name not in having:
            plan.append((spec.name, source))
            having.add(spec.name)
    return tuple(plan)

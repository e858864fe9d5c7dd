"""Which of a side's values cannot be trusted: its input anomalies, and the derived values that inherit them.

Apart from the differ so that the views of one profile (``show``'s bounds) read it without loading the
comparison's machinery.
"""

from __future__ import annotations

from ..catalog import derived_specs
from .result import Side


def suspects(side: Side) -> dict[str, str]:
    """Metric -> why its value on this side cannot be trusted (its anomalies, or an input's)."""
    found: dict[str, str] = {}
    for profile in side.profiles:
        for anomaly in profile.anomalies:
            if anomaly.metric:
                found.setdefault(anomaly.metric, f"{side.label}: {anomaly.code} ({anomaly.message})")
    for spec in derived_specs():  # in catalog order: a derived input's doubt passes on
        source = next((name for name in spec.every_input if name in found), None)
        if source is not None and spec.name not in found:
            found[spec.name] = found[source]  # the first doubted input's
    return found

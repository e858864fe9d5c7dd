"""One profile as plain data (``neuroncmp show --format json``), schema ``neuroncmp.profile/1``
(``docs/profile-json.md``); a NaN or an infinity becomes ``null`` when written (``json_out``)."""

from __future__ import annotations

from typing import Any

from ..model import Metric, Profile

PROFILE_SCHEMA = "neuroncmp.profile/1"


def metric_dict(metric: Metric) -> dict[str, Any]:
    return {"value": metric.value, "unit": metric.unit, "group": metric.group,
            "raw": metric.raw, "catalogued": metric.catalogued}


def values_read(profile: Profile, name: str) -> Any:
    metric = profile.metrics.get(name) or profile.training.get(name)
    return None if metric is None else metric.value


def profile_dict(profile: Profile) -> dict[str, Any]:
    values = profile.values
    return {
        "schema": PROFILE_SCHEMA,
        "label": profile.label,
        "source": profile.source._asdict(),
        "params": profile.params,
        "metadata": profile.metadata,
        "metrics": {name: metric_dict(m) for name, m in profile.metrics.items() if name not in values.unavailable},
        "memory": [row._asdict() for row in profile.memory],
        "memory_total_bytes": profile.memory_total(),
        "training": {name: metric_dict(m) for name, m in profile.training.items()},
        "derived": {name: dict(metric_dict(m), formula=m.raw.removeprefix("= "))
                    for name, m in values.derived.items()},
        # read, but no measurement (``conventions``), and derived metrics an input of which is there
        "not_available": {name: {"read": values_read(profile, name), "why": why}
                          for name, why in values.unavailable.items()},
        "not_computed": dict(values.not_computed),
        "notes": profile.notes,
        "anomalies": [a._asdict() for a in profile.anomalies],
        "uncatalogued": profile.uncatalogued(),
        "skipped": {"count": len(profile.skipped), "items": [s._asdict() for s in profile.skipped]},
    }

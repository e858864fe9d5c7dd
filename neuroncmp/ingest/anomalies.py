"""Data-quality checks run on every loaded profile: anomalies are recorded on it, never raised.

Values out of their kind's range are found by ``validate``; the checks here compare values with
each other (a memory Total against its rows, cycles against time x clock, shares against times).
"""

from __future__ import annotations

from .. import hardware
from ..model import Anomaly, Profile
from ..units import format_value
from . import derived_doubts, validate

MEMORY_TOLERANCE = 0.001   # a Total and its rows are each rounded to 4 significant digits
CYCLE_TOLERANCE = 0.005
SHARE_TOLERANCE = 0.01     # relative; plus half a display step of the percent
CODES = validate.CODES + ("memory-total-mismatch", "cycles-mismatch", "share-mismatch")


def check(profile: Profile) -> None:
    """Append every anomaly found in ``profile`` (idempotent: replaces earlier check results,
    keeps what the parsers recorded, such as ``duplicate-metric``)."""
    profile.anomalies[:] = [a for a in profile.anomalies if a.code not in CODES]
    profile.anomalies.extend(validate.findings(profile))
    for finder in (_memory_total, _cycles, _active_shares, derived_doubts.doubts):
        profile.anomalies.extend(finder(profile))


def _memory_total(profile: Profile) -> list[Anomaly]:
    totals = [r.bytes for r in profile.memory if r.usage_type == "total"]
    rows = profile.memory_rows()
    if not totals or not rows:
        return []
    total, summed = sum(totals), sum(r.bytes for r in rows)
    if abs(total - summed) <= MEMORY_TOLERANCE * max(total, 1):
        return []
    return [Anomaly("memory-total-mismatch", f"memory Total {format_value(total, 'B')} is not the "
                    f"sum of its rows ({format_value(summed, 'B')})", "device_memory_total")]


def clock_hz(profile: Profile) -> float | None:
    clock = profile.value("neuroncore_frequency")
    if isinstance(clock, (int, float)):
        return float(clock)
    return hardware.clock_hz(profile.info("instance_type"))  # the family's, when the profile has none


def _cycles(profile: Profile) -> list[Anomaly]:
    cycles, total, clock = (profile.value("neuroncore_cycle_count"), profile.value("total_time"),
                            clock_hz(profile))
    if not all(isinstance(v, (int, float)) for v in (cycles, total)) or not clock or not total:
        return []
    implied = cycles / clock  # type: ignore[operator]
    if abs(implied - total) <= CYCLE_TOLERANCE * total:  # type: ignore[operator]
        return []
    return [Anomaly("cycles-mismatch", f"neuroncore_cycle_count / {clock / 1e9:g} GHz = "
                    f"{format_value(implied, 's')}, but total_time is {format_value(total, 's')}",
                    "neuroncore_cycle_count")]


def _active_shares(profile: Profile) -> list[Anomaly]:
    """``X_time / total_time`` should equal ``X_time_percent`` (active-time pairs)."""
    total = profile.value("total_time")
    if not isinstance(total, (int, float)) or not total:
        return []
    found = []
    for name, metric in profile.metrics.items():
        if not name.endswith("_active_time_percent") or not isinstance(metric.value, (int, float)):
            continue
        time = profile.value(name.removesuffix("_percent"))
        if not isinstance(time, (int, float)):
            continue
        share = time / total
        if abs(share - metric.value) > SHARE_TOLERANCE * max(share, metric.value) + 5e-5:
            found.append(Anomaly("share-mismatch", f"{name} is {format_value(metric.value, 'fraction')}"
                                 f" but {name.removesuffix('_percent')} / total_time is "
                                 f"{format_value(share, 'fraction')}", name))
    return found

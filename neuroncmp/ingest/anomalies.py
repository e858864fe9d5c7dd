"""Data-quality checks run on every loaded profile: anomalies are recorded on it, never raised.

Values out of their kind's range are found by ``validate``; the checks here compare values with
each other, and each relation is one the profiler's own output keeps (docs/profile-json.md, "Data-quality
rules": the formulas, the real summaries each was confirmed on, the largest deviation seen there
and the tolerance chosen over it):

- a memory table's Total equals the sum of its rows, per device and core;
- ``neuroncore_cycle_count / clock = total_time``;
- ``X_active_time / total_time = X_active_time_percent`` for the engines, DMA, collectives and
  ``total_active_time``; the DMA classes (``static_``, ``software_dynamic_``,
  ``hardware_dynamic_dma_active_time_percent``) are shares of ``dma_active_time`` in
  neuron-profile's output (2.27, 2.28: exact) and of ``total_time`` in other real output, so
  either denominator is accepted;
- ``dynamic_dma_active_time_percent = software_dynamic_ + hardware_dynamic_dma_active_time_percent``
  (the dynamic class has no time of its own to check against).
"""

from __future__ import annotations

import math
from typing import Any

from .. import hardware
from ..model import Anomaly, Profile
from ..units import FRACTION, as_float, format_value, is_number
from . import derived_doubts, validate

# Tolerances, from the real summaries (docs/profile-json.md): the largest deviation seen
# on good data, and the margin kept over it. Exact output (JSON floats) deviates by < 1e-12;
# display output (a Total and its rows rounded to 4 significant digits, percents to 2 decimals)
# by what its rounding allows.
MEMORY_TOLERANCE = 0.001   # relative; largest seen 1.64e-4 (the bundled b16 table): 6x margin
CYCLE_TOLERANCE = 0.005    # relative; largest seen 7.6e-5 (total_time written 54.82 ms): 66x
SHARE_TOLERANCE = 0.01     # relative, plus half a display step of a percent (0.005 % = 5e-5);
# largest seen beyond that step 0.53 % (bundled b2 GpSimd 1.92 % against 1.935 %): 1.9x
SHARE_STEP = 5e-5
DMA_CLASSES = ("static_dma_active_time_percent", "software_dynamic_dma_active_time_percent",
               "hardware_dynamic_dma_active_time_percent")
SHARE_SUFFIX = "_active_time_percent"  # ``X_active_time_percent`` is the share of ``X_active_time`` (``share_time``)
DYNAMIC_DMA = ("dynamic_dma_active_time_percent", "software_dynamic_dma_active_time_percent",
               "hardware_dynamic_dma_active_time_percent")  # the first is the sum of the other two
CODES = validate.CODES + ("memory-total-mismatch", "cycles-mismatch", "share-mismatch", "impossible-rate")
# Counts of work in one step, and the most a NeuronCore can do per second of it (hardware.py).
RATE_BOUNDS = {**dict.fromkeys(("model_flops", "hardware_flops", "transpose_flops"),
                               (hardware.MAX_FLOP_RATE, "FLOP/s")),
               **dict.fromkeys(("hbm_read_bytes", "hbm_write_bytes", "dma_transfer_total_bytes"),
                               (hardware.MAX_BYTE_RATE, "B/s"))}


def checked(profile: Profile) -> Profile:
    """``profile`` with every anomaly found in it (earlier check results replaced; what the parsers
    recorded, such as ``duplicate-metric``, kept)."""
    kept = [anomaly for anomaly in profile.anomalies if anomaly.code not in CODES]
    found = [*validate.findings(profile), *_memory_total(profile), *_impossible_rates(profile), *_cycles(profile),
             *_active_shares(profile), *_dynamic_dma(profile), *derived_doubts.doubts(profile)]
    return profile.replace(anomalies=kept + found)


def _impossible_rates(profile: Profile) -> list[Anomaly]:
    """A count of work a step could not hold: FLOPs or HBM and DMA bytes over ``total_time`` beyond
    what any NeuronCore reaches (``RATE_BOUNDS``). A value outside its kind's range (negative, past
    the absolute bound: ``validate``) is flagged there, not twice."""
    total = profile.metrics.get("total_time")
    step = _number(total.value) if total is not None else None
    if total is None or step is None or not 0 < step < math.inf:
        return []
    out = []
    for name, (bound, unit) in RATE_BOUNDS.items():
        metric = profile.metrics.get(name)
        value = _number(metric.value) if metric is not None and validate.metric_anomaly(metric) is None else None
        if metric is None or value is None or not value / step > bound:
            continue
        out.append(Anomaly("impossible-rate", f"{name} is {format_value(value, metric.unit)} in a "
                           f"{format_value(step, total.unit)} step: {value / step:.3g} {unit}, more than "
                           f"{IMPOSSIBLE_RATE_TEXT[unit]} (kept as read)", name))
    return out


def _number(value: Any) -> float | None:
    """A number's value as a float (``is_number``; an integer beyond a float's range an infinity,
    which ``validate`` flags), else None."""
    return as_float(value) if is_number(value) else None


IMPOSSIBLE_RATE_TEXT = {"FLOP/s": f"any NeuronCore's {hardware.MAX_FLOP_RATE:.3g} FLOP/s (10x the fastest)",
                        "B/s": f"any NeuronCore's {hardware.MAX_BYTE_RATE:.3g} B/s (10x the fastest)"}


def share_time(name: str) -> str | None:
    """The time a share is of: ``tensor_engine_active_time_percent`` -> ``tensor_engine_active_time``
    (None for a name that is no active-time share)."""
    return name.removesuffix("_percent") if name.endswith(SHARE_SUFFIX) else None


def _memory_total(profile: Profile) -> list[Anomaly]:
    """Per device and core: the table's Total against the sum of that core's rows (a core with
    rows but no Total row is not checked)."""
    groups: dict[tuple[int | None, int | None], list[int]] = {}
    totals: dict[tuple[int | None, int | None], int] = {}
    for row in profile.memory:
        key = (row.device, row.core)
        if row.usage_type == "total":
            totals[key] = totals.get(key, 0) + row.bytes
        else:
            groups.setdefault(key, []).append(row.bytes)
    found = []
    for key, total in totals.items():
        summed = sum(groups.get(key, []))
        if key in groups and abs(total - summed) > MEMORY_TOLERANCE * max(total, 1):
            where = f" (nd {key[0]}, nc {key[1]})" if len(totals) > 1 else ""
            found.append(Anomaly("memory-total-mismatch", f"memory Total{where} {format_value(total, 'B')} "
                                 f"is not the sum of its rows ({format_value(summed, 'B')})", "device_memory_total"))
    return found


def clock_hz(profile: Profile) -> float | None:
    """The NeuronCore clock: ``neuroncore_frequency``, else the instance family's."""
    clock = profile.value("neuroncore_frequency")
    if isinstance(clock, (int, float)):
        return float(clock)
    return hardware.clock_hz(profile.info("instance_type"))


def _cycles(profile: Profile) -> list[Anomaly]:
    cycles, total, clock = profile.value("neuroncore_cycle_count"), profile.value("total_time"), clock_hz(profile)
    if not isinstance(cycles, (int, float)) or not isinstance(total, (int, float)) or not clock or not total:
        return []
    implied = cycles / clock
    if abs(implied - total) <= CYCLE_TOLERANCE * total:
        return []
    return [Anomaly("cycles-mismatch", f"neuroncore_cycle_count / {clock / 1e9:g} GHz = "
                    f"{format_value(implied, 's')}, but total_time is {format_value(total, 's')}",
                    "neuroncore_cycle_count")]


def _active_shares(profile: Profile) -> list[Anomaly]:
    """``X_time / total_time`` should equal ``X_time_percent`` (active-time pairs); a DMA class's
    share may be of ``dma_active_time`` instead."""
    total, dma = profile.value("total_time"), profile.value("dma_active_time")
    if not isinstance(total, (int, float)) or not total:
        return []
    found = []
    for name in (name for name in profile.metrics if name.endswith(SHARE_SUFFIX)):
        percent, time = profile.metrics[name].value, profile.value(name[:-8])
        if not isinstance(percent, (int, float)) or not isinstance(time, (int, float)) or close(time / total, percent):
            continue
        of_dma = time / dma if name in DMA_CLASSES and isinstance(dma, (int, float)) and dma else None
        if of_dma is None or not close(of_dma, percent):
            found.append(_share_mismatch(name, percent, time / total, of_dma))
    return found


def _share_mismatch(name: str, written: float, share: float, of_dma: float | None) -> Anomaly:
    """``X_percent is 82.40 % but X / total_time is 84.59 %`` (the DMA share named first when there is one)."""
    time = name[:-8]
    written_text, share_text = format_value(written, FRACTION), format_value(share, FRACTION)
    if of_dma is None:
        said = f"{name} is {written_text} but {time} / total_time is {share_text}"
    else:
        said = (f"{name} is {written_text} but {time} / dma_active_time is {format_value(of_dma, FRACTION)} "
                f"or {time} / total_time is {share_text}")
    return Anomaly("share-mismatch", said, name)


def close(share: float, written: float) -> bool:
    """Whether a share written in the input matches the one its times give (the tolerance above)."""
    return abs(share - written) <= SHARE_TOLERANCE * max(share, written) + SHARE_STEP


def _dynamic_dma(profile: Profile) -> list[Anomaly]:
    """The dynamic DMA class is the software- and hardware-generated ones together."""
    dynamic, software, hardware_ = (profile.value(name) for name in DYNAMIC_DMA)
    if not (isinstance(dynamic, (int, float)) and isinstance(software, (int, float))
            and isinstance(hardware_, (int, float))) or close(software + hardware_, dynamic):
        return []
    return [Anomaly("share-mismatch", f"dynamic_dma_active_time_percent is {format_value(dynamic, 'fraction')} "
                    f"but software_dynamic_ + hardware_dynamic_dma_active_time_percent is "
                    f"{format_value(software + hardware_, 'fraction')}", "dynamic_dma_active_time_percent")]

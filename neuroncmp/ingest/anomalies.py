"""Data-quality checks run on every loaded profile: anomalies are recorded on it, never raised.

Values out of their kind's range are found by ``validate``; the checks here compare values with
each other, each a relation the profiler's own output keeps, and find derived ratios that are not
finite from finite inputs. The relations, the real summaries each was confirmed on and the
tolerances chosen over them: docs/profile-json.md ("Data-quality rules").
"""

from __future__ import annotations

import math
import sys
from collections.abc import Mapping
from typing import Any

from .. import hardware
from ..catalog import MetricSpec, derived_specs, lookup
from ..model import Anomaly, Profile
from ..units import FRACTION, as_float, finite_number, format_value, is_number
from . import validate

# Tolerances: the largest deviation seen on good real data, and the margin kept over it
# (docs/profile-json.md). Exact output (JSON floats) deviates by < 1e-12; display output by its rounding.
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
TINY = sys.float_info.min  # below it a float is subnormal: its reciprocal overflows


def checked(profile: Profile) -> Profile:
    """``profile`` with every anomaly found in it (earlier check results replaced; what the parsers
    recorded, such as ``duplicate-metric``, kept)."""
    kept = [anomaly for anomaly in profile.anomalies if anomaly.code not in CODES]
    found = [*validate.findings(profile), *_memory_total(profile), *_impossible_rates(profile), *_cycles(profile),
             *_active_shares(profile), *_dynamic_dma(profile), *_derived_doubts(profile)]
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


def _derived_doubts(profile: Profile) -> list[Anomaly]:
    """A derived value that is not finite from finite inputs (``batch_size / total_time`` over a step of
    5e-324 s) is no measurement: a ``non-finite-value`` anomaly on it, an ``out-of-range`` one on the input
    too small to divide by. Two zeros (``0 / 0``) are no doubt: the ratio does not exist."""
    values, derived = profile.values.numbers, profile.values.derived
    out: list[Anomaly] = []
    for spec in derived_specs():
        made = derived.get(spec.name)
        if made is not None and finite_number(made.value):
            continue  # the value set computed it from these same numbers: finite, no doubt
        if all(name in values for name in spec.inputs):
            out += _doubts_of(spec, values)
    return _once_per_input(out)


def _once_per_input(found: list[Anomaly]) -> list[Anomaly]:
    """One ``out-of-range`` anomaly per input, however many ratios divide by it."""
    seen: set[str | None] = set()
    out = []
    for anomaly in found:
        if anomaly.code == "out-of-range":
            if anomaly.metric in seen:
                continue
            seen.add(anomaly.metric)
        out.append(anomaly)
    return out


def _doubts_of(spec: MetricSpec, values: Mapping[str, Any]) -> list[Anomaly]:
    inputs = {name: values[name] for name in spec.inputs}
    if spec.compute is None or all(value == 0 for value in inputs.values()):
        return []
    try:
        result: float | None = spec.compute(values)
    except (ZeroDivisionError, OverflowError):  # OverflowError: where Python raises, not inf
        result = None
    if finite_number(result):
        return []
    tiny = [name for name, value in inputs.items() if abs(value) < TINY]
    shown = ", ".join(f"{name} {format_value(value, _unit(name))}" for name, value in inputs.items())
    found = [Anomaly("non-finite-value", f"{spec.name} = {spec.formula} is not finite ({shown})",
                     spec.name)]
    found += [Anomaly("out-of-range", f"{name} {inputs[name]!r} is too small to divide by: "
                      f"{spec.name} = {spec.formula} is not finite", name) for name in tiny]
    return found


def _unit(name: str) -> str:
    return "" if name == "batch_size" else lookup(name).unit

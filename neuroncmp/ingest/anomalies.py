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

from collections.abc import Iterable
from functools import lru_cache
from typing import Any, NamedTuple

from .. import catalog, hardware, model
from ..model import Anomaly, Picker, Profile, picker
from ..units import FRACTION, format_value
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
_new = tuple.__new__  # an Anomaly made without its Python-level __new__: the same record (7 a variant)
CODES = validate.CODES + ("memory-total-mismatch", "cycles-mismatch", "share-mismatch")


def check(profile: Profile) -> None:
    """Append every anomaly found in ``profile`` (idempotent: replaces earlier check results,
    keeps what the parsers recorded, such as ``duplicate-metric``)."""
    profile.anomalies[:] = [a for a in profile.anomalies if a.code not in CODES]
    columns = model.columns(profile)  # read once: every check below reads them
    profile.anomalies.extend(validate.findings(profile, columns))
    profile.anomalies.extend(_memory_total(profile))
    if columns is None:
        for finder in (_cycles, _active_shares, _dynamic_dma):
            profile.anomalies.extend(finder(profile))
        profile.anomalies.extend(derived_doubts.doubts(profile))
        return
    plan = _plan(columns.names, columns.metrics)
    values = (*columns.values, None)  # None at the place of a name the profile lacks
    cycles, total, clock, instance_type, dma, dynamic, software, hardware_ = plan.reads(values)
    profile.anomalies.extend(_cycles_found(cycles, total, _clock((clock, instance_type), profile)))
    profile.anomalies.extend(_shares_of(plan.shares, plan.written(values), plan.times(values), total, dma))
    profile.anomalies.extend(_dynamic_found(dynamic, software, hardware_))
    profile.anomalies.extend(derived_doubts.doubts(profile, model.remembered_values(profile, columns)))


class _Plan(NamedTuple):
    """Where the checks read a layout's values (``model.Columns``, then None at the last place): a
    name's place is its metric's, else its Trainer value's (``Profile.value``), else the last.
    Decided once per layout: a run's profiles share one (a variant's checks: ~58 -> ~30 us)."""

    reads: Picker  # the single values the checks read, in ``_READS`` order
    shares: tuple[tuple[str, bool], ...]  # each X_active_time_percent metric with its time: name, a DMA class?
    written: Picker     # their values
    times: Picker       # their X_active_time values


_READS = ("neuroncore_cycle_count", "total_time", "neuroncore_frequency", "instance_type", "dma_active_time",
          *DYNAMIC_DMA)


# (names, how many are metrics) -> the plan. Remembered for 256 layouts: names come from input files.
@lru_cache(maxsize=256)
def _plan(names: tuple[str, ...], metrics: int) -> _Plan:
    places = {name: index for index, name in enumerate(names[:metrics])}
    trainer = {name: metrics + index for index, name in enumerate(names[metrics:])}

    def place(name: str) -> int:
        name = catalog.canonical_name(name)
        return places.get(name, trainer.get(name, len(names)))

    shares = [(index, name) for index, name in enumerate(names[:metrics])
              if name.endswith(SHARE_SUFFIX) and place(name[:-8]) < len(names)]
    return _Plan(picker([place(name) for name in _READS]), tuple((name, name in DMA_CLASSES) for _, name in shares),
                 picker([index for index, _ in shares]), picker([place(name[:-8]) for _, name in shares]))


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
    return _clock((profile.value("neuroncore_frequency"), None), profile)


def _clock(read: tuple[Any, ...], profile: Profile) -> float | None:
    """The NeuronCore clock: ``neuroncore_frequency`` (read: it, and the ``instance_type`` value the
    plan read with it), else the instance family's (``Profile.info``: the metadata first)."""
    clock, instance_type = read
    if isinstance(clock, (int, float)):
        return float(clock)
    if "instance_type" in profile.metadata or instance_type is None:
        instance_type = profile.info("instance_type")
    return hardware.clock_hz(instance_type)  # the family's, when the profile has none


def _cycles(profile: Profile) -> list[Anomaly]:
    return _cycles_found(profile.value("neuroncore_cycle_count"), profile.value("total_time"), clock_hz(profile))


def _cycles_found(cycles: Any, total: Any, clock: float | None) -> list[Anomaly]:
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
    names = [name for name in profile.metrics if name.endswith(SHARE_SUFFIX)]
    return _shares_of([(name, name in DMA_CLASSES) for name in names], [profile.metrics[name].value for name in names],
                      [profile.value(name[:-8]) for name in names],
                      profile.value("total_time"), profile.value("dma_active_time"))


def _shares_of(pairs: Iterable[tuple[str, bool]], written: Iterable[Any], times: Iterable[Any], total: Any,
               dma: Any) -> list[Anomaly]:
    """The share mismatches of ``pairs`` (``X_active_time_percent``'s name, whether a DMA class):
    each ``written`` percent against its ``times``' share of ``total`` (or of ``dma``)."""
    if not isinstance(total, (int, float)) or not total:
        return []
    found = []
    # every pair tested inline: this check was a tenth of loading a summary-json (a variant
    # with 7 mismatches: 385k -> 335k instructions, callgrind)
    for (name, dma_class), percent, time in zip(pairs, written, times):
        if not isinstance(percent, (int, float)) or not isinstance(time, (int, float)):
            continue
        share = time / total
        if close(share, percent):
            continue
        of_dma = time / dma if dma_class and isinstance(dma, (int, float)) and dma else None
        if of_dma is None or not close(of_dma, percent):
            found.append(_share_mismatch(name, percent, share, of_dma))
    return found


def _share_mismatch(name: str, written: float, share: float, of_dma: float | None) -> Anomaly:
    """``X_percent is 82.40 % but X / total_time is 84.59 %`` (the DMA share named first when there is one)."""
    time = name[:-8]
    written_text, share_text = format_value(written, FRACTION), format_value(share, FRACTION)
    if of_dma is None:  # each message joined once (7 a variant)
        said = f"{name} is {written_text} but {time} / total_time is {share_text}"
    else:
        said = (f"{name} is {written_text} but {time} / dma_active_time is {format_value(of_dma, FRACTION)} "
                f"or {time} / total_time is {share_text}")
    return _new(Anomaly, ("share-mismatch", said, name))


def close(share: float, written: float) -> bool:
    """Whether a share written in the input matches the one its times give (the tolerance above)."""
    return abs(share - written) <= SHARE_TOLERANCE * max(share, written) + SHARE_STEP


def _dynamic_dma(profile: Profile) -> list[Anomaly]:
    """The dynamic DMA class is the software- and hardware-generated ones together."""
    return _dynamic_found(*(profile.value(name) for name in DYNAMIC_DMA))


def _dynamic_found(dynamic: Any, software: Any, hardware: Any) -> list[Anomaly]:
    if not (isinstance(dynamic, (int, float)) and isinstance(software, (int, float))
            and isinstance(hardware, (int, float))):
        return []
    if close(software + hardware, dynamic):
        return []
    return [Anomaly("share-mismatch", f"dynamic_dma_active_time_percent is {format_value(dynamic, 'fraction')} "
                    f"but software_dynamic_ + hardware_dynamic_dma_active_time_percent is "
                    f"{format_value(software + hardware, 'fraction')}", "dynamic_dma_active_time_percent")]

"""Are the runs comparable at all? Warnings shown in every output of a comparison."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from .. import stats
from ..catalog import lookup
from ..choices import SAMPLE, ShownBasis
from ..ingest.tool_notes import PREFIX, is_tool_warning
from ..model import Profile
from ..units import format_value, positive_number
from .result import Side

KEYS = ("instance_type", "compiler_version", "runtime_version", "driver_version",
        "collectives_version", "profiler_version", "lnc_config", "nc_idx", "nd_idx",
        "num_physical_cores", "neuroncore_per_device_count", "neuron_device_count")


# Work per step: what the device was asked to do, whatever the time it took (the time is what a
# comparison judges). Runs whose every measure of it both state is more than ``UNLIKE_FACTOR`` apart
# ran different workloads: a training step against a kernel, not a change to one workload.
WORK_SIGNALS = (("hardware_flops", "hardware FLOPs"), ("model_flops", "model FLOPs"),
                ("hbm_traffic_bytes", "HBM traffic"), ("dma_transfer_total_bytes", "DMA bytes"))
# Set on the real profiles at hand: runs of one workload at most 8.5x apart in their closest measure, a
# training step and a kernel at least 131x (docs/judging.md, "Comparability").
UNLIKE_FACTOR = 100.0
NOT_COMPARABLE = "not comparable"


def not_comparable(sides: list[Side]) -> dict[int, str]:
    """Side index -> why that variant and the baseline ran different workloads, by the rule of
    docs/judging.md ("Comparability")."""
    return {index: reason for index, side in enumerate(sides[1:], 1)
            if (reason := _unlike(sides[0], side)) is not None}


def _unlike(base: Side, side: Side) -> str | None:
    graphs = {p.metadata.get("neff_hash") for p in (base.profiles[0], side.profiles[0])}
    if len(graphs) == 1 and None not in graphs:
        return None  # the same graph is the same workload
    per_sample = bool(base.batch_size and side.batch_size)
    parts = []
    for name, label in WORK_SIGNALS:
        b, v = _work(base, name, per_sample), _work(side, name, per_sample)
        if b is None or v is None:
            continue
        ratio = max(b, v) / min(b, v)
        if ratio <= UNLIKE_FACTOR:
            return None  # something of the work in common
        unit = lookup(name).unit
        parts.append(f"{label} {format_value(b, unit)} vs {format_value(v, unit)} (x{ratio:,.0f})")
    if not parts:
        return None
    basis = "per sample" if per_sample else "per step"
    return (f"{side.label} and {base.label} ran different workloads: every measure of work {basis} both "
            f"state is more than {UNLIKE_FACTOR:g}x apart ({'; '.join(parts)})")


def _work(side: Side, name: str, per_sample: bool) -> float | None:
    """The side's positive measure ``name``, measured or derived (the median of its captures'), per
    sample when asked."""
    numbers = [value for p in side.profiles if (metric := p.values.all.get(name)) is not None
               and positive_number(value := metric.value)]
    if not numbers:
        return None
    central = float(stats.median(numbers))
    return central / side.batch_size if per_sample and side.batch_size else central


def whole_doubts(sides: list[Side]) -> list[str]:
    """The warnings that question the whole comparison (no metric in common, inputs of different
    kinds, unlike memory tables): the first of ``warnings_for``, and shown under the title."""
    return _graph_warnings(sides) + _unrelated(sides) + _kind_warnings(sides) + _memory_warnings(sides)


def _graph_warnings(sides: list[Side]) -> list[str]:
    """The compiler changed the graph (the NEFF hash differs): said first, before any delta is
    read as a regression; ``neuroncmp ops`` says which operators."""
    base = sides[0].profiles[0].metadata.get("neff_hash")
    out = []
    for side in sides[1:]:
        other = side.profiles[0].metadata.get("neff_hash")
        if base and other and other != base:
            out.append(f"the compiler changed the graph: {side.label} ran NEFF {str(other)[:8]}, "
                       f"{sides[0].label} NEFF {str(base)[:8]} (neuroncmp ops says which operators)")
    return out


def warnings_for(sides: list[Side], only_in: Mapping[str, tuple[str, ...]], basis: ShownBasis) -> list[str]:
    found = whole_doubts(sides)  # the first lines
    stated = _stated(sides)
    found += [w for key in KEYS if (w := _differs(sides, key, stated[key]))] + _not_stated(sides, stated)
    found += _batch_warnings(sides, basis)
    found += _eval_set_warnings(sides)
    found += _anomaly_warnings(sides)
    found += _tool_warnings(sides)
    found += _only_in_warnings(only_in, [side.label for side in sides])
    return found


def _tool_warnings(sides: list[Side]) -> list[str]:
    """The profiler's own warnings (they qualify the numbers compared): one line per distinct warning,
    naming the sides whose profiles carry it."""
    having: dict[str, list[str]] = {}
    for side in sides:
        for profile in side.profiles:
            for note in profile.notes:
                labels = having.setdefault(note.removeprefix(PREFIX), [])
                if is_tool_warning(note) and side.label not in labels:
                    labels.append(side.label)
    return [f"{', '.join(labels)}: the profiler warns: {message}"
            for message, labels in having.items() if labels]


def _only_in_warnings(only_in: Mapping[str, tuple[str, ...]], labels: list[str]) -> list[str]:
    """One line per set of sides: 'metrics only in baseline, b16: memory.generic, ... (23)'."""
    by_sides: dict[tuple[str, ...], list[str]] = {}
    for name, having in only_in.items():
        by_sides.setdefault(tuple(having), []).append(name)
    lines = []
    for present, names in by_sides.items():
        missing = [label for label in labels if label not in present]
        shown = ", ".join(names[:4]) + (f" ... ({len(names)} metrics)" if len(names) > 4 else "")
        lines.append(f"missing on {', '.join(missing)}: {shown}")
    return lines


def _stated(sides: list[Side]) -> dict[str, list[frozenset[str]]]:
    """Per key of ``KEYS``, per side: the values its captures state."""
    return {key: [frozenset(str(value) for p in side.profiles if (value := p.info(key)) is not None)
                  for side in sides] for key in KEYS}


def _differs(sides: list[Side], key: str, stated: list[frozenset[str]]) -> str | None:
    """``key differs`` only between values that are stated; a side that does not state it is
    "not stated", never a difference (a Trainer file states no instance type)."""
    known = set().union(*stated)
    if len(known) < 2:
        return None  # stated by some sides only: _not_stated says so
    missing = [side.label for side, values in zip(sides, stated, strict=True) if not values]
    parts = ", ".join(f"{side.label}={'/'.join(sorted(values))}"
                      for side, values in zip(sides, stated, strict=True) if values)
    unstated = f"; not stated by {', '.join(missing)}" if missing else ""
    return f"{key} differs: {parts}{unstated}"


def _not_stated(sides: list[Side], stated: dict[str, list[frozenset[str]]]) -> list[str]:
    """One line per side that leaves unstated what other sides agree on: not a difference."""
    agreed = [key for key, values in stated.items() if len(set().union(*values)) == 1]
    out = []
    for index, side in enumerate(sides):
        keys = [key for key in agreed if not stated[key][index]]
        if keys:
            out.append(f"{side.label} does not state {', '.join(keys)} (the other sides agree on "
                       "each): not stated, not a difference")
    return out


KINDS = {"trainer-json": "Trainer metrics", "trainer-text": "Trainer metrics",
         "neuron-monitor": "a neuron-monitor report"}  # every other format: a device profile


def _kind(side: Side) -> str:
    return KINDS.get(side.profiles[0].source.format, "a device profile")


def _kind_warnings(sides: list[Side]) -> list[str]:
    """A device profile against Trainer metrics or a monitor report measures other things."""
    kinds = {side.label: _kind(side) for side in sides}
    if len(set(kinds.values())) < 2:
        return []
    shown = ", ".join(f"{label} is {kind} ({side.profiles[0].source.format})"
                      for (label, kind), side in zip(kinds.items(), sides))
    return [(f"inputs of different kinds: {shown}; they measure different things, so only the "
             "metrics both state are compared")]


def _numbers(side: Side) -> set[str]:
    """The names of the numbers the side's first capture measures."""
    return {name for name, m in side.profiles[0].values.measured.items() if not isinstance(m.value, str)}


def _unrelated(sides: list[Side]) -> list[str]:
    """Variants that share no measured metric with the baseline: nothing is compared."""
    base = _numbers(sides[0])
    return [f"{side.label} and {sides[0].label} have no measured metric in common: nothing is "
            f"compared (is one {_kind(side) if _kind(side) != _kind(sides[0]) else 'of them'} "
            "not what you meant?)"
            for side in sides[1:] if not base & _numbers(side)]


def _usage_types(side: Side) -> frozenset[str]:
    return frozenset({r.usage_type for r in side.profiles[0].memory} - {"total"})


def unlike_memory(sides: list[Side]) -> frozenset[int]:
    """Indexes of the sides whose memory table lists other usage types than the baseline's (a
    two-row monitor breakdown against a profile's full table), or another number of cores (one
    inf2 core against two trn2 cores): their memory rows and total cover different things, so
    they are shown, not scored."""
    return _differing(sides, _usage_types) | _differing(sides, memory_cores)


def _differing(sides: list[Side], measure: Callable[[Side], Any]) -> frozenset[int]:
    """Indexes of the variants whose ``measure`` differs from the baseline's, where both have one."""
    base = measure(sides[0])
    return frozenset(i for i, side in enumerate(sides[1:], 1) if base and (it := measure(side)) and it != base)


def memory_cores(side: Side) -> int:
    """How many cores (device, core) the side's memory table lists (0 without one)."""
    return len(side.profiles[0].memory_by_core()) if side.profiles[0].memory else 0


def _memory_warnings(sides: list[Side]) -> list[str]:
    out = []
    if unlike := _differing(sides, _usage_types):
        shown = ", ".join(f"{sides[i].label} {len(_usage_types(sides[i]))}" for i in sorted(unlike))
        out.append(f"memory tables list different usage types ({sides[0].label} "
                   f"{len(_usage_types(sides[0]))}, {shown}): device memory and its rows cover different "
                   "things there (shown, not scored)")
    if unlike := _differing(sides, memory_cores):
        shown = ", ".join(f"{sides[i].label} {_cores_text(sides[i])}" for i in sorted(unlike))
        out.append(f"memory tables cover different numbers of cores ({sides[0].label} {_cores_text(sides[0])}, "
                   f"{shown}): device memory is shown in total for each side, not compared")
    return out


def _cores_text(side: Side) -> str:
    """``1 core``, ``2 cores (nc4, nc5)``."""
    keys = list(side.profiles[0].memory_by_core())
    devices = len({device for device, _ in keys}) > 1
    named = [f"{f'nd{device} ' if devices else ''}nc{core}" for device, core in keys if core is not None]
    count = f"{len(keys)} core{'s' if len(keys) != 1 else ''}"
    return count + (f" ({', '.join(named)})" if named else "")


def _batch_warnings(sides: list[Side], basis: ShownBasis) -> list[str]:
    out = []
    for side in sides:
        if side.batch_size_inferred:
            how = side.profiles[0].params.get("batch_size_how", side.batch_size_source)
            out.append(f"{side.label}: batch size {side.batch_size} is inferred ({how}), not stated")
        elif side.batch_size is None and basis == SAMPLE:
            out.append(f"{side.label}: batch size unknown, its per-sample values are not shown")
    return out


ANOMALIES_NAMED = 3  # the first few by name; the profile (`show`) lists every one


def _anomaly_warnings(sides: list[Side]) -> list[str]:
    """Per side: how many anomalies, the first few by name, and what they do to the verdicts."""
    out = []
    for side in sides:
        found = [a for p in side.profiles for a in p.anomalies]
        if found:
            named = "; ".join(f"{a.message} [{a.code}]" for a in found[:ANOMALIES_NAMED])
            more = f"; ... ({len(found) - ANOMALIES_NAMED} more)" if len(found) > ANOMALIES_NAMED else ""
            out.append(f"{side.label}: {len(found)} input anomal{'y' if len(found) == 1 else 'ies'}, "
                       f"never scored (marked !): {named}{more}")
    return out


EVAL_SET_TOLERANCE = 0.05  # eval sizes implied by rounded rates and runtimes agree within ~1 %


def eval_set_size(profile: Profile) -> float | None:
    """Samples in the eval set: ``eval_samples`` when the Trainer wrote it, else
    ``eval_samples_per_second x eval_runtime`` (both are end-to-end figures of the same pass)."""
    stated = profile.value("eval_samples")
    if isinstance(stated, (int, float)):
        return float(stated)
    rate, runtime = profile.value("eval_samples_per_second"), profile.value("eval_runtime")
    if isinstance(rate, (int, float)) and isinstance(runtime, (int, float)):
        return rate * runtime
    return None


def unlike_eval_sets(sides: list[Side]) -> frozenset[int]:
    """Indexes of the sides whose eval set differs in size from the baseline's (by more than
    ``EVAL_SET_TOLERANCE``): their eval timings are shown, not scored."""
    base = eval_set_size(sides[0].profiles[0])
    if base is None:
        return frozenset()
    return frozenset(i for i, side in enumerate(sides[1:], 1)
                     if (size := eval_set_size(side.profiles[0])) is not None
                     and max(size, base) > (1 + EVAL_SET_TOLERANCE) * min(size, base))


def _eval_set_warnings(sides: list[Side]) -> list[str]:
    """Eval throughput compared across eval sets of different sizes is not like for like."""
    sizes = {side.label: size for side in sides if (size := eval_set_size(side.profiles[0])) is not None}
    if len(sizes) < 2 or max(sizes.values()) <= (1 + EVAL_SET_TOLERANCE) * min(sizes.values()):
        return []
    shown = ", ".join(f"{label} ~{size:.0f}" for label, size in sizes.items())
    return [f"eval sets differ in size ({shown} samples, eval_samples_per_second x eval_runtime): "
            "eval throughput and runtime are not comparable across them (shown, not scored)"]

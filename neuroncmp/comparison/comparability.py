"""Are the runs comparable at all? Warnings shown in every output of a comparison."""

from __future__ import annotations

from typing import Mapping

from ..model import Profile
from . import tool_warnings
from .result import Side

KEYS = ("instance_type", "compiler_version", "runtime_version", "driver_version",
        "collectives_version", "profiler_version", "lnc_config", "nc_idx", "nd_idx",
        "num_physical_cores", "neuroncore_per_device_count", "neuron_device_count")


def warnings_for(sides: list[Side], only_in: Mapping[str, tuple[str, ...]], basis: str) -> list[str]:
    found = [w for key in KEYS if (w := _differs(sides, key))]
    found += _batch_warnings(sides, basis)
    found += _eval_set_warnings(sides)
    found += _anomaly_warnings(sides)
    found += tool_warnings.warnings_for(sides)
    found += _only_in_warnings(only_in, [side.label for side in sides])
    return found


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


def _differs(sides: list[Side], key: str) -> str | None:
    values = {side.label: {str(p.info(key)) for p in side.profiles if p.info(key) is not None}
              for side in sides}
    known = {v for vs in values.values() for v in vs}
    if len(known) <= 1 and all(values.values()) or not known:
        return None
    parts = ", ".join(f"{label}={'/'.join(sorted(vs)) or '?'}" for label, vs in values.items())
    return f"{key} differs: {parts}"


def _batch_warnings(sides: list[Side], basis: str) -> list[str]:
    out = []
    for side in sides:
        if side.batch_size_inferred:
            how = side.profiles[0].params.get("batch_size_how", side.batch_size_source)
            out.append(f"{side.label}: batch size {side.batch_size} is inferred ({how}), not stated")
        elif side.batch_size is None and basis == "sample":
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

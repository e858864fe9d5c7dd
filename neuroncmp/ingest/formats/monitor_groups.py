"""neuron-monitor's metric groups, read into sums shared by every runtime of one report.

Counts and bytes add up across runtimes (each process has its own executions and memory); a core's
utilization and FLOP/s are the largest any runtime reports, not the sum (every runtime lists every
core, zeros where it does not use it); latency percentiles cannot be added, so they are read only when
one runtime has them. The rule and the field names: docs/formats.md ("neuron-monitor").
"""

from __future__ import annotations

from typing import Any

from ... import catalog
from ...errors import ParseError
from ...model import MemoryRow, Profile, Skipped
from ...units import is_number
from .. import shapes
from ..memory_types import canonical_usage
from ..values import note_repeated

PLUMBING = ("period", "error")  # sampling period and error text of each group: not metrics
_HOST_KEYS = {"application_memory": "app", "constants": "constants", "dma_buffers": "dma_buffers",
              "tensors": "tensors"}
_SUMMARY = ("completed",) + tuple(n.removeprefix("execution_").removesuffix("_count")
                                  for n in catalog.EXECUTION_FAILED)
_FLOPS_KEYS = ("flops", "effective_flops")  # the guide's name; runtime 2.30's name


class Sums:
    """Numbers by metric name, added up across runtimes, each with the place it was first read."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.values: dict[str, int | float] = {}
        self.places: dict[str, str] = {}

    def add(self, name: str, value: Any, where: str, scale: float = 1) -> None:
        number = self._number(name, value, where, scale)
        self.values[name] = self.values.get(name, 0) + number

    def peak(self, name: str, value: Any, where: str, scale: float = 1) -> None:
        """A per-core value: the largest any runtime reports (see the module docstring)."""
        number = self._number(name, value, where, scale)
        self.values[name] = max(self.values.get(name, number), number)

    def _number(self, name: str, value: Any, where: str, scale: float) -> int | float:
        if not is_number(value):
            raise ParseError(self.path, where, "a number", shapes.found(value))
        self.places.setdefault(name, where)
        number: int | float = value
        return number / scale if scale != 1 else number

    def fields(self, block: dict[str, Any], names: dict[str, str], where: str, profile: Profile,
               scale: float = 1, also: tuple[str, ...] = ()) -> None:
        """Each field of ``block`` that ``names`` maps (field -> metric) added; the others, but the
        fields ``also`` read elsewhere, listed as skipped."""
        profile.skipped += shapes.unknown(block, (*names, *also), where)
        for key, name in names.items():
            if key in block:
                self.add(name, block[key], f"{where}.{key}", scale)

    def flops_total(self) -> None:
        """``neuroncore_flops_total``: the per-core FLOP/s summed over cores."""
        cores = [v for k, v in self.values.items() if k.startswith("neuroncore_flops_nc")]
        if cores:
            self.values["neuroncore_flops_total"] = sum(cores)
            self.places.setdefault("neuroncore_flops_total", "neuroncores_in_use")


def note_error(section: dict[str, Any], where: str, profile: Profile) -> None:
    """neuron-monitor's own ``error`` text, when a group has one, is kept as a note."""
    if section.get("error"):
        profile.notes.append(f"neuron-monitor error at {where}: {section['error']!s:.200}")


def group(parent: dict[str, Any], key: str, path: str, where: str, profile: Profile) -> dict[str, Any]:
    """A metric group (an object, or empty when absent), its error text noted."""
    section = shapes.obj(parent.get(key), path, f"{where}.{key}")
    note_error(section, f"{where}.{key}", profile)
    return section


def counters(section: dict[str, Any], sums: Sums, where: str, profile: Profile) -> None:
    """``neuroncores_in_use.{core}``: utilization (0-100), FLOP/s, and on Trn2 ``v3d``: the
    utilization of each physical core of the logical core."""
    profile.skipped += shapes.unknown(section, ("neuroncores_in_use",) + PLUMBING, where)
    where = f"{where}.neuroncores_in_use"
    for core, values in shapes.obj(section.get("neuroncores_in_use"), sums.path, where).items():
        index = shapes.index(core, sums.path, f"{where}, key '{core}'", "a NeuronCore index")
        values = shapes.obj(values, sums.path, f"{where}.{core}")
        note_repeated(profile, values, f"{where}.{core}", lambda key: key)
        known = ("neuroncore_utilization", "v3d", *_FLOPS_KEYS)
        profile.skipped += shapes.unknown(values, known, f"{where}.{core}")
        if "neuroncore_utilization" in values:
            sums.peak(f"neuroncore_utilization_nc{index}_percent", values["neuroncore_utilization"],
                      f"{where}.{core}.neuroncore_utilization", 100)
        flops = next((key for key in _FLOPS_KEYS if key in values), None)
        if flops is not None:
            sums.peak(f"neuroncore_flops_nc{index}", values[flops], f"{where}.{core}.{flops}")
        _physical(shapes.obj(values.get("v3d"), sums.path, f"{where}.{core}.v3d"), index, sums,
                  f"{where}.{core}.v3d", profile)


def _physical(v3d: dict[str, Any], core: int, sums: Sums, where: str, profile: Profile) -> None:
    """``"nc_v3.2": {"neuroncore_utilization": 21.02}``: physical core 2 of this logical core."""
    for name, values in v3d.items():
        number = name.rpartition(".")[2]
        values = shapes.obj(values, sums.path, f"{where}.{name}")
        if not number.isdigit() or "neuroncore_utilization" not in values:
            profile.skipped.append(Skipped(f"{where}, key '{name}'", f"{values!r:.60}",
                                           "not a physical core's utilization"))
            continue
        sums.peak(f"neuroncore_utilization_nc{core}_pcore{int(number)}_percent",
                  values["neuroncore_utilization"], f"{where}.{name}", 100)


def execution(section: dict[str, Any], sums: Sums, where: str, profile: Profile) -> dict[str, Any]:
    """Outcome and error counts into ``sums``; the latency percentiles returned (not summed)."""
    known = ("error_summary", "execution_summary", "latency_stats") + PLUMBING
    profile.skipped += shapes.unknown(section, known, where)
    if is_number(section.get("period")):
        sums.values.setdefault("execution_period", section["period"])  # the same period for all
    summary = shapes.obj(section.get("execution_summary"), sums.path, f"{where}.execution_summary")
    errors = shapes.obj(section.get("error_summary"), sums.path, f"{where}.error_summary")
    sums.fields(summary, {key: f"execution_{key}_count" for key in _SUMMARY}, f"{where}.execution_summary", profile)
    sums.fields(errors, {key: f"execution_error_{key}_count" for key in catalog.EXECUTION_ERRORS},
                f"{where}.error_summary", profile)
    return shapes.obj(section.get("latency_stats"), sums.path, f"{where}.latency_stats")


def latency(stats: dict[str, Any], sums: Sums, where: str, profile: Profile) -> None:
    """``total_latency`` / ``device_latency`` percentiles in seconds (null when nothing ran)."""
    profile.skipped += shapes.unknown(stats, ("total_latency", "device_latency"), where)
    for scope in ("total", "device"):
        block = shapes.obj(stats.get(f"{scope}_latency"), sums.path, f"{where}.{scope}_latency")
        sums.fields(block, {p: f"latency_{scope}_{p}" for p in catalog.LATENCY_PERCENTILES},
                    f"{where}.{scope}_latency", profile)


def memory(section: dict[str, Any], sums: Sums, where: str, profile: Profile) -> list[Any]:
    """Runtime memory: host bytes (total and by use) and the device total into ``sums``; device
    bytes as memory rows, with a ``total`` row from ``neuron_device`` so a report without the
    per-core breakdown still has its device memory. The loaded models are returned (context)."""
    profile.skipped += shapes.unknown(section, ("neuron_runtime_used_bytes", "loaded_models") + PLUMBING,
                                      where)
    models = shapes.items(section.get("loaded_models"), sums.path, f"{where}.loaded_models")
    where = f"{where}.neuron_runtime_used_bytes"
    used = shapes.obj(section.get("neuron_runtime_used_bytes"), sums.path, where)
    sums.fields(used, {"host": "host_used_memory_total", "neuron_device": "device_used_memory_total"}, where,
                profile, also=("usage_breakdown",))
    if "neuron_device" in used:  # the device total, as a metric (as neuron-top's) and as the table's Total
        _total_row(used["neuron_device"], f"{where}.neuron_device", profile)
    breakdown = shapes.obj(used.get("usage_breakdown"), sums.path, f"{where}.usage_breakdown")
    where = f"{where}.usage_breakdown"
    profile.skipped += shapes.unknown(breakdown, ("host", "neuroncore_memory_usage"), where)
    host = shapes.obj(breakdown.get("host"), sums.path, f"{where}.host")
    sums.fields(host, {key: f"host_used_memory_{short}" for key, short in _HOST_KEYS.items()}, f"{where}.host",
                profile)
    cores = shapes.obj(breakdown.get("neuroncore_memory_usage"), sums.path, f"{where}.neuroncore_memory_usage")
    for core, usage in cores.items():
        _core_memory(core, usage, sums.path, f"{where}.neuroncore_memory_usage", profile)
    return models


def _total_row(amount: Any, where: str, profile: Profile) -> None:
    if type(amount) is not int:
        profile.skipped.append(Skipped(where, f"{amount!r:.40}", "memory amount is not a whole number of bytes"))
        return
    profile.memory.append(MemoryRow(None, None, "total", "neuron_device", amount, str(amount)))


def _core_memory(core: str, usage: Any, path: str, where: str, profile: Profile) -> None:
    index = shapes.index(core, path, f"{where}, key '{core}'", "a NeuronCore index")
    where = f"{where}.{core}"
    usage = shapes.obj(usage, path, where)
    note_repeated(profile, usage, where, lambda key: f"memory.{canonical_usage(key)}")
    for label, amount in usage.items():
        if type(amount) is not int:
            profile.skipped.append(Skipped(where, f"{label}={amount!r:.40}",
                                           "memory amount is not a whole number of bytes"))
            continue
        profile.memory.append(MemoryRow(None, index, canonical_usage(label), label, amount, str(amount)))


def runtime_vcpu(section: dict[str, Any], sums: Sums, where: str, profile: Profile) -> None:
    profile.skipped += shapes.unknown(section, ("vcpu_usage",) + PLUMBING, where)
    usage = shapes.obj(section.get("vcpu_usage"), sums.path, f"{where}.vcpu_usage")
    sums.fields(usage, {key: f"runtime_vcpu_{key}_percent" for key in ("user", "system")}, f"{where}.vcpu_usage",
                profile, 100)


def system(data: dict[str, Any], sums: Sums, where: str, profile: Profile) -> None:
    """``system_data``: host memory and swap, average vCPU usage, ECC events (summed over devices)."""
    profile.skipped += shapes.unknown(data, ("memory_info", "vcpu_usage", "neuron_hw_counters"), where)
    info = group(data, "memory_info", sums.path, where, profile)
    fields = ("memory_total_bytes", "memory_used_bytes", "swap_total_bytes", "swap_used_bytes")
    sums.fields(info, {key: f"system_{key}" for key in fields}, f"{where}.memory_info", profile, also=PLUMBING)
    _vcpu(group(data, "vcpu_usage", sums.path, where, profile), sums, f"{where}.vcpu_usage", profile)
    _ecc(group(data, "neuron_hw_counters", sums.path, where, profile), sums,
         f"{where}.neuron_hw_counters", profile)


def _vcpu(section: dict[str, Any], sums: Sums, where: str, profile: Profile) -> None:
    known = ("average_usage", "usage_data", "context_switch_count") + PLUMBING
    profile.skipped += shapes.unknown(section, known, where)
    average = shapes.obj(section.get("average_usage"), sums.path, f"{where}.average_usage")
    sums.fields(average, {key: f"vcpu_{key}_percent" for key in catalog.VCPU_FIELDS}, f"{where}.average_usage",
                profile, 100)
    if "context_switch_count" in section:
        sums.add("vcpu_context_switch_count", section["context_switch_count"], f"{where}.context_switch_count")
    per_vcpu = shapes.obj(section.get("usage_data"), sums.path, f"{where}.usage_data")
    if per_vcpu:  # the average is what compares across machines; each vCPU's share is counted
        profile.skipped.append(Skipped(f"{where}.usage_data", f"{len(per_vcpu)} vCPUs",
                                       "per-vCPU usage: the average over all vCPUs is read"))


def _ecc(section: dict[str, Any], sums: Sums, where: str, profile: Profile) -> None:
    profile.skipped += shapes.unknown(section, ("neuron_devices",) + PLUMBING, where)
    for number, device in enumerate(shapes.items(section.get("neuron_devices"), sums.path,
                                                 f"{where}.neuron_devices")):
        place = f"{where}.neuron_devices[{number}]"
        device = shapes.obj(device, sums.path, place)
        sums.fields(device, {key: f"{key}_count" for key in catalog.ECC_FIELDS}, place, profile,
                    also=("neuron_device_index",))

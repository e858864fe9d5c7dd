"""neuron-monitor reports: one JSON document per period (a file may hold one, or JSON lines).

Read (formats.md 6): per runtime, ``report.memory_used.neuron_runtime_used_bytes`` (``host``,
``neuron_device``, ``usage_breakdown.host.*``, ``usage_breakdown.neuroncore_memory_usage.{core}.*``),
``report.neuroncore_counters.neuroncores_in_use.{core}.{neuroncore_utilization (0-100), flops}``,
and ``neuron_hardware_info`` / ``instance_info`` as metadata. One profile per report line.
Every level is shape-checked (``shapes``); fields not read are listed in ``Profile.skipped``,
keys given twice with different values become ``duplicate-metric`` anomalies.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

from ...errors import ParseError
from ...model import MemoryRow, Profile, Skipped, Source
from .. import shapes
from ..decode import loads
from ..memory_types import canonical_usage
from ..naming import params_from_name
from ..parser import Parser
from ..values import add_metric, note_repeated, raw_metric

NAME = "neuron-monitor"
_MARKERS = ('"neuron_runtime_data"', '"neuron_hardware_info"')
_HOST_KEYS = {"application_memory": "app", "constants": "constants", "dma_buffers": "dma_buffers",
              "tensors": "tensors"}
_USED_KEYS = {"host": "host_used_memory_total", "neuron_device": "device_used_memory_total"}
_HARDWARE_KEYS = ("neuron_device_type", "neuroncore_version", "neuron_device_count",
                  "neuroncore_per_device_count", "neuron_device_memory_size",
                  "logical_neuroncore_config")
_COUNTERS = {"neuroncore_utilization": "neuroncore_utilization_nc{core}_percent",
             "flops": "neuroncore_flops_nc{core}"}
_PLUMBING = ("period", "error")  # sampling period and error text of each section: not metrics


def parse(text: str, path: str) -> list[Profile]:
    documents = _documents(text, path)
    stem = Path(path).stem
    profiles = []
    for index, (line, report) in enumerate(documents):
        name = stem if len(documents) == 1 else f"{stem}-{index}"
        profiles.append(_profile(report, path, f"report {index} (line {line})", name))
    return profiles


def _documents(text: str, path: str) -> list[tuple[int, dict[str, Any]]]:
    stripped = text.strip()
    if "\n{" not in stripped:
        return [(1, _report(loads(stripped, path), path, "top level"))]
    documents, seen = [], [0]  # one count of values for the whole file (limits.py)
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip():
            documents.append((number, _report(loads(line, f"{path}:{number}", seen), path, f"line {number}")))
    return documents


def _report(data: Any, path: str, where: str) -> dict[str, Any]:
    return shapes.obj(data, path, where, "a neuron-monitor report (a JSON object)")


def _profile(report: dict[str, Any], path: str, where: str, name: str) -> Profile:
    label, params = params_from_name(name, "file name")
    profile = Profile(Source(path, NAME, where), label, params)
    note_repeated(profile, report, where, lambda key: None)
    profile.skipped += shapes.unknown(report, ("neuron_runtime_data", "neuron_hardware_info",
                                               "instance_info"), where)
    _metadata(report, path, where, profile)
    runtimes = shapes.items(report.get("neuron_runtime_data"), path, f"{where}, neuron_runtime_data",
                            "a list of runtimes")
    for number, runtime in enumerate(runtimes):
        _runtime(runtime, path, f"{where}, neuron_runtime_data[{number}]", profile)
    if not (profile.metrics or profile.memory or profile.metadata):
        raise ParseError(path, where, "neuron-monitor memory_used or neuroncore_counters", "neither")
    return profile


def _runtime(runtime: Any, path: str, where: str, profile: Profile) -> None:
    runtime = shapes.obj(runtime, path, where, "a runtime (an object)")
    profile.skipped += shapes.unknown(runtime, ("report",) + _PLUMBING, where)
    _error(runtime, where, profile)
    body = shapes.obj(runtime.get("report"), path, f"{where}.report")
    profile.skipped += shapes.unknown(body, ("memory_used", "neuroncore_counters"), f"{where}.report")
    _memory(shapes.obj(body.get("memory_used"), path, f"{where}.report.memory_used"),
            path, f"{where}.report.memory_used", profile)
    _counters(shapes.obj(body.get("neuroncore_counters"), path, f"{where}.report.neuroncore_counters"),
              path, f"{where}.report.neuroncore_counters", profile)


def _error(section: dict[str, Any], where: str, profile: Profile) -> None:
    """neuron-monitor's own ``error`` text, when it has one, is kept as a note."""
    if section.get("error"):
        profile.notes.append(f"neuron-monitor error at {where}: {section['error']!s:.200}")


def _metadata(report: dict[str, Any], path: str, where: str, profile: Profile) -> None:
    hardware = shapes.obj(report.get("neuron_hardware_info"), path, f"{where}, neuron_hardware_info")
    instance = shapes.obj(report.get("instance_info"), path, f"{where}, instance_info")
    for section, keys, name in ((hardware, _HARDWARE_KEYS, "neuron_hardware_info"),
                                (instance, ("instance_type",), "instance_info")):
        profile.skipped += shapes.unknown(section, keys + _PLUMBING, f"{where}, {name}")
        _error(section, f"{where}, {name}", profile)
        for key in keys:
            if key in section:
                value = section[key]
                if isinstance(value, (dict, list)):
                    raise ParseError(path, f"{where}, {name}.{key}", "a text or number value",
                                     shapes.found(value))
                profile.metadata[key if key != "logical_neuroncore_config" else "lnc_config"] = value


def _memory(memory: dict[str, Any], path: str, where: str, profile: Profile) -> None:
    profile.skipped += shapes.unknown(memory, ("neuron_runtime_used_bytes",) + _PLUMBING, where)
    _error(memory, where, profile)
    where = f"{where}.neuron_runtime_used_bytes"
    used = shapes.obj(memory.get("neuron_runtime_used_bytes"), path, where)
    profile.skipped += shapes.unknown(used, (*_USED_KEYS, "usage_breakdown"), where)
    note_repeated(profile, used, where, lambda key: _USED_KEYS.get(key))
    for key, name in _USED_KEYS.items():
        if key in used:
            add_metric(profile, raw_metric(path, f"{where}.{key}", name, used[key]), where)
    breakdown = shapes.obj(used.get("usage_breakdown"), path, f"{where}.usage_breakdown")
    where = f"{where}.usage_breakdown"
    profile.skipped += shapes.unknown(breakdown, ("host", "neuroncore_memory_usage"), where)
    _host(shapes.obj(breakdown.get("host"), path, f"{where}.host"), path, f"{where}.host", profile)
    cores = shapes.obj(breakdown.get("neuroncore_memory_usage"), path, f"{where}.neuroncore_memory_usage")
    for core, usage in cores.items():
        _core_memory(core, usage, path, f"{where}.neuroncore_memory_usage", profile)


def _host(host: dict[str, Any], path: str, where: str, profile: Profile) -> None:
    profile.skipped += shapes.unknown(host, _HOST_KEYS, where)
    note_repeated(profile, host, where, lambda key: f"host_used_memory_{_HOST_KEYS.get(key, key)}")
    for key, short in _HOST_KEYS.items():
        if key in host:
            add_metric(profile, raw_metric(path, f"{where}.{key}", f"host_used_memory_{short}",
                                           host[key]), where)


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


def _counters(counters: dict[str, Any], path: str, where: str, profile: Profile) -> None:
    profile.skipped += shapes.unknown(counters, ("neuroncores_in_use",) + _PLUMBING, where)
    _error(counters, where, profile)
    where = f"{where}.neuroncores_in_use"
    for core, values in shapes.obj(counters.get("neuroncores_in_use"), path, where).items():
        index = shapes.index(core, path, f"{where}, key '{core}'", "a NeuronCore index")
        values = shapes.obj(values, path, f"{where}.{core}")
        profile.skipped += shapes.unknown(values, _COUNTERS, f"{where}.{core}")
        note_repeated(profile, values, f"{where}.{core}", partial(_counter_name, index))
        for key in _COUNTERS:
            if key in values:
                add_metric(profile, raw_metric(path, f"{where}.{core}.{key}", _counter_name(index, key) or key,
                                               _counter_value(key, values[key])), where)


def _counter_name(core: int, key: str) -> str | None:
    return _COUNTERS[key].format(core=core) if key in _COUNTERS else None


def _counter_value(key: str, value: Any) -> Any:
    # neuron-monitor's utilization is 0-100; every fraction in the model is 0-1.
    if key == "neuroncore_utilization" and type(value) in (int, float):
        return value / 100
    return value


def sniff(head: str) -> bool:
    return head.lstrip().startswith("{") and any(marker in head for marker in _MARKERS)


PARSER = Parser(NAME, "neuron-monitor JSON report(s): memory per core, utilization, hardware info",
                (".json", ".jsonl"), sniff, parse)

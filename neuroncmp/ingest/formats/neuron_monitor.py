"""neuron-monitor reports: one JSON document per period (a file may hold one, or JSON lines).

Read (formats.md 6): per runtime, ``report.memory_used.neuron_runtime_used_bytes`` (``host``,
``neuron_device``, ``usage_breakdown.host.*``, ``usage_breakdown.neuroncore_memory_usage.{core}.*``),
``report.neuroncore_counters.neuroncores_in_use.{core}.{neuroncore_utilization (0-100), flops}``,
and ``neuron_hardware_info`` / ``instance_info`` as metadata. One profile per report line.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ...errors import ParseError
from ..naming import params_from_name
from ..memory_types import canonical_usage
from ...model import MemoryRow, Profile, Skipped, Source
from ..values import add_metric, raw_metric
from ..decode import loads
from ..parser import Parser

NAME = "neuron-monitor"
_MARKERS = ('"neuron_runtime_data"', '"neuron_hardware_info"')
_HOST_KEYS = {"application_memory": "app", "constants": "constants", "dma_buffers": "dma_buffers",
              "tensors": "tensors"}
_HARDWARE_KEYS = ("neuron_device_type", "neuroncore_version", "neuron_device_count",
                  "neuroncore_per_device_count", "neuron_device_memory_size",
                  "logical_neuroncore_config")


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
        return [(1, _object(loads(stripped, path), path, "top level"))]
    documents = []
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip():
            documents.append((number, _object(loads(line, f"{path}:{number}"), path, f"line {number}")))
    return documents


def _object(data: Any, path: str, where: str) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise ParseError(path, where, "a neuron-monitor report (a JSON object)", type(data).__name__)
    return data


def _profile(report: dict[str, Any], path: str, where: str, name: str) -> Profile:
    label, params = params_from_name(name, "file name")
    profile = Profile(Source(path, NAME, where), label, params)
    _metadata(report, profile)
    runtimes = report.get("neuron_runtime_data") or []
    if not isinstance(runtimes, list):
        raise ParseError(path, f"{where}, neuron_runtime_data", "a list of runtimes", type(runtimes).__name__)
    for runtime in runtimes:
        body = (runtime or {}).get("report") or {}
        _memory(body.get("memory_used") or {}, path, where, profile)
        _counters(body.get("neuroncore_counters") or {}, path, where, profile)
    if not (profile.metrics or profile.memory or profile.metadata):
        raise ParseError(path, where, "neuron-monitor memory_used or neuroncore_counters", "neither")
    return profile


def _metadata(report: dict[str, Any], profile: Profile) -> None:
    hardware = report.get("neuron_hardware_info") or {}
    for key in _HARDWARE_KEYS:
        if key in hardware:
            profile.metadata[key if key != "logical_neuroncore_config" else "lnc_config"] = hardware[key]
    instance = (report.get("instance_info") or {}).get("instance_type")
    if instance:
        profile.metadata["instance_type"] = instance


def _memory(memory: dict[str, Any], path: str, where: str, profile: Profile) -> None:
    used = memory.get("neuron_runtime_used_bytes") or {}
    breakdown = used.get("usage_breakdown") or {}
    for key, short in _HOST_KEYS.items():
        if key in (breakdown.get("host") or {}):
            add_metric(profile, raw_metric(path, where, f"host_used_memory_{short}",
                                           breakdown["host"][key]), where)
    for key, name in (("host", "host_used_memory_total"), ("neuron_device", "device_used_memory_total")):
        if key in used:
            add_metric(profile, raw_metric(path, where, name, used[key]), where)
    for core, usage in (breakdown.get("neuroncore_memory_usage") or {}).items():
        for label, amount in (usage or {}).items():
            if not isinstance(amount, int):
                profile.skipped.append(Skipped(f"{where}, core {core}", f"{label}={amount!r}",
                                               "memory amount is not a whole number of bytes"))
                continue
            profile.memory.append(MemoryRow(None, int(core), canonical_usage(label), label, amount,
                                            str(amount)))


def _counters(counters: dict[str, Any], path: str, where: str, profile: Profile) -> None:
    for core, values in (counters.get("neuroncores_in_use") or {}).items():
        values = values or {}
        if "neuroncore_utilization" in values:  # 0-100 in neuron-monitor; we store fractions
            util = values["neuroncore_utilization"]
            fraction = util / 100 if isinstance(util, (int, float)) else util
            add_metric(profile, raw_metric(path, where, f"neuroncore_utilization_nc{core}_percent",
                                           fraction), where)
        if "flops" in values:
            add_metric(profile, raw_metric(path, where, f"neuroncore_flops_nc{core}", values["flops"]),
                       where)


def sniff(head: str) -> bool:
    return head.lstrip().startswith("{") and any(marker in head for marker in _MARKERS)


PARSER = Parser(NAME, "neuron-monitor JSON report(s): memory per core, utilization, hardware info",
                (".json", ".jsonl"), sniff, parse)

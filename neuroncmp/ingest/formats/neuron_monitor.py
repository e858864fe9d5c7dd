"""neuron-monitor reports: one JSON document per period (a file may hold one, or JSON lines).

One profile per report line; which metric groups are read and into which metrics: docs/formats.md
("neuron-monitor"), from AWS's neuron-monitor user guide. Runtimes of one report add up
(``monitor_groups``). Every level is shape-checked (``shapes``); fields not read are listed in
``Profile.skipped``, keys given twice with different values become ``duplicate-metric`` anomalies.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ...errors import ParseError
from ...escape import clip
from ...model import Profile, Skipped, Source
from .. import shapes
from ..decode import loads
from ..naming import params_from_name
from ..registry import Parser
from ..values import add_metric, note_repeated, raw_metric
from . import monitor_groups as groups

NAME = "neuron-monitor"
_MARKERS = ('"neuron_runtime_data"', '"neuron_hardware_info"')
_HARDWARE_KEYS = ("neuron_device_type", "neuron_device_version", "neuroncore_version",
                  "neuron_device_count", "neuroncore_per_device_count", "neuron_device_memory_size",
                  "logical_neuroncore_config")
_TOP = ("neuron_runtime_data", "system_data", "neuron_hardware_info", "instance_info")
_RUNTIME_GROUPS = ("neuroncore_counters", "execution_stats", "memory_used", "neuron_runtime_vcpu_usage")
_MAX_MODEL_NAMES = 10  # names kept in the metadata; the count is exact


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
    documents, seen = [], [0]  # one count of values for the whole file (decode.SETTINGS)
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
    profile.skipped += shapes.unknown(report, _TOP, where)
    _metadata(report, path, where, profile)
    sums = groups.Sums(path)
    runtimes = shapes.items(report.get("neuron_runtime_data"), path, f"{where}, neuron_runtime_data",
                            "a list of runtimes")
    latencies, models = [], []
    for number, runtime in enumerate(runtimes):
        found = _runtime(runtime, path, f"{where}, neuron_runtime_data[{number}]", sums, profile)
        latencies += [found[0]] if _ran(found[0][1]) else []
        models += found[1]
    _latency(latencies, sums, profile)
    sums.flops_total()
    groups.system(shapes.obj(report.get("system_data"), path, f"{where}, system_data"), sums,
                  f"{where}, system_data", profile)
    _models(models, path, where, profile)
    for metric, value in sums.values.items():
        add_metric(profile, raw_metric(path, sums.places.get(metric, where), metric, value), where)
    if not (profile.metrics or profile.memory or profile.metadata):
        raise ParseError(path, where, "neuron-monitor runtime data, system data or hardware info", "none")
    return profile


def _runtime(runtime: Any, path: str, where: str, sums: groups.Sums,
             profile: Profile) -> tuple[tuple[str, dict[str, Any]], list[Any]]:
    """One runtime's groups into ``sums``; its latency block (with its place) and loaded models."""
    runtime = shapes.obj(runtime, path, where, "a runtime (an object)")
    profile.skipped += shapes.unknown(runtime, ("report",) + groups.PLUMBING, where)  # pid, tag: listed
    groups.note_error(runtime, where, profile)
    body = shapes.obj(runtime.get("report"), path, f"{where}.report")
    where = f"{where}.report"
    profile.skipped += shapes.unknown(body, _RUNTIME_GROUPS, where)
    groups.counters(groups.group(body, "neuroncore_counters", path, where, profile), sums,
                    f"{where}.neuroncore_counters", profile)
    stats = groups.execution(groups.group(body, "execution_stats", path, where, profile), sums,
                             f"{where}.execution_stats", profile)
    models = groups.memory(groups.group(body, "memory_used", path, where, profile), sums,
                           f"{where}.memory_used", profile)
    groups.runtime_vcpu(groups.group(body, "neuron_runtime_vcpu_usage", path, where, profile), sums,
                        f"{where}.neuron_runtime_vcpu_usage", profile)
    return (f"{where}.execution_stats.latency_stats", stats), models


def _ran(stats: dict[str, Any]) -> bool:
    """Whether a runtime has latency percentiles (both are null when no model ran in the period)."""
    return any(stats.get(scope) for scope in ("total_latency", "device_latency"))


def _latency(found: list[tuple[str, dict[str, Any]]], sums: groups.Sums, profile: Profile) -> None:
    """Percentiles of one runtime are read; those of several cannot be combined into one
    percentile, so they are listed as skipped rather than summed or picked."""
    if len(found) == 1:
        groups.latency(found[0][1], sums, found[0][0], profile)
        return
    for where, stats in found:
        profile.skipped.append(Skipped(where, f"{stats!r:.60}", f"latency percentiles of {len(found)} "
                                       "runtimes in one report cannot be combined into one"))


def _models(models: list[Any], path: str, where: str, profile: Profile) -> None:
    """Loaded models: their number as a metric, their names as metadata (context, not compared);
    each model's own memory use is inside the runtime totals already read."""
    if not models:
        return
    names = []
    for number, model in enumerate(models):
        model = shapes.obj(model, path, f"{where}, loaded_models[{number}]", "a loaded model (an object)")
        names.append(clip(str(model.get("name", "")), 120))
    add_metric(profile, raw_metric(path, f"{where}, loaded_models", "loaded_model_count", len(models)), where)
    unique = list(dict.fromkeys(names))
    profile.metadata["loaded_models"] = ", ".join(unique[:_MAX_MODEL_NAMES]) + (
        f" (and {len(unique) - _MAX_MODEL_NAMES} more)" if len(unique) > _MAX_MODEL_NAMES else "")
    profile.skipped.append(Skipped(f"{where}, loaded_models", f"{len(models)} models",
                                   "per-model subgraph memory: the runtime totals are read"))


def _metadata(report: dict[str, Any], path: str, where: str, profile: Profile) -> None:
    hardware = shapes.obj(report.get("neuron_hardware_info"), path, f"{where}, neuron_hardware_info")
    instance = shapes.obj(report.get("instance_info"), path, f"{where}, instance_info")
    for section, keys, name in ((hardware, _HARDWARE_KEYS, "neuron_hardware_info"),
                                (instance, ("instance_type",), "instance_info")):
        profile.skipped += shapes.unknown(section, keys + groups.PLUMBING, f"{where}, {name}")
        groups.note_error(section, f"{where}, {name}", profile)
        for key in keys:
            if key in section:
                value = section[key]
                if isinstance(value, (dict, list)):
                    raise ParseError(path, f"{where}, {name}.{key}", "a text or number value",
                                     shapes.found(value))
                profile.metadata[key if key != "logical_neuroncore_config" else "lnc_config"] = value


def sniff(head: str) -> bool:
    return head.lstrip().startswith("{") and any(marker in head for marker in _MARKERS)


PARSER = Parser(NAME, "neuron-monitor JSON report(s): utilization, FLOP/s, executions, latency, memory, "
                "vCPU, ECC, hardware info",
                (".json", ".jsonl"), sniff, parse)

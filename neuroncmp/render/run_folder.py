"""A run folder written from loaded profiles (``neuroncmp convert``): one summary-json file per variant.

Each variant gets ``<label>.json`` in the profiler's real summary-json schema (a wrapper key,
base units, 0-1 fractions, ``*_ns`` in nanoseconds), plus sidecars for what summary-json cannot
hold: ``<label>.memory.md`` (the memory table and neuron-top lines, as the UI prints them) and
``<label>.all_results.json`` (Trainer metrics as Hugging Face writes them). ``manifest.json``
records label, section, batch size (and whether it was inferred), notes and sidecars.
"""

from __future__ import annotations

import hashlib
import shutil
from decimal import Decimal
from pathlib import Path
from typing import Any

from .. import __version__
from ..atomic import write_atomic
from ..catalog import lookup
from ..ingest.manifest import MANIFEST, MANIFEST_SCHEMA
from ..model import Metric, Profile
from ..units import DISPLAY_UNITS, TEXT
from .json_out import dumps

_NEURON_TOP = (("host", "Host Used Memory", ("total", "tensors", "constants", "app")),
               ("device", "Device Used Memory", ("total", "tensors", "constants")))
_TOP_LABELS = {"total": "Total", "tensors": "Tensors", "constants": "Constants", "app": "App. Memory"}


def raw_value(metric: Metric) -> Any:
    """The value as summary-json stores it (``*_ns`` keys in nanoseconds, the rest as is)."""
    raw_unit = lookup(metric.name).raw_unit
    if metric.unit == TEXT or raw_unit == metric.unit or isinstance(metric.value, str):
        return metric.value
    factor = Decimal(DISPLAY_UNITS[raw_unit][1])
    value = Decimal(repr(metric.value)) / factor
    return int(value) if value == value.to_integral_value() else float(value)


def summary_json(profile: Profile) -> dict[str, Any]:
    metrics = {m.name: raw_value(m) for m in profile.metrics.values() if m.group != "host_memory"}
    # The export carries no profile id; derive a stable one from the file name and section.
    origin = f"{Path(profile.source.path).name}|{profile.source.section}"
    digest = hashlib.sha1(origin.encode()).hexdigest()[:24]
    return {f"n_{digest}": metrics}


def memory_markdown(profile: Profile) -> str | None:
    lines = []
    if profile.memory:
        lines += ["| ND Idx | NC Idx | Usage Type | Amount |", "| --- | --- | --- | --- |"]
        lines += [f"| {_idx(r.device)} | {_idx(r.core)} | {r.label} | {r.raw or r.bytes} |"
                  for r in profile.memory]
    for side, title, keys in _NEURON_TOP:
        pairs = [f"{_TOP_LABELS[k]}: {profile.metrics[f'{side}_used_memory_{k}'].raw}"
                 for k in keys if f"{side}_used_memory_{k}" in profile.metrics]
        if pairs:
            lines.append(f"{title}  " + "  ".join(pairs))
    return "\n".join(lines) + "\n" if lines else None


def _idx(value: int | None) -> str:
    return "" if value is None else str(value)


def trainer_json(profile: Profile) -> dict[str, Any] | None:
    return {name: m.value for name, m in profile.training.items()} or None


def manifest_entry(profile: Profile, files: dict[str, str]) -> dict[str, Any]:
    entry: dict[str, Any] = {"file": files["summary"], "label": profile.label,
                             "section": profile.source.section, "params": profile.params}
    if profile.metadata:
        entry["metadata"] = profile.metadata
    if profile.notes:
        entry["notes"] = profile.notes
    entry.update({k: v for k, v in files.items() if k != "summary"})
    return entry


def plan(profiles: list[Profile], source: Path) -> dict[str, str]:
    """Every output file name -> its text, built fully before anything is written."""
    outputs: dict[str, str] = {}
    entries = []
    for profile in profiles:
        stem = profile.label
        files = {"summary": f"{stem}.json"}
        outputs[files["summary"]] = _json(summary_json(profile))
        memory, training = memory_markdown(profile), trainer_json(profile)
        if memory:
            files["memory"] = f"{stem}.memory.md"
            outputs[files["memory"]] = memory
        if training:
            files["training"] = f"{stem}.all_results.json"
            outputs[files["training"]] = _json(training)
        entries.append(manifest_entry(profile, files))
    outputs[MANIFEST] = _json({"schema": MANIFEST_SCHEMA, "source": source.name,
                               "converted_by": f"neuroncmp {__version__} convert",
                               "profiles": entries})
    return outputs


def _json(data: Any) -> str:
    return dumps(data, indent=2, ensure_ascii=False) + "\n"


def convert(profiles: list[Profile], source: Path, out_dir: Path) -> list[Path]:
    outputs = plan(profiles, source)
    written = []
    for name, text in outputs.items():
        write_atomic(out_dir / name, text)
        written.append(out_dir / name)
    kept = out_dir / source.name
    if source.resolve() != kept.resolve():
        shutil.copyfile(source, kept)
    written.append(kept)
    return written

"""A run folder written from loaded profiles (``neuroncmp convert``): one summary-json file per variant,
its sidecars and a manifest; what each file holds: ``docs/commands/convert.md``.
"""

from __future__ import annotations

import hashlib
import math
import re
from decimal import Decimal
from pathlib import Path
from typing import Any

from .. import __version__
from ..atomic import write_atomic
from ..catalog import lookup
from ..errors import OutputError
from ..escape import quote
from ..ingest.decode import read_bytes
from ..ingest.formats.ui_markdown import memory_table
from ..ingest.manifest import MANIFEST, MANIFEST_SCHEMA
from ..model import Metric, Profile
from ..units import DISPLAY_UNITS
from .json_out import dumps

_NEURON_TOP = (("host", "Host Used Memory", ("total", "tensors", "constants", "app")),
               ("device", "Device Used Memory", ("total", "tensors", "constants")))
_TOP_LABELS = {"total": "Total", "tensors": "Tensors", "constants": "Constants", "app": "App. Memory"}


def raw_value(metric: Metric) -> Any:
    """The value as summary-json stores it (``*_ns`` keys in nanoseconds, the rest as is)."""
    spec = lookup(metric.name)
    raw_unit = spec.raw_unit
    if metric.unit != spec.unit or raw_unit == metric.unit or raw_unit not in DISPLAY_UNITS \
            or isinstance(metric.value, str) or not math.isfinite(metric.value):
        return metric.value  # (a unit the input showed for an unknown name: kept in base units)
    factor = Decimal(DISPLAY_UNITS[raw_unit][1])
    value = Decimal(repr(metric.value)) / factor
    return int(value) if value == value.to_integral_value() else float(value)


def summary_json(profile: Profile) -> dict[str, Any]:
    metrics = {m.name: raw_value(m) for m in profile.metrics.values() if m.group != "host_memory"}
    # The export carries no profile id; derive a stable one from the file name and section.
    origin = f"{Path(profile.source.path).name}|{profile.source.section}"
    digest = hashlib.sha1(origin.encode("utf-8", errors="backslashreplace")).hexdigest()[:24]
    return {f"n_{digest}": metrics}


def memory_markdown(profile: Profile) -> str | None:
    lines = []
    if profile.memory:
        lines += memory_table(profile.memory)
    for side, title, keys in _NEURON_TOP:
        pairs = [f"{_TOP_LABELS[k]}: {profile.metrics[f'{side}_used_memory_{k}'].raw}"
                 for k in keys if f"{side}_used_memory_{k}" in profile.metrics]
        if pairs:
            lines.append(f"{title}  " + "  ".join(pairs))
    return "\n".join(lines) + "\n" if lines else None


def manifest_entry(profile: Profile, files: dict[str, str]) -> dict[str, Any]:
    entry: dict[str, Any] = {"file": files["summary"], "label": profile.label,
                             "section": profile.source.section, "params": profile.params}
    if profile.metadata:
        entry["metadata"] = profile.metadata
    if profile.notes:
        entry["notes"] = profile.notes
    entry.update({k: v for k, v in files.items() if k != "summary"})
    return entry


_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
_RESERVED = {"manifest", "con", "prn", "aux", "nul", *(f"{d}{n}" for d in ("com", "lpt") for n in range(10))}


def safe_stem(label: str, taken: set[str]) -> str:
    """A file name stem for ``label`` that stays inside the output folder: letters, digits,
    ``. _ -`` only, no leading dot, at most 80 characters, not ``manifest`` (or a name Windows
    reserves), not already ``taken`` (``-2``, ``-3``, ... appended)."""
    stem = _UNSAFE.sub("-", label).strip(".-")[:80] or "profile"
    if stem.lower() in _RESERVED:
        stem += "-profile"
    unique, count = stem, 1
    while unique.lower() in taken:
        count += 1
        unique = f"{stem}-{count}"
    taken.add(unique.lower())
    return unique


def plan(profiles: list[Profile], source: Path) -> dict[str, str]:
    """Every output file name -> its text, built fully before anything is written."""
    outputs: dict[str, str] = {}
    entries = []
    taken: set[str] = set()
    for profile in profiles:
        stem = safe_stem(profile.label, taken)
        files = {"summary": f"{stem}.json"}
        outputs[files["summary"]] = _json(summary_json(profile))
        memory = memory_markdown(profile)
        training = {name: m.value for name, m in profile.training.items()}
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
    """Write the run folder into ``out_dir`` and a copy of the report beside it; only inside
    ``out_dir`` (file names from ``safe_stem``; a symlink there is replaced, not followed)."""
    outputs = plan(profiles, source)
    if source.name in outputs:
        raise OutputError(f"{quote(out_dir / source.name)}: the report's own name would be overwritten "
                          "by a converted file; rename the report")
    for name in outputs:
        if (out_dir / name).exists() and (out_dir / name).resolve() == source.resolve():
            raise OutputError(f"{quote(out_dir / name)}: that is the report being converted; "
                              "convert into another folder")
    written = []
    for name, text in outputs.items():
        write_atomic(out_dir / name, text, follow_symlinks=False)
        written.append(out_dir / name)
    kept = out_dir / source.name
    if source.is_file() and source.resolve() != kept.resolve():  # (a folder read is not copied)
        write_atomic(kept, read_bytes(source), follow_symlinks=False)
        written.append(kept)
    return written

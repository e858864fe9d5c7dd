"""Profiles -> table rows: what the store keeps of each run (pure: no I/O, no pyarrow)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ..model import Profile
from . import schema


@dataclass(frozen=True, slots=True)
class RunInfo:
    """Where a profile sits in history: the facts the store adds to what the profile says."""

    run: str
    content_hash: str
    time: datetime
    time_source: str
    commit: str | None
    tags: dict[str, str]
    object: str
    sidecars: list[str]
    added: datetime


@dataclass
class Columns:
    """Rows of the three tables, column by column (what pyarrow builds tables from fastest)."""

    tables: dict[str, dict[str, list[Any]]] = field(default_factory=lambda: {
        name: {column: [] for column in schema.columns(name)} for name in schema.TABLES})

    def count(self, table: str) -> int:
        return len(self.tables[table]["run"])

    def extend(self, other: "Columns", keep: set[str] | None = None) -> None:
        """Append ``other``'s rows (only those of runs in ``keep``, when given)."""
        for name, columns in other.tables.items():
            rows = columns["run"]
            chosen = range(len(rows)) if keep is None else [i for i, r in enumerate(rows) if r in keep]
            for column, values in columns.items():
                self.tables[name][column].extend(values[i] for i in chosen)


def run_tags(profile: Profile, given: dict[str, str]) -> dict[str, str]:
    """The run's tags: batch_size and variant from the profile when it knows them, then ``given``."""
    tags: dict[str, str] = {}
    if profile.batch_size is not None:
        tags["batch_size"] = str(profile.batch_size)
    if profile.params.get("tags"):
        tags["variant"] = "+".join(profile.params["tags"])
    tags.update(given)
    return tags


def series_key(tags: dict[str, str]) -> str:
    """A series' identity: its tags as canonical JSON (sorted keys, no spaces)."""
    return json.dumps(dict(sorted(tags.items())), separators=(",", ":"), ensure_ascii=False)


def add(columns: Columns, profile: Profile, info: RunInfo) -> None:
    """Append one profile's rows: its run, every metric (Trainer and memory by type included), memory."""
    _add_run(columns.tables["runs"], profile, info)
    _add_metrics(columns.tables["metrics"], profile, info.run)
    memory = columns.tables["memory"]
    for row in profile.memory:
        for column, value in (("run", info.run), ("device", row.device), ("core", row.core),
                              ("usage_type", row.usage_type), ("label", row.label), ("bytes", row.bytes)):
            memory[column].append(value)


def _add_run(runs: dict[str, list[Any]], profile: Profile, info: RunInfo) -> None:
    versions = {name: str(m.value) for name, m in profile.metrics.items()
                if name.endswith("_version") and isinstance(m.value, str)}
    instance = profile.info("instance_type")
    values = {
        "run": info.run, "content_hash": info.content_hash, "time": info.time,
        "time_source": info.time_source, "commit": info.commit, "tags": list(info.tags.items()),
        "series": series_key(info.tags), "label": profile.label, "source": profile.source.path,
        "section": profile.source.section, "format": profile.source.format, "object": info.object,
        "sidecars": info.sidecars,
        "batch_size": profile.batch_size, "batch_size_source": profile.params.get("batch_size_source"),
        "instance_type": instance if isinstance(instance, str) else None,
        "versions": list(versions.items()), "added": info.added,
    }
    for column, value in values.items():
        runs[column].append(value)


def _add_metrics(metrics: dict[str, list[Any]], profile: Profile, run: str) -> None:
    flags: dict[str | None, list[str]] = {}
    for anomaly in profile.anomalies:
        flags.setdefault(anomaly.metric, []).append(anomaly.code)
    derived, seen = profile.memory_metrics(), set()
    for source in (profile.metrics, profile.training, derived):
        for name, metric in source.items():
            if name in seen:  # a Trainer value also in the profile: the profile's is kept
                continue
            seen.add(name)
            text = metric.value if isinstance(metric.value, str) else None
            marks = list(dict.fromkeys(flags.get(name, [])))
            if not metric.catalogued:
                marks.append("uncatalogued")
            if source is derived:
                marks.append("derived")
            metrics["run"].append(run)
            metrics["metric"].append(name)
            metrics["value"].append(None if text is not None else float(metric.value))
            metrics["text"].append(text)
            metrics["unit"].append(metric.unit)
            metrics["group"].append(metric.group)
            metrics["flags"].append(marks)

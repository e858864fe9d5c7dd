"""Profiles -> table rows: what the store keeps of each run (pure: no I/O, no pyarrow)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from .. import catalog
from ..model import Profile
from ..units import text_or_none
from . import schema
from .identity import series_key


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

    def extend(self, other: Columns, keep: set[str] | None = None) -> None:
        """Append ``other``'s rows (only those of runs in ``keep``, when given)."""
        for name, columns in other.tables.items():
            rows = columns["run"]
            chosen = range(len(rows)) if keep is None else [i for i, r in enumerate(rows) if r in keep]
            for column, values in columns.items():
                self.tables[name][column].extend(values[i] for i in chosen)

    def take(self, spans: list[dict[str, range]]) -> Columns:
        """The rows ``spans`` name (for each of some files, a range of this one's rows per
        table), in that order."""
        taken = Columns()
        for name, columns in self.tables.items():
            rows = [span[name] for span in spans]
            for column, values in columns.items():
                taken.tables[name][column] = [v for part in rows for v in values[part.start:part.stop]]
        return taken


def add(columns: Columns, profile: Profile, info: RunInfo) -> None:
    """Append one profile's rows: its run, every metric (Trainer and memory by type included), memory."""
    versions = _add_metrics(columns.tables["metrics"], profile, info.run)
    _add_run(columns.tables["runs"], profile, info, versions)
    memory = columns.tables["memory"]
    for row in profile.memory:
        for column, value in (("run", info.run), ("device", row.device), ("core", row.core),
                              ("usage_type", row.usage_type), ("label", row.label), ("bytes", row.bytes)):
            memory[column].append(value)


def _add_run(runs: dict[str, list[Any]], profile: Profile, info: RunInfo,
             versions: list[tuple[str, str]]) -> None:
    instance = profile.info("instance_type")
    values = {
        "run": info.run, "content_hash": info.content_hash, "time": info.time,
        "time_source": info.time_source, "commit": info.commit, "tags": list(info.tags.items()),
        "series": series_key(info.tags), "label": profile.label, "source": profile.source.path,
        "section": profile.source.section, "format": profile.source.format, "object": info.object,
        "sidecars": info.sidecars,
        "batch_size": profile.batch_size, "batch_size_source": profile.params.get("batch_size_source"),
        "instance_type": text_or_none(instance),
        "versions": versions, "added": info.added,
    }
    for column, value in values.items():
        runs[column].append(value)


def _add_metrics(metrics: dict[str, list[Any]], profile: Profile, run: str) -> list[tuple[str, str]]:
    """The profile's metric rows: its metrics, then Trainer values it does not have (the profile's
    are kept), then memory by type and the catalog's derived metrics (flagged derived). Returns the
    tool versions it states (its text metrics named *_version), for the run's row."""
    rows = dict(profile.metrics)
    for name, metric in profile.training.items():
        rows.setdefault(name, metric)
    # memory totals, then the catalog's derived metrics (throughput, ...): kept so that
    # `history device_throughput` works; flagged derived, so a history baseline rebuilds
    # profiles from measured values only
    extra = {**profile.values.memory, **profile.values.derived}
    derived = {name for name in extra if name not in rows}
    rows.update((name, metric) for name, metric in extra.items() if name in derived)
    codes: dict[str, list[str]] = {}
    for anomaly in profile.anomalies:
        if anomaly.metric is not None:
            codes.setdefault(anomaly.metric, []).append(anomaly.code)
    texts = [isinstance(metric.value, str) for metric in rows.values()]
    metrics["run"] += [run] * len(rows)
    metrics["metric"] += rows
    metrics["value"] += [None if text else float(m.value) for text, m in zip(texts, rows.values(), strict=True)]
    metrics["text"] += [m.value if text else None for text, m in zip(texts, rows.values(), strict=True)]
    metrics["unit"] += [m.unit for m in rows.values()]
    metrics["group"] += [m.group for m in rows.values()]
    # each row's flags: its anomaly codes (once each, in order), uncatalogued, derived
    flagged = {name for name, m in rows.items()
               if name in codes or name in derived or not catalog.lookup(m.name).catalogued}
    metrics["flags"] += [(*dict.fromkeys(codes.get(name, ())),
                          *(() if catalog.lookup(m.name).catalogued else ("uncatalogued",)),
                          *(("derived",) if name in derived else ())) if name in flagged else ()
                         for name, m in rows.items()]
    return [(name, metric.value) for name, metric in profile.metrics.items()
            if isinstance(metric.value, str) and name.endswith("_version")]

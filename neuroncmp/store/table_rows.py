"""Profiles -> table rows: what the store keeps of each run (pure: no I/O, no pyarrow)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from .. import catalog
from ..model import Metric, Profile
from . import schema
from .identity import run_tags, series_key

__all__ = ["Columns", "RunInfo", "add", "run_tags", "series_key"]


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
    _add_run(columns.tables["runs"], profile, info)
    _add_metrics(columns.tables["metrics"], profile, info.run)
    memory = columns.tables["memory"]
    for row in profile.memory:
        for column, value in (("run", info.run), ("device", row.device), ("core", row.core),
                              ("usage_type", row.usage_type), ("label", row.label), ("bytes", row.bytes)):
            memory[column].append(value)


def _add_run(runs: dict[str, list[Any]], profile: Profile, info: RunInfo) -> None:
    versions = {name: str(m.value) for name, m in profile.metrics.items()
                if isinstance(m.value, str) and name.endswith("_version")}  # few values are text
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
    """The profile's metric rows, a column at a time: its metrics, then Trainer values it does
    not have (the profile's are kept), then memory by type and the catalog's derived metrics
    (flagged derived)."""
    flags: dict[str | None, list[str]] = {}
    for anomaly in profile.anomalies:
        flags.setdefault(anomaly.metric, []).append(anomaly.code)
    rows = dict(profile.metrics)
    for name, metric in profile.training.items():
        rows.setdefault(name, metric)
    derived = set()
    # memory totals, then the catalog's derived metrics (throughput, ...): kept so that
    # `history device_throughput` works; flagged derived, so a history baseline rebuilds
    # profiles from measured values only
    for name, metric in {**profile.values.memory, **profile.values.derived}.items():
        if name not in rows:
            rows[name] = metric
            derived.add(name)
    chosen = list(rows.values())
    texts = [m.value if isinstance(m.value, str) else None for m in chosen]
    metrics["run"] += [run] * len(chosen)
    metrics["metric"] += rows.keys()
    metrics["value"] += [None if text is not None else float(m.value) for m, text in zip(chosen, texts)]
    metrics["text"] += texts
    metrics["unit"] += [m.unit for m in chosen]
    metrics["group"] += [m.group for m in chosen]
    marked = flags.keys() | derived  # most rows have no flag: () unless named here or uncatalogued
    metrics["flags"] += [_flags(flags.get(name), m, name in derived)
                         if name in marked or not catalog.lookup(m.name).catalogued else ()
                         for name, m in rows.items()]


def _flags(codes: list[str] | None, metric: Metric, derived: bool) -> tuple[str, ...]:
    """A metric row's flags: its anomaly codes (once each), uncatalogued, derived. A tuple, not a
    list: the empty one is shared and tuples of text leave the cyclic GC's watch, which matters
    with some 80 rows per run held until the part is written."""
    marks = tuple(dict.fromkeys(codes or ()))
    if not metric.catalogued:
        marks += ("uncatalogued",)
    if derived:
        marks += ("derived",)
    return marks

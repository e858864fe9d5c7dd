"""Neuron Explorer's Parquet output: a directory of tables (``Summary.parquet``, ...).

Read: ``Summary`` (metrics; one row per core when several), ``Metadata`` (instance, versions,
schema version, clocks), ``ThrottleSummary`` (per core and throttle type) and
``HbmUsageSummaryByType`` (device memory by usage type). Needs the ``parquet`` extra (pyarrow).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ... import catalog
from ...errors import MissingDependencyError, ParseError
from ..naming import params_from_name
from ..memory_types import canonical_usage
from ...model import MemoryRow, Profile, Source
from ..values import add_metric, raw_metric
from ..parser import Parser

NAME = "explorer-parquet"
_CORE_COLUMNS = ("neuroncore_idx", "nc_idx")
_THROTTLE_FIELDS = {"throttle_active_time_ns": ("active", "_ns"),
                    "throttle_active_time_percent": ("active_time", "_percent"),
                    "max_achievable_util_with_throttling_percent": ("max_achievable_util", "_percent")}


def _pyarrow_parquet() -> Any:
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise MissingDependencyError(
            "reading Neuron Explorer Parquet output needs pyarrow: pip install 'neuroncmp[parquet]'"
        ) from None
    return pq


def table_files(directory: Path, table: str) -> list[Path]:
    """The files holding ``table``: ``T.parquet``, numbered parts ``T-0.parquet``, or ``T/``."""
    single = directory / f"{table}.parquet"
    if single.is_file():
        return [single]
    if (directory / table).is_dir():
        return sorted((directory / table).glob("*.parquet"))
    part = re.compile(rf"^{re.escape(table)}[-_.]\d+\.parquet$")
    return sorted(p for p in directory.glob(f"{table}*.parquet") if part.match(p.name))


def read_rows(directory: Path, table: str) -> list[dict[str, Any]] | None:
    files = table_files(directory, table)
    if not files:
        return None
    pq = _pyarrow_parquet()
    rows: list[dict[str, Any]] = []
    for file in files:
        try:
            rows += pq.read_table(file).to_pylist()
        except Exception as exc:  # pyarrow raises several types for a corrupt file
            raise ParseError(str(file), f"table {table}", "a readable Parquet file",
                             f"{type(exc).__name__}: {exc}") from None
    return rows


def parse(text: str, path: str) -> list[Profile]:
    directory = Path(path)
    summary = read_rows(directory, "Summary")
    if summary is None:
        raise ParseError(path, "directory", "a Summary.parquet table (Neuron Explorer output)", "none")
    if not summary:
        raise ParseError(path, "table Summary", "at least one row", "an empty table")
    metadata = _metadata(read_rows(directory, "Metadata") or [])
    throttle = read_rows(directory, "ThrottleSummary") or []
    memory = read_rows(directory, "HbmUsageSummaryByType") or []
    profiles = []
    for index, row in enumerate(summary):
        core = next((row[c] for c in _CORE_COLUMNS if row.get(c) is not None), None)
        name = directory.name.split("@")[0] if len(summary) == 1 else f"{directory.name}-nc{core}"
        profile = _profile(row, metadata, path, f"Summary row {index}", name)
        _throttle(throttle, core, path, profile)
        _memory(memory, core, profile)
        profiles.append(profile)
    return profiles


def _metadata(rows: list[dict[str, Any]]) -> dict[str, Any]:
    if rows and {"key", "value"} <= set(rows[0]):
        return {str(r["key"]): r["value"] for r in rows}
    return dict(rows[0]) if rows else {}


def _profile(row: dict[str, Any], metadata: dict[str, Any], path: str, where: str,
             name: str) -> Profile:
    label, params = params_from_name(name, "file name")
    profile = Profile(Source(path, NAME, where), label, params)
    for key, value in row.items():
        if value is not None:
            add_metric(profile, raw_metric(path, f"table Summary, {where}", key, value), where)
    for key, value in metadata.items():
        spec = catalog.lookup(key)
        if value is None:
            continue
        if spec.catalogued and spec.group == "system":
            add_metric(profile, raw_metric(path, "table Metadata", key, value), "Metadata")
        else:
            profile.metadata[key] = value
    return profile


def _throttle(rows: list[dict[str, Any]], core: Any, path: str, profile: Profile) -> None:
    for row in rows:
        nc = next((row[c] for c in _CORE_COLUMNS if row.get(c) is not None), None)
        if core is not None and nc != core:
            continue
        kind = str(row.get("throttle_type", "all"))
        for field, (stem, suffix) in _THROTTLE_FIELDS.items():
            if row.get(field) is None:
                continue
            name = _throttle_name(kind, stem, nc, suffix)
            add_metric(profile, raw_metric(path, "table ThrottleSummary", name, row[field]),
                       "ThrottleSummary")


def _throttle_name(kind: str, stem: str, core: Any, suffix: str) -> str:
    if kind == "all" and stem == "active" and suffix == "_ns":
        return f"throttle_active_nc{core}_time_ns"  # the summary-json's own name
    prefix = "throttle" if kind == "all" else f"throttle_{kind}"
    stem = "active_time" if stem == "active" else stem
    return f"{prefix}_{stem}_nc{core}{suffix}"


def _memory(rows: list[dict[str, Any]], core: Any, profile: Profile) -> None:
    for row in rows:
        nc = row.get("neuroncore_idx", row.get("nc_idx"))
        if core is not None and nc is not None and nc != core:
            continue
        label = str(row.get("usage_type", ""))
        profile.memory.append(MemoryRow(row.get("neuron_device_idx", row.get("nd_idx")), nc,
                                        canonical_usage(label), label, int(row.get("usage_bytes") or 0),
                                        str(row.get("usage_bytes"))))


def sniff(path: str) -> bool:
    directory = Path(path)
    return directory.is_dir() and bool(table_files(directory, "Summary"))


PARSER = Parser(NAME, "Neuron Explorer Parquet directory (Summary, Metadata, ThrottleSummary, "
                "HbmUsageSummaryByType); needs the 'parquet' extra", (), sniff, parse,
                reads_directory=True)

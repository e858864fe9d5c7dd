"""Neuron Explorer's Parquet output: a directory of tables (``Summary.parquet``, ...).

Read: ``Summary`` (metrics; one row per core when several), ``Metadata`` (instance, versions,
schema version, clocks), ``ThrottleSummary`` (per core and throttle type) and
``HbmUsageSummaryByType`` (device memory by usage type). Needs the ``parquet`` extra (pyarrow).
"""

from __future__ import annotations

import re
from decimal import Decimal
from pathlib import Path
from typing import Any

from ... import catalog
from ...errors import LimitError, MissingDependencyError, ParseError
from ...escape import clip
from ...model import MemoryRow, Profile, Skipped, Source
from .. import limits, shapes
from ..decode import check_regular
from ..memory_types import canonical_usage
from ..naming import params_from_name
from ..parser import Parser
from ..values import add_metric, raw_metric

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
    if single.is_file():  # is_file: regular files only (a FIFO or a device is not read)
        return [single]
    if (directory / table).is_dir():
        return sorted(p for p in (directory / table).glob("*.parquet") if p.is_file())
    part = re.compile(rf"^{re.escape(table)}[-_.]\d+\.parquet$")
    return sorted(p for p in directory.glob(f"{table}*.parquet") if part.match(p.name) and p.is_file())


def read_rows(directory: Path, table: str) -> list[dict[str, Any]] | None:
    files = table_files(directory, table)
    if not files:
        return None
    pq = _pyarrow_parquet()
    rows: list[dict[str, Any]] = []
    for file in files:
        check_regular(file)
        try:
            meta = pq.ParquetFile(file).metadata
            if meta.num_rows * max(meta.num_columns, 1) >= limits.setting("NEURONCMP_MAX_VALUES"):
                raise limits.exceeded(file, "NEURONCMP_MAX_VALUES",
                                      f"{meta.num_rows:,} rows x {meta.num_columns} columns")
            rows += pq.read_table(file).to_pylist()
        except Exception as exc:  # pyarrow raises many types for a corrupt file: summarised
            if isinstance(exc, LimitError):
                raise
            raise ParseError(str(file), f"table {table}", "a readable Parquet file",
                             f"{type(exc).__name__}: {_first_line(exc)}") from None
    return rows


def _first_line(exc: Exception) -> str:
    return clip(str(exc).strip().splitlines()[0] if str(exc).strip() else "", 100)


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
        core = _core(row, path, f"table Summary, row {index}")
        name = directory.name.split("@")[0] if len(summary) == 1 else f"{directory.name}-nc{core}"
        profile = _profile(row, metadata, path, f"Summary row {index}", name)
        _throttle(throttle, core, path, profile)
        _memory(memory, core, path, profile)
        profiles.append(profile)
    return profiles


def _core(row: dict[str, Any], path: str, where: str) -> int | None:
    """The row's NeuronCore index (``neuroncore_idx`` or ``nc_idx``), checked; None if absent."""
    column = next((c for c in _CORE_COLUMNS if row.get(c) is not None), None)
    return None if column is None else shapes.index(row[column], path, f"{where}, {column}")


def _metadata(rows: list[dict[str, Any]]) -> dict[str, Any]:
    if rows and {"key", "value"} <= set(rows[0]):
        return {str(r["key"]): _scalar(r["value"]) for r in rows}
    return {str(k): _scalar(v) for k, v in rows[0].items()} if rows else {}


def _scalar(value: Any) -> Any:
    """A Parquet cell as a JSON scalar: numbers, text and booleans as they are; bytes as text
    (UTF-8, undecodable bytes replaced); decimals as floats; anything else (a timestamp, a
    list) as its text."""
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode("utf-8", errors="replace")
    if isinstance(value, Decimal):
        return float(value)
    return str(value)


def _profile(row: dict[str, Any], metadata: dict[str, Any], path: str, where: str,
             name: str) -> Profile:
    label, params = params_from_name(name, "file name")
    profile = Profile(Source(path, NAME, where), label, params)
    for key, value in row.items():
        if value is not None:
            add_metric(profile, raw_metric(path, f"table Summary, {where}", str(key),
                                           _scalar(value)), where)
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
    for number, row in enumerate(rows):
        nc = _core(row, path, f"table ThrottleSummary, row {number}")
        if core is not None and nc != core:
            continue
        kind = str(row.get("throttle_type", "all"))
        for field, (stem, suffix) in _THROTTLE_FIELDS.items():
            if row.get(field) is None:
                continue
            name = _throttle_name(kind, stem, nc, suffix)
            add_metric(profile, raw_metric(path, "table ThrottleSummary", name, _scalar(row[field])),
                       "ThrottleSummary")


def _throttle_name(kind: str, stem: str, core: Any, suffix: str) -> str:
    if kind == "all" and stem == "active" and suffix == "_ns":
        return f"throttle_active_nc{core}_time_ns"  # the summary-json's own name
    prefix = "throttle" if kind == "all" else f"throttle_{kind}"
    stem = "active_time" if stem == "active" else stem
    return f"{prefix}_{stem}_nc{core}{suffix}"


def _memory(rows: list[dict[str, Any]], core: Any, path: str, profile: Profile) -> None:
    for number, row in enumerate(rows):
        where = f"table HbmUsageSummaryByType, row {number}"
        nc = _core(row, path, where)
        if core is not None and nc is not None and nc != core:
            continue
        device = next((row[c] for c in ("neuron_device_idx", "nd_idx") if row.get(c) is not None), None)
        label, amount = str(row.get("usage_type", "")), row.get("usage_bytes")
        if isinstance(amount, float) and amount.is_integer():
            amount = int(amount)
        if type(amount) is not int:
            profile.skipped.append(Skipped(where, f"{label[:40]}={amount!r:.40}",
                                           "usage_bytes is not a whole number of bytes"))
            continue
        profile.memory.append(MemoryRow(None if device is None else shapes.index(device, path, where), nc,
                                        canonical_usage(label), label, amount, str(amount)))


def sniff(path: str) -> bool:
    directory = Path(path)
    return directory.is_dir() and bool(table_files(directory, "Summary"))


PARSER = Parser(NAME, "Neuron Explorer Parquet directory (Summary, Metadata, ThrottleSummary, "
                "HbmUsageSummaryByType); needs the 'parquet' extra", (), sniff, parse,
                reads_directory=True)

"""Neuron Explorer's Parquet output: a directory of tables (``Summary.parquet``, ...).

Which tables are read, and which fields in which unit by the profile's schema version
(``explorer_schema``): docs/formats.md ("Neuron Explorer schema versions"). A table written in parts
(``T_0.parquet``, ``T_1.parquet``, or a folder ``T/``) is read as one. Needs the ``parquet`` extra.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ... import catalog
from ...errors import LimitError, ParseError, optional
from ...escape import clip
from ...model import MemoryRow, Metric, Profile, Skipped, Source
from ...units import finite_number, is_number
from .. import shapes
from ..decode import check_regular, exceeded, setting
from ..memory_types import canonical_usage
from ..naming import params_from_name
from ..registry import Parser
from ..values import add_metric, raw_metric

if TYPE_CHECKING:  # the schema tables load with the first Explorer folder, not with every sniff
    from . import explorer_schema
    from .explorer_schema import Schema

NAME = "explorer-parquet"
_CORE_COLUMNS = ("neuroncore_idx", "nc_idx")
_PCORE = "pcore_idx"  # the physical core of a logical one (Trn2/Trn3 at LNC=2): kept, never summed
_CLOCK = ("neuroncore_clock_freq", "neuroncore_frequency")  # Explorer's GHz field, the catalog's Hz metric
_THROTTLE_FIELDS = {"throttle_active_time_ns": ("active", "_ns"),
                    "throttle_active_time_percent": ("active_time", "_percent"),
                    "max_achievable_util_with_throttling_percent": ("max_achievable_util", "_percent")}


def _pyarrow_parquet() -> Any:
    return optional("pyarrow.parquet",
                    "reading Neuron Explorer Parquet output needs pyarrow: pip install 'neuroncmp[parquet]'")


def table_files(directory: Path, table: str) -> list[Path]:
    """The files holding ``table``: ``T.parquet``, numbered parts ``T-0.parquet``, or ``T/``."""
    single = directory / f"{table}.parquet"
    if single.is_file():  # is_file: regular files only (a FIFO or a device is not read)
        return [single]
    if (directory / table).is_dir():
        return sorted((p for p in (directory / table).glob("*.parquet") if p.is_file()), key=_natural)
    part = re.compile(rf"^{re.escape(table)}[-_.](\d+)\.parquet$")
    parts = [(int(m[1]), p) for p in directory.glob(f"{table}*.parquet")
             if (m := part.match(p.name)) and p.is_file()]
    return [p for _, p in sorted(parts)]  # T_2 before T_10


def _natural(path: Path) -> tuple[Any, ...]:
    return tuple(int(t) if t.isdigit() else t for t in re.split(r"(\d+)", path.name))


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
            if meta.num_rows * max(meta.num_columns, 1) >= setting("NEURONCMP_MAX_VALUES"):
                raise exceeded(file, "NEURONCMP_MAX_VALUES",
                                      f"{meta.num_rows:,} rows x {meta.num_columns} columns")
            rows += pq.read_table(file).to_pylist()
        except Exception as exc:  # pyarrow raises many types for a corrupt file: summarised
            if isinstance(exc, LimitError):
                raise
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
            raise ParseError(str(file), f"table {table}", "a readable Parquet file",
                             f"{type(exc).__name__}: {clip(first, 100)}") from None
    return rows


def collective_ops(path: str | Path) -> dict[str, float] | None:
    """Each collective operation's summed duration (s) in the Explorer folder ``path``, from its ``CcOp``
    table (a row per operation: ``operation``, ``duration_ns``; summary formats carry only totals); None
    when ``path`` is not a folder or has no ``CcOp`` table; a row without a name or a duration is a
    ``ParseError``."""
    folder = Path(path)
    rows = read_rows(folder, "CcOp") if folder.is_dir() else None
    if rows is None:
        return None
    totals: dict[str, float] = {}
    for number, row in enumerate(rows):
        name, duration = row.get("operation"), row.get("duration_ns")
        if not isinstance(name, str) or not name or not (finite_number(duration) and duration >= 0):
            raise ParseError(str(folder), f"table CcOp, row {number}",
                             "an operation name and a duration_ns of 0 or more",
                             f"operation={name!r:.40}, duration_ns={duration!r:.40}")
        totals[name] = totals.get(name, 0.0) + duration / 1e9
    return totals


def parse(text: str, path: str) -> list[Profile]:
    from . import explorer_schema
    from .explorer_schema import Schema

    directory = Path(path)
    summary = read_rows(directory, "Summary")
    if summary is None:
        raise ParseError(path, "directory", "a Summary.parquet table (Neuron Explorer output)", "none")
    if not summary:
        raise ParseError(path, "table Summary", "at least one row", "an empty table")
    metadata = _metadata(read_rows(directory, "Metadata") or [])
    version = metadata.get("profile_schema_version")
    schema = Schema(None if version is None else str(version),
                    explorer_schema.declared_fields(read_rows(directory, "SchemaFields") or []))
    tables = {name: read_rows(directory, name) or [] for name in ("ThrottleSummary", "HbmUsageSummaryByType",
                                                                  "Warning")}
    profiles = []
    for index, row in enumerate(summary):
        where = f"table Summary, row {index}"
        core, pcore = _core(row, path, where), _core(row, path, where, (_PCORE,))
        profile = _profile(row, metadata, schema, path, f"Summary row {index}",
                           _name(directory, len(summary), core, pcore))
        _throttle(tables["ThrottleSummary"], core, schema, path, profile)
        _memory(tables["HbmUsageSummaryByType"], core, schema, path, profile)
        _warnings(tables["Warning"], profile)
        profiles.append(profile)
    return profiles


def _name(directory: Path, rows: int, core: int | None, pcore: int | None) -> str:
    if rows == 1:
        return directory.name.split("@")[0]
    return f"{directory.name}-nc{core}" + (f"-pc{pcore}" if pcore is not None else "")


def _core(row: dict[str, Any], path: str, where: str, columns: tuple[str, ...] = _CORE_COLUMNS) -> int | None:
    """The row's NeuronCore index (``neuroncore_idx`` or ``nc_idx``; or of ``columns``: the physical
    core's), checked; None if absent."""
    column = next((c for c in columns if row.get(c) is not None), None)
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
    from decimal import Decimal  # not at import: a run that only sniffs for this format skips it

    if isinstance(value, Decimal):
        return float(value)
    return str(value)


def _profile(row: dict[str, Any], metadata: dict[str, Any], schema: Schema, path: str, where: str,
             name: str) -> Profile:
    label, params = params_from_name(name, "file name")
    profile = Profile(Source(path, NAME, where), label, params)
    if schema.note():
        profile.notes.append(schema.note() or "")
    for key, value in row.items():
        if key == _PCORE and value is not None:
            profile.metadata[_PCORE] = _scalar(value)
        elif key in _CORE_COLUMNS and value is not None:  # which core the row is: read in any schema
            add_metric(profile, raw_metric(path, f"table Summary, {where}", key, _scalar(value)), where)
        elif value is not None:
            _field(profile, schema, "Summary", str(key), _scalar(value), path, f"table Summary, {where}")
    for key, value in metadata.items():
        if value is not None:
            _meta(profile, schema, key, value, path)
    return profile


def _field(profile: Profile, schema: Schema, table: str, key: str, value: Any, path: str, where: str,
           name: str | None = None) -> None:
    """One column into a metric, as the schema confirms it; a field it cannot confirm is skipped."""
    field = schema.field(table, key)
    if field is None:
        profile.skipped.append(Skipped(f"{where}, field '{key}'", f"{value!r:.60}",
                                       f"schema {schema.version}: name and unit not confirmed"))
        return
    add_metric(profile, _metric(field, name or key, value, path, where), where)


def _metric(field: explorer_schema.Field, name: str, value: Any, path: str, where: str) -> Metric:
    """Catalogued names convert as the catalog says; an unknown name with a declared unit takes
    that unit (not a guess from its suffix)."""
    numeric = is_number(value)
    if numeric and field.scale != 1:
        value = value * field.scale
    if catalog.lookup(name).catalogued or not field.unit or not numeric:
        return raw_metric(path, where, name, value)
    from .explorer_schema import UNITS

    unit, factor = UNITS[field.unit]
    return Metric(name, value * factor if factor != 1 else value, unit, repr(value), "uncatalogued")


def _meta(profile: Profile, schema: Schema, key: str, value: Any, path: str) -> None:
    """Catalogued system facts become metrics (the clock in Hz from Explorer's GHz), the rest metadata."""
    value = _scalar(value)
    field = schema.field("Metadata", key)
    if field is None:
        profile.skipped.append(Skipped(f"table Metadata, field '{key}'", f"{value!r:.60}",
                                       f"schema {schema.version}: name and unit not confirmed"))
    elif key == _CLOCK[0] and field.unit == "gigahertz" and is_number(value):
        add_metric(profile, raw_metric(path, "table Metadata", _CLOCK[1], value * 1e9), "Metadata")
        profile.metadata[key] = value
    elif catalog.lookup(key).catalogued and catalog.lookup(key).group == "system":
        add_metric(profile, raw_metric(path, "table Metadata", key, value), "Metadata")
        if key == "num_physical_cores":  # physical cores per logical core: the LNC (Metadata doc)
            profile.metadata.setdefault("lnc_config", value)
    else:
        profile.metadata[key] = value


def _throttle(rows: list[dict[str, Any]], core: Any, schema: Schema, path: str, profile: Profile) -> None:
    for number, row in enumerate(rows):
        nc = _core(row, path, f"table ThrottleSummary, row {number}")
        if core is not None and nc != core:
            continue
        kind = str(row.get("throttle_type", "all"))
        for field, (stem, suffix) in _THROTTLE_FIELDS.items():
            if row.get(field) is not None:
                _field(profile, schema, "ThrottleSummary", field, _scalar(row[field]), path,
                       f"table ThrottleSummary, row {number}", _throttle_name(kind, stem, nc, suffix))


def _throttle_name(kind: str, stem: str, core: Any, suffix: str) -> str:
    if kind == "all" and stem == "active" and suffix == "_ns":
        return f"throttle_active_nc{core}_time_ns"  # the summary-json's own name
    prefix = "throttle" if kind == "all" else f"throttle_{kind}"
    stem = "active_time" if stem == "active" else stem
    return f"{prefix}_{stem}_nc{core}{suffix}"


def _memory(rows: list[dict[str, Any]], core: Any, schema: Schema, path: str, profile: Profile) -> None:
    if rows and schema.field("HbmUsageSummaryByType", "usage_bytes") is None:
        profile.skipped.append(Skipped("table HbmUsageSummaryByType", f"{len(rows)} rows",
                                       f"schema {schema.version}: usage_bytes not confirmed"))
        return
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


def _warnings(rows: list[dict[str, Any]], profile: Profile) -> None:
    """The tool's own warnings ("Current NEFF is missing compiler metrics ...") as notes."""
    for row in rows:
        message = row.get("message")
        if message is not None:
            category = row.get("category")
            profile.notes.append(f"Neuron Explorer warning{f' ({category})' if category else ''}: "
                                 f"{clip(str(message), 300)}")


def sniff(path: str) -> bool:
    directory = Path(path)
    return directory.is_dir() and bool(table_files(directory, "Summary"))


PARSER = Parser(NAME, "Neuron Explorer Parquet directory (Summary, Metadata, ThrottleSummary, "
                "HbmUsageSummaryByType, Warning, SchemaFields); needs the 'parquet' extra", (), sniff, parse,
                reads_directory=True)

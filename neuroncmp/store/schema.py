"""The store's tables: one definition of every column, read by the writer (pyarrow), the reader
(DuckDB) and docs/history/store.md. Values are in the catalog's base units (seconds, bytes, fractions)."""

from __future__ import annotations

from typing import Any

# (column, DuckDB type, meaning): the schema tables in docs/history/store.md are written from these.
RUNS = (
    ("run", "VARCHAR", "run id: the first 12 hex digits of content_hash, "
                       "then .N for the N-th profile of a multi-profile file"),
    ("content_hash", "VARCHAR", "sha256 of the added file (of the folder's files, for a folder)"),
    ("time", "TIMESTAMP WITH TIME ZONE", "when the run happened (UTC)"),
    ("time_source", "VARCHAR", "where time came from: --at, listing, profile or file mtime"),
    ("commit", "VARCHAR", "source commit of the run, if given"),
    ("tags", "MAP(VARCHAR, VARCHAR)", "tags: --tag and listing columns, plus batch_size and variant from the profile"),
    ("series", "VARCHAR", "the tags as canonical JSON: one series per distinct value"),
    ("label", "VARCHAR", "the profile's label"),
    ("source", "VARCHAR", "the path it was added from"),
    ("section", "VARCHAR", "section or key inside the file, if any"),
    ("format", "VARCHAR", "input format (neuroncmp formats)"),
    ("object", "VARCHAR", "the store's immutable copy, relative to the store folder"),
    ("sidecars", "VARCHAR[]", "copies of the sidecars (memory table, Trainer metrics) a run folder's manifest names"),
    ("batch_size", "BIGINT", "batch size, if known"),
    ("batch_size_source", "VARCHAR", "where the batch size came from (file name, section title, inferred, ...)"),
    ("instance_type", "VARCHAR", "EC2 instance type, if stated"),
    ("versions", "MAP(VARCHAR, VARCHAR)", "tool versions the profile states (compiler_version, ...)"),
    ("added", "TIMESTAMP WITH TIME ZONE", "when it was added to the store (UTC)"),
)
METRICS = (
    ("run", "VARCHAR", "run id"),
    ("metric", "VARCHAR", "canonical metric name (catalog), memory.<type> for memory by usage type"),
    ("value", "DOUBLE", "value in the base unit (NULL for text)"),
    ("text", "VARCHAR", "the value of a text metric (versions, instance type), else NULL"),
    ("unit", "VARCHAR", "base unit: s, B, FLOP, cycle, count, fraction, ..."),
    ("group", "VARCHAR", "catalog group"),
    ("flags", "VARCHAR[]", "anomaly codes on this metric, uncatalogued, derived (memory totals)"),
)
MEMORY = (
    ("run", "VARCHAR", "run id"),
    ("device", "INTEGER", "Neuron device index, if known"),
    ("core", "INTEGER", "NeuronCore index, if known"),
    ("usage_type", "VARCHAR", "canonical usage type (shared_scratchpad, ...); total for the table's Total"),
    ("label", "VARCHAR", "the usage type as the input wrote it"),
    ("bytes", "BIGINT", "bytes"),
)
TABLES = {"runs": RUNS, "metrics": METRICS, "memory": MEMORY}


def arrow_schema(table: str) -> Any:
    """The pyarrow schema of ``table`` (pyarrow imported here, by writers only)."""
    import pyarrow as pa

    types = {"VARCHAR": pa.string(), "DOUBLE": pa.float64(), "BIGINT": pa.int64(),
             "INTEGER": pa.int32(), "TIMESTAMP WITH TIME ZONE": pa.timestamp("us", tz="UTC"),
             "MAP(VARCHAR, VARCHAR)": pa.map_(pa.string(), pa.string()),
             "VARCHAR[]": pa.list_(pa.string())}
    return pa.schema([(name, types[kind]) for name, kind, _ in TABLES[table]])


def columns(table: str) -> list[str]:
    return [name for name, _, _ in TABLES[table]]

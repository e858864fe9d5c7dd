"""The store's committed tables as Spark DataFrames, from a local folder or any URI Spark reads: only
the files the snapshot names (docs/history/spark.md, "Store paths"). Column types come from
``schema.TABLES``, the one definition of the tables.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...errors import InputError
from .. import folder, parts, schema

SPARK_TYPES = {"VARCHAR": "string", "DOUBLE": "double", "BIGINT": "bigint", "INTEGER": "int",
               "TIMESTAMP WITH TIME ZONE": "timestamp", "MAP(VARCHAR, VARCHAR)": "map<string,string>",
               "VARCHAR[]": "array<string>"}


@dataclass(frozen=True)
class Tables:
    """The three committed tables of one snapshot."""

    runs: Any
    metrics: Any
    memory: Any


def ddl(table: str, prefix: str = "", timestamps: str = "timestamp") -> str:
    """The table's columns as a Spark DDL string (``prefix`` on every name; timestamps as
    ``timestamps``: ``bigint`` where they travel as microseconds since the epoch)."""
    return ", ".join(f"`{prefix}{name}` {kind}" for name, kind in columns(table, timestamps))


def columns(table: str, timestamps: str = "timestamp") -> list[tuple[str, str]]:
    """(name, Spark type) of the table's columns."""
    return [(name, timestamps if kind.startswith("TIMESTAMP") else SPARK_TYPES[kind])
            for name, kind, _ in schema.TABLES[table]]


def struct(table: str) -> str:
    """The table's row as a Spark struct type (``array<...>`` of it nests a run's rows)."""
    return "struct<" + ", ".join(f"`{name}`: {kind}" for name, kind in columns(table)) + ">"


def uri(root: Path | str) -> str:
    """The store as a URI Spark resolves the same way on every node (a local folder: file://)."""
    return root.resolve().as_uri() if isinstance(root, Path) else root


def committed(spark: Any, root: Path | str) -> Tables:
    """The tables of the store's current snapshot (a store that is none is refused, untouched)."""
    found = snapshot(spark, root)
    base = uri(root)
    frames = {}
    for table in schema.TABLES:
        paths = [f"{base}/{name}" for name in parts.names(found, table)]
        reader = spark.read.schema(ddl(table))
        frames[table] = reader.parquet(*paths) if paths else spark.createDataFrame([], ddl(table))
    return Tables(**frames)


def snapshot(spark: Any, root: Path | str) -> dict[str, Any]:
    """The store's snapshot (a folder that is no store is refused, untouched)."""
    if isinstance(root, Path):
        folder.check(root)
        return folder.read_snapshot(root)
    return _remote_snapshot(spark, root)


def _remote_snapshot(spark: Any, root: str) -> dict[str, Any]:
    marker = read_text(spark, f"{root}/{folder.MARKER}")
    if marker is None:
        raise InputError(f"{root}: not a neuroncmp store (no {folder.MARKER} readable there); "
                         "refusing to use it")
    folder.check_marker(marker, f"{root}/{folder.MARKER}", root)
    text = read_text(spark, f"{root}/{folder.SNAPSHOT}")
    return json.loads(text) if text else {"schema": folder.SCHEMA, "parts": []}


def read_text(spark: Any, path: str) -> str | None:
    """A small file's text through Spark (None when it does not exist)."""
    from pyspark.errors import AnalysisException

    try:
        rows = spark.read.text(path, wholetext=True).collect()
    except AnalysisException as exc:
        if "PATH_NOT_FOUND" in str(exc) or "Path does not exist" in str(exc):
            return None
        raise
    return rows[0][0] if rows else ""

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


@dataclass(frozen=True)
class Tables:
    """The three committed tables of one snapshot."""

    runs: Any
    metrics: Any
    memory: Any


def spark_schema(arrow: Any) -> Any:
    """A pyarrow schema (``schema.arrow_schema`` and those built on it) as Spark's ``StructType``."""
    from pyspark.sql.pandas.types import from_arrow_schema

    return from_arrow_schema(arrow)


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
        columns = spark_schema(schema.arrow_schema(table))
        frames[table] = spark.read.schema(columns).parquet(*paths) if paths else \
            spark.createDataFrame([], columns)
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

"""Part files: each add (or compaction) writes one Parquet file per table, in full, under the lock;
only then does the new ``snapshot.json`` that names it replace the old one (the commit). A killed
writer leaves unnamed part files that no reader looks at and ``store compact`` removes.
"""

from __future__ import annotations

import os
import secrets
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import optional
from . import damage, schema

if TYPE_CHECKING:
    from .table_rows import Columns


def new_part_id() -> str:
    """Unique across processes and time: UTC time, process id, random bits."""
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S%f")
    return f"{stamp}-{os.getpid()}-{secrets.token_hex(4)}"


def write(root: Path, part: str, columns: Columns) -> None:
    """Write the part's three Parquet files under hidden temporary names (``.<part>.parquet.tmp``:
    no glob of ``*.parquet`` sees them), then give them their names. They are still not committed:
    the snapshot does not name them yet."""
    pa, pq = arrow()
    for table in schema.TABLES:
        data = pa.Table.from_pydict(columns.tables[table], schema=schema.arrow_schema(table))
        pq.write_table(data, staged(root, table, part), compression="zstd")
    place(root, part)


def staged(root: Path, table: str, part: str) -> Path:
    return root / "tables" / table / f".{part}.parquet.tmp"


def place(root: Path, part: str) -> None:
    """Rename the staged files to their part names (runs last: a part without runs is ignored)."""
    for table in ("memory", "metrics", "runs"):
        os.replace(staged(root, table, part), root / "tables" / table / f"{part}.parquet")


def entry(part: str, columns: Columns) -> dict[str, Any]:
    """The snapshot's record of a part: its id, run count and the content hashes it holds."""
    runs = columns.tables["runs"]
    return {"id": part, "runs": len(runs["run"]), "hashes": sorted(set(runs["content_hash"]))}


def names(snapshot: dict[str, Any], table: str) -> list[str]:
    """The committed part files of ``table``, relative to the store: ``tables/<table>/<name>``.

    A part written by pyarrow is one file per table, ``<part>.parquet``; a part written by Spark
    is the files its tasks wrote, ``<part>-<k>.parquet``, which the part's ``files`` record lists
    per table (none when that table got no rows)."""
    return [f"tables/{table}/{name}" for part in snapshot["parts"]
            for name in (part.get("files") or {}).get(table, [f"{part['id']}.parquet"])]


def files(root: Path, snapshot: dict[str, Any], table: str) -> list[Path]:
    """The committed part files of ``table``."""
    return [root / name for name in names(snapshot, table)]


def read_all(root: Path, snapshot: dict[str, Any]) -> Columns:
    """Every committed row, as columns (for compaction)."""
    from .table_rows import Columns  # the writer's; a read does not need it

    merged = Columns()
    for table in schema.TABLES:
        paths = files(root, snapshot, table)
        for path in paths:
            data = read_table(root, path, schema=schema.arrow_schema(table)).to_pydict()
            for column, values in data.items():
                merged.tables[table][column].extend(values)
    return merged


def read_column(root: Path, snapshot: dict[str, Any], table: str, column: str) -> list[Any]:
    """One column of every committed part of ``table``."""
    out: list[Any] = []
    for path in files(root, snapshot, table):
        out += read_table(root, path, columns=[column]).column(column).to_pylist()
    return out


def read_table(root: Path, path: Path, **options: Any) -> Any:
    """``pq.read_table(path, **options)``; a damaged or missing part is ``damage.StoreDamage``."""
    _, pq = arrow()
    try:
        return pq.read_table(path, **options)
    except Exception as exc:  # pyarrow's errors (ArrowInvalid, OSError, KeyError ...): damage
        raise damage.parquet_error(root, [path], exc) from None


def arrow() -> tuple[Any, Any]:
    needs = "the store needs pyarrow and duckdb: pip install 'neuroncmp[store]'"
    return optional("pyarrow", needs), optional("pyarrow.parquet", needs)

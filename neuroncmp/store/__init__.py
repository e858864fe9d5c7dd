"""The profile store: every run kept in a folder any engine can read (Parquet), queried with DuckDB
or Spark (its modules: docs/code.md; the folder and its guarantees: docs/history/store.md).
pyarrow, duckdb and pyspark are imported only by the functions that write or read tables.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .store import Store

__all__ = ["Store"]


def __getattr__(name: str) -> Any:
    """``Store`` loads on first use (PEP 562): ``history`` and ``regressions`` read the store
    through ``queries`` and never pay for what ``Store`` also does (add, ``diff_history``)."""
    if name == "Store":
        from .store import Store

        return Store
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

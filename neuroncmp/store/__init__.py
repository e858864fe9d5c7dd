"""The profile store: every run kept, in a folder any engine can read (Parquet), queried with DuckDB.

``folder`` (the folder, its lock and snapshot), ``objects`` (content-named copies), ``table_rows``
(profiles -> rows), ``schema`` (the tables), ``parts`` (writing and publishing), ``listing``
(runs.csv), ``adding``, ``reading`` (DuckDB), ``trends`` (history and regressions),
``maintenance`` (compact, check), ``store`` (the ``Store`` API), ``engines`` (DuckDB, the default,
and Spark, behind one interface). pyarrow, duckdb and pyspark are imported only by the functions
that write or read tables.
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

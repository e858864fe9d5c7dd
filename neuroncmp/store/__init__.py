"""The profile store: every run kept, in a folder any engine can read (Parquet), queried with DuckDB.

``folder`` (the folder, its lock and snapshot), ``objects`` (content-named copies), ``table_rows``
(profiles -> rows), ``schema`` (the tables), ``parts`` (writing and publishing), ``listing``
(runs.csv), ``adding``, ``reading`` (DuckDB), ``trends`` (history and regressions),
``maintenance`` (compact, check), ``store`` (the ``Store`` API), ``engines`` (DuckDB, the default,
and Spark, behind one interface). pyarrow, duckdb and pyspark are imported only by the functions
that write or read tables.
"""

from .store import Store

__all__ = ["Store"]

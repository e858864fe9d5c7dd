"""The store's query engines: DuckDB (embedded, the default) and Spark (a cluster, optional), on the
same folder with the same answers (docs/history/spark.md). ``choose`` picks one by name, else
``NEURONCMP_ENGINE``, else DuckDB. Neither engine's library is imported until it is used.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from ...choices import ENGINE_NAMES
from ...errors import UsageError
from .base import Engine

__all__ = ["Engine", "choose"]


def choose(name: str | None = None, *, master: str | None = None,
           conf: Mapping[str, str] | None = None, session: Any = None) -> Engine:
    """The engine called ``name`` (else ``NEURONCMP_ENGINE``, else ``duckdb``). ``master``,
    ``conf`` and ``session`` (an existing SparkSession) are Spark's and refused for DuckDB."""
    chosen = (name or os.environ.get("NEURONCMP_ENGINE") or "duckdb").strip().lower()
    if chosen not in ENGINE_NAMES:
        raise UsageError(f"engine '{chosen}': expected one of {', '.join(ENGINE_NAMES)}")
    if chosen == "duckdb":
        if master or conf or session is not None:
            raise UsageError("--spark-master and --conf apply to --engine spark")
        from .duckdb_engine import DuckDBEngine

        return DuckDBEngine()
    from .spark_engine import SparkEngine

    return SparkEngine(master=master, conf=dict(conf or {}), session=session)

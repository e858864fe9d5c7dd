"""The Spark engine: the store's commands on a Spark cluster (or ``local[*]``), same answers
(docs/history/spark.md). The session starts on first use (``spark_session``); a failed Spark job
becomes one line naming the error a task raised.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

from ...errors import InputError, NeuroncmpError
from .. import folder
from ..adding import AddReport
from ..identity import SeriesKey
from ..listing import Entry, Problem
from ..reading import Run
from . import spark_add, spark_reads
from .base import Scan, StoredRows
from .spark_session import first_line, start
from .spark_tables import committed, snapshot

T = TypeVar("T")


class SparkEngine:
    """Spark, from ``master`` (else SPARK_REMOTE, SPARK_MASTER, ``local[*]``) and ``conf``, or
    an existing ``session``."""

    name = "spark"

    def __init__(self, master: str | None = None, conf: Mapping[str, str] | None = None,
                 session: Any = None) -> None:
        self.master, self.conf, self._session = master, dict(conf or {}), session

    @property
    def session(self) -> Any:
        if self._session is None:
            self._session = start(self.master, self.conf)
        return self._session

    def add(self, root: Path | str, entries: list[Entry], *, skip_bad: bool,
            problems: list[Problem]) -> AddReport:
        local = folder.local(root, "store add")
        return self._run(lambda: spark_add.add(self.session, local, entries, skip_bad=skip_bad,
                                               problems=problems),
                         "; nothing was added (adding again finishes the set)")

    def series_by(self, root: Path | str) -> tuple[str, ...]:
        """A local store's setting, or a URI's, from its snapshot read through Spark."""
        if isinstance(root, Path):
            return folder.series_by(root)
        return folder.snapshot_series_by(self._run(lambda: snapshot(self.session, root), ""))

    def runs(self, root: Path | str) -> list[Run]:
        return self._read(root, spark_reads.runs)

    def tag_sets(self, root: Path | str) -> list[dict[str, str]]:
        return self._read(root, spark_reads.tag_sets)

    def units(self, root: Path | str, metric: str | None = None) -> dict[str, str]:
        return self._read(root, lambda tables: spark_reads.units(tables, metric))

    def scan(self, root: Path | str, keys: Mapping[SeriesKey, SeriesKey], metrics: Sequence[str] | None,
             since: datetime | None = None) -> Scan:
        return self._read(root, lambda tables: spark_reads.scan(tables, keys, metrics, since))

    def rows(self, root: Path | str, runs: Sequence[str]) -> StoredRows:
        return self._read(root, lambda tables: spark_reads.rows(tables, runs))

    def _read(self, root: Path | str, work: Callable[[Any], T]) -> T:
        return self._run(lambda: work(committed(self.session, root)), "", retry=True)

    def _run(self, work: Callable[[], T], after: str, retry: bool = False) -> T:
        """``work()``, a failed Spark job as one line (``after`` says what it means); with ``retry``,
        once more if a part file vanished under it (``store compact`` deletes the parts it merged
        once the new snapshot is published)."""
        try:
            return work()
        except NeuroncmpError:
            raise
        except Exception as exc:
            if not _from_spark(exc):
                raise
            if not (retry and _vanished(exc)):
                raise InputError(f"Spark job failed: {first_line(exc)}{after}") from None
        return self._run(work, after)


def _vanished(exc: BaseException) -> bool:
    text = str(exc)
    return "FileNotFoundException" in text or "FILE_NOT_EXIST" in text or "PATH_NOT_FOUND" in text


def _from_spark(exc: BaseException) -> bool:
    """Whether ``exc`` is Spark's (a job or the JVM), not a bug of ours in the driver."""
    module = type(exc).__module__
    return module.startswith(("pyspark", "py4j"))

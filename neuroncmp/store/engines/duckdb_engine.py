"""The DuckDB engine: the store read in-process (``reading``), written by pyarrow (``adding``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from .. import folder, reading
from ..identity import SeriesKey
from ..reading import Run
from .base import Scan, StoredRows

if TYPE_CHECKING:
    from ..adding import AddReport
    from ..listing import Entry, Problem



class DuckDBEngine:
    """Embedded, one machine: the default."""

    name = "duckdb"

    def __init__(self) -> None:
        self._open = reading.Connections()

    def add(self, root: Path | str, entries: list[Entry], *, skip_bad: bool,
            problems: list[Problem]) -> AddReport:
        from .. import adding  # the parsers: an add's only

        return adding.add(folder.local(root, "store add"), entries, skip_bad=skip_bad,
                          problems=problems)

    def series_by(self, root: Path | str) -> tuple[str, ...]:
        return folder.series_by(root)

    def runs(self, root: Path | str) -> list[Run]:
        return reading.retrying(self._local(root), reading.runs, self._open)

    def tag_sets(self, root: Path | str) -> list[dict[str, str]]:
        return reading.retrying(self._local(root), reading.tag_sets, self._open)

    def units(self, root: Path | str, metric: str | None = None) -> dict[str, str]:
        return reading.retrying(self._local(root), lambda con: reading.units(con, metric), self._open)

    def scan(self, root: Path | str, keys: Mapping[SeriesKey, SeriesKey], metrics: Sequence[str] | None,
             since: datetime | None = None) -> Scan:
        # one connection: one snapshot's part files
        return reading.retrying(self._local(root), lambda con: reading.scan(con, keys, metrics, since), self._open)

    def rows(self, root: Path | str, runs: Sequence[str]) -> StoredRows:
        return StoredRows(*reading.retrying(self._local(root), lambda con: reading.rows(con, runs), self._open))

    @staticmethod
    def _local(root: Path | str) -> Path:
        return folder.local(root, "--engine duckdb")


"""The DuckDB engine: the store read in-process (``reading``), written by pyarrow (``adding``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from .. import folder, reading
from ..identity import SeriesKey
from ..reading import Run
from ..trends import SeriesValues
from .base import StoredRows

if TYPE_CHECKING:
    from ..adding import AddReport
    from ..listing import Entry, Problem

T = TypeVar("T")


class DuckDBEngine:
    """Embedded, one machine: the default."""

    name = "duckdb"

    def add(self, root: Path | str, entries: list[Entry], *, skip_bad: bool,
            problems: list[Problem]) -> AddReport:
        from .. import adding  # the parsers: an add's only

        return adding.add(folder.local(root, "store add"), entries, skip_bad=skip_bad,
                          problems=problems)

    def series_by(self, root: Path | str) -> tuple[str, ...]:
        return folder.series_by(root)

    def runs(self, root: Path | str) -> list[Run]:
        return reading.retrying(self._local(root), reading.runs)

    def tag_sets(self, root: Path | str) -> list[dict[str, str]]:
        return reading.retrying(self._local(root), reading.tag_sets)

    def units(self, root: Path | str, metric: str | None = None) -> dict[str, str]:
        return reading.retrying(self._local(root), lambda con: reading.units(con, metric))

    def series(self, root: Path | str, keys: Mapping[SeriesKey, SeriesKey], metric: str | None,
               each: Callable[[SeriesValues], T]) -> list[T]:
        def work(con: Any) -> list[T]:
            named = {key.text: key for key in keys.values()}  # the SQL groups by the key's text
            by_run = {run.run: keys[own].text for run in reading.runs(con)
                      if (own := SeriesKey.of(run.tags)) in keys}
            return [each(_values(row, named)) for row in reading.series(con, by_run, metric)]
        return reading.retrying(self._local(root), work)

    def rows(self, root: Path | str, runs: Sequence[str]) -> StoredRows:
        return StoredRows(*reading.retrying(self._local(root), lambda con: reading.rows(con, runs)))

    @staticmethod
    def _local(root: Path | str) -> Path:
        return folder.local(root, "--engine duckdb")


def _values(row: reading.SeriesRow, named: dict[str, SeriesKey]) -> SeriesValues:
    metric, key, unit, runs, commits, times, values = row
    return SeriesValues(metric, named[key], unit, tuple(runs), tuple(commits),
                        tuple(map(reading.utc, times)), tuple(values))

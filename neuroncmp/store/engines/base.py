"""What an engine does for the store: add, and the few reads every query is built from, with the
records they return (``queries`` and ``baseline`` assemble the rest, once for every engine): one
``scan`` returns the runs a query takes and every series' values as arrays, and everything above it
is the same for every engine (docs/history/spark.md, "What runs where"). A store's location is a
local folder (``Path``) or a URI (``str``: ``hdfs://``, ``s3a://``, ``file://``; only an engine
that reads such paths accepts one).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from ..identity import SeriesKey

if TYPE_CHECKING:  # a query imports no parser: adding and listing load with an add only
    from ..adding import AddReport
    from ..listing import Entry, Problem
    from ..reading import Run

Where = Mapping[str, Sequence[str]]
Array = Any  # a numpy array (numpy is imported by the engines that fill one)


class Runs(NamedTuple):
    """The runs a query takes, in time order (then by id): each one's id, commit, time (UTC) and
    batch size."""

    ids: list[str]
    commits: list[str | None]
    times: list[datetime]
    batch_sizes: list[int | None]


class Scan(NamedTuple):
    """One snapshot's values of the series a query reads: ``runs`` the runs it takes; ``series``
    each series as (metric, series key text, unit), by metric then key text; ``sizes`` its number
    of values; ``at`` each value's run (an index into ``runs``) and ``values`` the values (base
    unit, text values left out), series after series, each in time order."""

    runs: Runs
    series: list[tuple[str, str, str]]
    sizes: Array
    at: Array
    values: Array


def keyed(keys: Mapping[SeriesKey, SeriesKey]) -> tuple[list[str], list[str]]:
    """The tag sets a query takes, as stored (the runs' ``series`` column: all their tags), and
    the text of the series key each one is read under."""
    return [own.text for own in keys], [key.text for key in keys.values()]


class StoredRows(NamedTuple):
    """Some runs' rows as stored: ``metrics`` as (run, metric, value, text, unit, group, flags),
    ``memory`` as (run, device, core, usage_type, label, bytes)."""

    metrics: list[tuple[Any, ...]]
    memory: list[tuple[Any, ...]]


class Engine(Protocol):
    """One engine; ``Store``, ``queries`` and ``baseline`` call these and nothing else."""

    name: str

    def add(self, root: Path | str, entries: list[Entry], *, skip_bad: bool,
            problems: list[Problem]) -> AddReport:
        """Add the entries' profiles (``problems``: listing rows already found bad)."""
        ...

    def series_by(self, root: Path | str) -> tuple[str, ...]:
        """The store's own series keys (``store series-by``; empty: every tag)."""
        ...

    def runs(self, root: Path | str) -> list[Run]:
        """Every run, in time order (then by id), ``series`` its stored key (all its tags)."""
        ...

    def tag_sets(self, root: Path | str) -> list[dict[str, str]]:
        """The distinct tag sets of the runs (a few hundred, however many runs)."""
        ...

    def units(self, root: Path | str, metric: str | None = None) -> dict[str, str]:
        """The base unit of each metric in the store (of ``metric`` only, when given)."""
        ...

    def scan(self, root: Path | str, keys: Mapping[SeriesKey, SeriesKey], metrics: Sequence[str] | None,
             since: datetime | None = None) -> Scan:
        """The runs whose tag set (``SeriesKey.of(tags)``) ``keys`` maps to a series key (the runs
        of one series are those of one key) and the values of every series of ``metrics`` (every
        metric when None) over them; with ``since``, only the series with a run later than it. All
        from one snapshot: a query during an add sees the store before it or after it, never half
        of it."""
        ...

    def rows(self, root: Path | str, runs: Sequence[str]) -> StoredRows:
        """The ``metrics`` and ``memory`` rows of these runs."""
        ...

"""What an engine does for the store: add, list runs, history and regressions.

A store's location is a local folder (``Path``) or a URI (``str``: ``hdfs://``, ``s3a://``,
``file://``; only an engine that reads such paths accepts one). ``where`` maps a tag to the
values it may take; results are the immutable values of ``adding``, ``reading`` and ``trends``.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Mapping, Protocol, Sequence

from ..adding import AddReport
from ..listing import Entry, Problem
from ..reading import Run
from ..trends import History, Regressions

Where = Mapping[str, Sequence[str]]


class Engine(Protocol):
    """One engine; ``Store`` calls these and nothing else."""

    name: str

    def add(self, root: Path | str, entries: list[Entry], *, skip_bad: bool,
            problems: list[Problem]) -> AddReport:
        """Add the entries' profiles (``problems``: listing rows already found bad)."""
        ...

    def series_by(self, root: Path | str) -> tuple[str, ...]:
        """The store's own series keys (``store series-by``; empty: every tag)."""
        ...

    def runs(self, root: Path | str, where: Where, series_by: Sequence[str] = ()) -> list[Run]:
        """Every run matching ``where``, in time order (then by id), its ``series`` keyed by
        ``series_by`` (all tags when empty). ``where`` matching nothing is a UsageError."""
        ...

    def history(self, root: Path | str, metric: str, where: Where,
                series_by: Sequence[str] = ()) -> History:
        """Every series of ``metric`` (canonical name) among the matching runs, with its shifts."""
        ...

    def regressions(self, root: Path | str, where: Where, since: datetime | None,
                    all_changes: bool, min_change: float | None,
                    series_by: Sequence[str] = ()) -> Regressions:
        """Shifts in every series of every metric, filtered and ordered by ``trends.select``."""
        ...

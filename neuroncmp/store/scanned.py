"""What a query's one scan of the store returns: the runs, and every series' values as arrays
(docs/history/spark.md, "What runs where"): everything above the scan is the same for every engine.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any, NamedTuple

from .identity import SeriesKey

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

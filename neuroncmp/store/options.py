"""The options of the store's queries as frozen records, checked once whoever gives them: ``Store``
and the commands make them with ``HistoryOptions.of`` / ``RegressionsOptions.of`` (a ``UsageError``
names a bad argument) and run the same queries with them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime

from .. import arguments
from ..catalog import resolve_named
from ..choices import SAMPLE
from ..errors import UsageError
from ..escape import quote
from .identity import parse_keys
from .times import as_utc, parse_time

Tags = Mapping[str, tuple[str, ...]]
SeriesBy = str | Iterable[str] | None


@dataclass(frozen=True, slots=True)
class HistoryOptions:
    """``history``: one metric (its catalog name), the runs ``where`` picks, series by
    ``series_by`` (``None``: the store's setting, else every tag)."""

    metric: str
    where: Tags = field(default_factory=dict)
    series_by: tuple[str, ...] | None = None

    @classmethod
    def of(cls, metric: str, where: Mapping[str, str | Iterable[str]] | None = None,
           series_by: SeriesBy = None) -> HistoryOptions:
        if not isinstance(metric, str):
            raise UsageError(f"{arguments.shown('metric', metric)}: expected a metric name (a string)")
        name, basis = resolve_named(metric)
        if basis == SAMPLE:
            raise UsageError(f"metric {quote(metric)}: the store keeps each run's values per step and "
                             f"history reads them so: give {quote(name)} (or {quote(name + '/step')})")
        return cls(name, tags(where or {}), keys(series_by))


@dataclass(frozen=True, slots=True)
class RegressionsOptions:
    """``regressions``: the runs ``where`` picks, series by ``series_by``; changes for the worse
    only unless ``all_changes``, of at least ``min_change`` (a fraction), first seen after
    ``since``."""

    where: Tags = field(default_factory=dict)
    since: datetime | None = None
    all_changes: bool = False
    min_change: float | None = None
    series_by: tuple[str, ...] | None = None

    @classmethod
    def of(cls, where: Mapping[str, str | Iterable[str]] | None = None,
           since: str | datetime | None = None, all_changes: bool = False,
           min_change: float | None = None, series_by: SeriesBy = None) -> RegressionsOptions:
        when = moment(arguments.moment("since", since), "--since")
        arguments.flag("all_changes", all_changes)
        if min_change is not None:
            min_change = arguments.fraction_floor("min_change", min_change, 1e4)
        return cls(tags(where or {}), when, all_changes, min_change, keys(series_by))


def keys(series_by: SeriesBy) -> tuple[str, ...] | None:
    """``"model,batch"`` or ``["model", "batch"]`` as tag names; ``None`` stays (the store's)."""
    if series_by is None:
        return None
    return parse_keys(",".join(arguments.texts("series_by", series_by)))


def tags(where: Mapping[str, str | Iterable[str]], keywords: bool = False) -> dict[str, tuple[str, ...]]:
    """Tag -> accepted values; checked: string keys, each value a string or a non-empty list of them
    (an empty list would accept no value: a filter that can match nothing is refused, as is one
    that matches no run). ``keywords``: the tags were keyword arguments (``store.runs(model=[])``),
    and an error names one as it was written (``model=[]``), not as ``where['model']``."""
    if not isinstance(where, Mapping):
        raise UsageError(f"{arguments.shown('where', where)}: expected a mapping of tags to values")
    for key in where:
        if not isinstance(key, str):
            raise UsageError(f"{arguments.shown('where', key)}: expected each key to be a string")
    named = {k: k if keywords else f"where[{k!r}]" for k in where}
    checked = {k: arguments.texts(named[k], v) for k, v in where.items()}
    for key, values in checked.items():
        if not values:
            raise UsageError(f"{arguments.shown(named[key], where[key])}: expected at least one value")
    return checked


def moment(value: str | datetime | None, option: str) -> datetime | None:
    """An ISO 8601 time (or a datetime) in UTC; a bad one is a usage error naming ``option``."""
    if value is None:
        return None
    try:
        return as_utc(value) if isinstance(value, datetime) else parse_time(value)
    except ValueError as exc:
        why = f": {exc}" if str(exc).startswith("outside") else ""
        raise UsageError(f"{option} {quote(str(value))}: expected an ISO 8601 time "
                         f"(2024-05-01T02:00:00Z){why}") from None

"""Per-operator counts, sums and interval unions over millions of instructions, column-wise in
numpy, one Parquet row group at a time; no Python loop over rows.

The union: with one operator's intervals sorted by start, each one adds what it reaches past every
earlier one, ``max(0, end - max(start, reach))`` where ``reach`` is the largest earlier end; the
sum is the covered time. All operators at once: the rows are sorted by operator (a stable radix
sort on the operator number keeps each operator's rows in time order when the table is), and each
operator's times are shifted by ``operator * span`` (``span`` longer than the batch's time range),
so one running maximum over the batch never carries an operator's reach into the next. Between
row groups each operator's reach is carried over, which is exact while the table is in time order
(the generated tables are; Explorer's ``Instruction`` is not documented to be): a row group that
breaks the order makes ``OutOfOrder``, and the caller reads the whole table as one batch, sorted
by (operator, start). Memory: a row group's columns at a time in time order, the whole table's
needed columns otherwise.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any, NamedTuple

import numpy as np

_FLOOR = np.iinfo(np.int64).min // 4  # "no reach yet": below any shifted time, far from overflow
_STATS = 7


class OutOfOrder(Exception):
    """A row group starts before the previous one ended its rows: the streaming union would be wrong."""


class Totals:
    """The running totals per operator, grown as row groups bring new names."""

    def __init__(self, none: str) -> None:
        self.none = none
        self.index: dict[str, int] = {}
        self.names: list[str] = []
        self.wait: list[bool] = []
        # instructions, covered ns, summed ns, FLOPs, bytes, rows without FLOPs, rows without bytes
        self.stats = np.zeros((_STATS, 0))
        self.reach = np.zeros(0, dtype=np.int64)
        self.last_start: int | None = None
        self.per_engine: dict[str, int] = {}

    def ids(self, names: list[str], waits: list[bool]) -> Any:
        """Global numbers for ``names`` (new ones added): an int64 array."""
        out = np.empty(len(names), dtype=np.int64)
        for at, (name, wait) in enumerate(zip(names, waits)):
            number = self.index.get(name)
            if number is None:
                number = self.index[name] = len(self.names)
                self.names.append(name)
                self.wait.append(wait)
            out[at] = number
        grow = len(self.names) - self.reach.size
        if grow > 0:
            self.stats = np.concatenate([self.stats, np.zeros((_STATS, grow))], axis=1)
            self.reach = np.concatenate([self.reach, np.full(grow, _FLOOR, dtype=np.int64)])
        return out

    def rows(self) -> Iterator[tuple[str, int, float, float, float | None, float | None, bool]]:
        """Per operator seen: (name, instructions, covered ns, summed ns, FLOPs, bytes, wait); FLOPs
        or bytes None when a row of the operator has none (null): a sum without it would understate."""
        for number, name in enumerate(self.names):
            count, covered, summed, flops, moved, no_flops, no_bytes = self.stats[:, number]
            if count and name:  # "": the left-out waits
                yield (name, int(count), float(covered), float(summed), None if no_flops else float(flops),
                       None if no_bytes else float(moved), self.wait[number])


def codes(column: Any, none: str) -> tuple[Any, list[str]]:
    """A text column of one batch as (int64 codes, names): nulls and empty text become ``none``."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if not pa.types.is_dictionary(column.type):
        column = pc.dictionary_encode(column)
    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks()
    names = [str(v) if v else none for v in column.dictionary.to_pylist()] + [none]
    indices = column.indices
    filled = indices.fill_null(len(names) - 1) if indices.null_count else indices
    return np.asarray(filled.to_numpy(zero_copy_only=False), dtype=np.int64), names


class Amounts(NamedTuple):
    """A batch's FLOPs and HBM bytes per row (nulls as 0), and which rows had none."""

    flops: Any
    moved: Any
    no_flops: Any
    no_bytes: Any


def add(totals: Totals, group: Any, start: Any, end: Any, amounts: Amounts, in_time_order: bool) -> None:
    """One batch's rows (``group``: global operator numbers; times checked, ``columns.times``) into
    the totals."""
    if start.size == 0:
        return
    if in_time_order:
        ordered = bool(np.all(start[1:] >= start[:-1]))
        if not ordered or (totals.last_start is not None and int(start[0]) < totals.last_start):
            raise OutOfOrder
        totals.last_start = int(start[-1])
    size = len(totals.names)
    stats = totals.stats
    stats[0] += np.bincount(group, minlength=size)
    stats[2] += np.bincount(group, weights=end - start, minlength=size)
    stats[3] += np.bincount(group, weights=amounts.flops, minlength=size)
    stats[4] += np.bincount(group, weights=amounts.moved, minlength=size)
    stats[5] += np.bincount(group, weights=amounts.no_flops, minlength=size)
    stats[6] += np.bincount(group, weights=amounts.no_bytes, minlength=size)
    stats[1] += _covered(totals, group, start, end, in_time_order)


def _covered(totals: Totals, group: Any, start: Any, end: Any, in_time_order: bool) -> Any:
    size = len(totals.names)
    origin = int(start.min())
    span = int(end.max()) - origin + 1
    if span * size >= 2**62:  # the shift would overflow: one operator at a time (slow, never seen)
        covered = np.zeros(size)
        for number in np.unique(group):
            mine = group == number
            covered += _covered_one(totals, int(number), start[mine], end[mine], size)
        return covered
    if in_time_order:  # each operator's rows keep their time order: a radix sort on the operator
        order = np.argsort(group.astype(np.int16) if size < 2**15 else group, kind="stable")
    else:
        order = np.argsort(group * span + (start - origin), kind="stable")
    sorted_group = group[order]
    shift = sorted_group * span  # in place from here on: a row group's arrays are allocated once
    shift -= origin
    low, high = start[order], end[order]
    low += shift
    high += shift
    floor = _FLOOR
    if bool(np.any(totals.reach != _FLOOR)):  # reaches carried from earlier row groups
        carried = np.where(totals.reach == _FLOOR, _FLOOR, totals.reach + (np.arange(size) * span - origin))
        floor = carried[sorted_group]
    gained, reach = gains(low, high, floor)
    last = np.flatnonzero(np.append(sorted_group[1:] != sorted_group[:-1], True))  # each operator's last row
    ends = reach[last] - shift[last]
    totals.reach[sorted_group[last]] = np.maximum(totals.reach[sorted_group[last]], ends)
    return np.bincount(sorted_group, weights=gained, minlength=size)


def _covered_one(totals: Totals, number: int, start: Any, end: Any, size: int) -> Any:
    order = np.argsort(start, kind="stable")
    gained, reach = gains(start[order], end[order], totals.reach[number])
    out = np.zeros(size)
    out[number] = float(gained.sum())
    totals.reach[number] = max(int(totals.reach[number]), int(reach[-1]))
    return out


def gains(low: Any, high: Any, floor: Any = None) -> tuple[Any, Any]:
    """What each interval adds to the covered time, and the running reach: the intervals in order of
    start, each adds ``max(0, high - max(low, reach))``, ``reach`` the largest end before it and at
    least ``floor`` (one number, or one per interval: a reach carried from earlier rows)."""
    reach = np.maximum.accumulate(high)
    gained = np.empty_like(reach)
    gained[0] = low[0]
    gained[1:] = reach[:-1]
    if floor is not None:
        np.maximum(gained, floor, out=gained)
    np.maximum(gained, low, out=gained)
    np.subtract(high, gained, out=gained)
    np.maximum(gained, 0, out=gained)
    return gained, reach


def union_length(intervals: Iterable[tuple[float, float]]) -> float:
    """Covered length: overlapping and touching intervals merged, each stretch counted once."""
    spans = np.array(sorted(intervals), dtype=float).reshape(-1, 2)
    return float(gains(spans[:, 0], spans[:, 1])[0].sum()) if len(spans) else 0.0

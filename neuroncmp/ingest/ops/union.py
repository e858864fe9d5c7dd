"""Per-group interval unions over millions of instructions, in numpy: one sort, one running
maximum, a few ``bincount`` sums; no Python loop over rows.

The intervals are sorted by (group, start). Each group's starts are shifted by ``group * span``
(``span`` longer than the whole trace), so one running maximum of the ends runs across all groups
without ever carrying a group's reach into the next. An interval opens a new island when it starts
after the running maximum of every earlier end; an island covers (its last running maximum - its
first start); a group's time is the sum of its islands. When the starts are already in time
order (Explorer writes them so) the sort is a stable radix sort on the group number alone.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, NamedTuple

import numpy as np

from ...records import record


@record
class Columns(NamedTuple):
    """The columns ``aggregate`` needs, as numpy arrays, and the names of the groups."""

    group: Any          # int64 group number per row
    names: list[str]
    start: Any          # int64 ns
    end: Any            # int64 ns
    moved: Any          # float64 HBM bytes
    flops: Any          # float64
    wait: Any           # bool per group
    engine: Any         # int32 engine number per row (the graph's instruction counts)
    engines: list[str]

    @classmethod
    def of(cls, table: Any, level: str, key: str | None, waits: frozenset[str], none: str) -> Columns:
        engine, engines = _codes(table.column("engine"), none)
        opcode, opcodes = _codes(table.column("opcode"), none)
        waiting = np.isin(opcode, [i for i, name in enumerate(opcodes) if name in waits])
        if level == "opcode":
            group = engine.astype(np.int64) * len(opcodes) + opcode
            names = [f"{e} {o}" for e in engines for o in opcodes]
            wait = np.array([o in waits for _ in engines for o in opcodes], dtype=bool)
        else:  # waits are left out: they go to one more group, never reported (no copy of the columns)
            codes, names = _codes(table.column(key), none)
            group = np.where(waiting, len(names), codes).astype(np.int64)
            wait = np.zeros(len(names) + 1, dtype=bool)
            names = [*names, ""]
        moved = _numbers(table, "hbm_read_bytes") + _numbers(table, "hbm_write_bytes")
        return cls(group, names, _ints(table, "start_ts"), _ints(table, "end_ts"), moved,
                   _numbers(table, "raw_flops"), wait, engine, engines)

    def per_engine(self) -> tuple[tuple[str, int], ...]:
        counts = np.bincount(self.engine, minlength=len(self.engines))
        return tuple((name, int(n)) for name, n in zip(self.engines, counts) if n)


def _codes(column: Any, none: str) -> tuple[Any, list[str]]:
    """A text column as (int32 codes, names): nulls and empty text become ``none``."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if not pa.types.is_dictionary(column.type):
        column = pc.dictionary_encode(column)
    chunk = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    names = [str(v) if v else none for v in chunk.dictionary.to_pylist()]
    codes = chunk.indices.fill_null(len(names)).to_numpy(zero_copy_only=False).astype(np.int32)
    names.append(none)
    unique = list(dict.fromkeys(names))  # "" and null both mean none: one group
    if len(unique) != len(names):
        remap = np.array([unique.index(n) for n in names], dtype=np.int32)
        codes, names = remap[codes], unique
    return codes, names


def _ints(table: Any, name: str) -> Any:
    return np.asarray(table.column(name).to_numpy(), dtype=np.int64)  # no copy when already int64


def _numbers(table: Any, name: str) -> Any:
    if name not in table.column_names:
        return np.zeros(table.num_rows)
    column = table.column(name)
    return np.asarray((column.fill_null(0) if column.null_count else column).to_numpy(), dtype=np.float64)


def aggregate(columns: Columns) -> Iterator[tuple[str, int, float, float, float, float, bool]]:
    """Per group: (name, instructions, covered ns, summed ns, FLOPs, bytes, wait)."""
    groups = len(columns.names)
    if columns.start.size == 0:
        return iter(())
    count = np.bincount(columns.group, minlength=groups)
    summed = np.bincount(columns.group, weights=(columns.end - columns.start).astype(np.float64), minlength=groups)
    flops = np.bincount(columns.group, weights=columns.flops, minlength=groups)
    moved = np.bincount(columns.group, weights=columns.moved, minlength=groups)
    covered = _covered(columns.group, columns.start, columns.end, groups)
    return ((columns.names[g], int(count[g]), float(covered[g]), float(summed[g]), float(flops[g]), float(moved[g]),
             bool(columns.wait[g])) for g in np.flatnonzero(count) if columns.names[g])


def _covered(group: Any, start: Any, end: Any, groups: int) -> Any:
    origin = int(start.min())
    start, end = start - origin, end - origin
    span = int(end.max()) + 1
    if span * groups >= 2**62:  # the shift would overflow: one group at a time
        return np.array([_one(start[group == g], end[group == g]) for g in range(groups)])
    if start.size < 2 or bool(np.all(start[1:] >= start[:-1])):
        order = np.argsort(group.astype(np.int16 if groups < 2**15 else np.int32), kind="stable")
    else:
        order = np.argsort(group * span + start, kind="stable")
    shift = group[order] * span
    lo, hi = start[order] + shift, end[order] + shift
    reach = np.maximum.accumulate(hi)
    opens = np.empty(lo.size, dtype=bool)
    opens[0] = True
    opens[1:] = lo[1:] > reach[:-1]
    first = np.flatnonzero(opens)
    last = np.append(first[1:] - 1, lo.size - 1)
    island = (reach[last] - lo[first]).astype(np.float64)
    return np.bincount(group[order][first], weights=island, minlength=groups)


def _one(start: Any, end: Any) -> float:
    if start.size == 0:
        return 0.0
    order = np.argsort(start, kind="stable")
    lo, hi = start[order], end[order]
    reach = np.maximum.accumulate(hi)
    opens = np.concatenate(([True], lo[1:] > reach[:-1]))
    first = np.flatnonzero(opens)
    last = np.append(first[1:] - 1, lo.size - 1)
    return float((reach[last] - lo[first]).sum())

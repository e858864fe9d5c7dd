"""Operation tables from Neuron Explorer's Parquet tables, aggregated column-wise (pyarrow and
numpy), never row by row: ``Instruction`` gives every level (``union.py`` merges each op's intervals);
without it ``OpcodeSummary`` the opcode level and ``HloInstruction`` the HLO level (docs/commands/ops.md,
"Inputs"). Needs pyarrow (the ``parquet`` extra).
"""

from __future__ import annotations

import json
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Iterator
from functools import partial
from itertools import accumulate
from pathlib import Path
from typing import Any

import numpy as np

from ...errors import ParseError
from ..formats.explorer_parquet import _pyarrow_parquet, table_files
from . import checks, union
from . import columns as columns_
from .table import NONE, WAIT_OPCODES, WAITS_APART, Graph, Op, OpTable, nested_parent

_NS = 1e-9
_KEY = {"hlo": "hlo_name", "layer": "layer", "kernel": "nki_source_location"}
_OPTIONAL = ("hbm_read_bytes", "hbm_write_bytes", "raw_flops")
_BATCH = 1 << 20  # rows per batch read: bounds memory to about 100 MB of columns


def has_tables(directory: Path) -> bool:
    return any(table_files(directory, name) for name in ("Instruction", "OpcodeSummary", "HloInstruction"))


def read(directory: Path, level: str) -> OpTable:
    if files := table_files(directory, "Instruction"):
        return _from_instructions(files, directory, level)
    return _from_summaries(directory, level)


def _read(files: list[Path], table: str, columns: list[str], text: list[str]) -> Any:
    """The columns of ``table`` (text columns as dictionaries: cheap to group); a damaged or
    unreadable file is one error naming it."""
    pq = _pyarrow_parquet()
    try:
        present = set(pq.ParquetFile(files[0]).schema_arrow.names)
        wanted = [c for c in columns if c in present]
        return pq.read_table([str(f) for f in files] if len(files) > 1 else files[0], columns=wanted,
                             read_dictionary=[c for c in text if c in present]).unify_dictionaries()
    except Exception as exc:  # pyarrow raises many types for a corrupt file: said in one line
        raise _unreadable(files[0], table, exc) from None


def _from_instructions(files: list[Path], directory: Path, level: str) -> OpTable:
    key = _KEY.get(level)
    need = ["engine", "opcode", "start_ts", "end_ts"] + ([key] if key else [])
    present = set(_schema(files[0]))
    if missing := [c for c in need if c not in present]:
        raise ParseError(str(files[0]), "table Instruction", f"columns {', '.join(need)}", f"no {', '.join(missing)}")
    columns = need + [c for c in _OPTIONAL if c in present]
    try:
        totals = _stream(files, level, key, columns, in_time_order=True)
    except union.OutOfOrder:  # not in time order: the whole table at once, sorted by (operator, start)
        totals = _stream(files, level, key, columns, in_time_order=False)
    has_flops = "raw_flops" in present
    ops = [Op(name, count, covered * _NS, summed * _NS, flops if has_flops else None, moved, wait)
           for name, count, covered, summed, flops, moved, wait in totals.rows()]
    notes: tuple[str, ...] = () if level == "opcode" else (WAITS_APART,)
    if level == "layer":
        keys = {op.key for op in ops}
        ops = [op._replace(parent=nested_parent(op.key, keys)) for op in ops]
    engines = tuple(sorted(totals.per_engine.items()))
    return OpTable(level, str(directory), tuple(ops), Graph(_neff_hash(directory), engines), notes)


def _schema(file: Path) -> list[str]:
    pq = _pyarrow_parquet()
    try:
        return list(pq.ParquetFile(file).schema_arrow.names)
    except Exception as exc:  # pyarrow raises many types for a corrupt file: said in one line
        raise _unreadable(file, "Instruction", exc) from None


def _unreadable(file: Path, table: str, exc: Exception) -> ParseError:
    first = str(exc).strip().splitlines()[0][:120] if str(exc).strip() else ""
    return ParseError(str(file), f"table {table}", "a readable Parquet table", f"{type(exc).__name__}: {first}")


def _batches(files: list[Path], columns: list[str], text: list[str],
             in_time_order: bool) -> Iterator[tuple[Any, columns_.Locate]]:
    """Row groups one by one (in time order), else the whole table as one batch; each with where its
    rows are stored (file, row in the file), for the errors that name a row."""
    pq = _pyarrow_parquet()
    if not in_time_order:
        sizes = [pq.ParquetFile(f).metadata.num_rows for f in files]
        yield (pq.read_table([str(f) for f in files] if len(files) > 1 else files[0], columns=columns,
                             read_dictionary=text), partial(_in_files, files, list(accumulate(sizes))))
        return
    for file in files:
        offset = 0
        for batch in pq.ParquetFile(file, read_dictionary=text).iter_batches(batch_size=_BATCH, columns=columns):
            yield batch, partial(_in_file, file, offset)
            offset += batch.num_rows


def _in_file(file: Path, offset: int, at: int) -> tuple[Path, int]:
    return file, offset + at


def _in_files(files: list[Path], ends: list[int], at: int) -> tuple[Path, int]:
    number = bisect_right(ends, at)
    return files[number], at - (ends[number - 1] if number else 0)


def _stream(files: list[Path], level: str, key: str | None, columns: list[str], in_time_order: bool) -> union.Totals:
    totals = union.Totals(NONE)
    text = ["engine", "opcode"] + ([key] if key else [])
    batches = _batches(files, columns, text, in_time_order)
    while True:
        try:
            found = next(batches, None)
        except Exception as exc:  # a damaged row group: one line naming the file
            raise _unreadable(files[0], "Instruction", exc) from None
        if found is None:
            return totals
        _add_batch(totals, *found, key, in_time_order)


def _add_batch(totals: union.Totals, batch: Any, locate: columns_.Locate, key: str | None,
               in_time_order: bool) -> None:
    start, end = columns_.times(batch, locate)  # checked first: a bad table is refused, never summed
    amounts = _amounts(batch, locate)
    engine, engines = union.codes(columns_.text(batch, "engine", locate), NONE)
    opcode, opcodes = union.codes(columns_.text(batch, "opcode", locate), NONE)
    columns_.named(engine, engines, NONE, "engine", locate)  # every instruction runs an opcode on an engine
    columns_.named(opcode, opcodes, NONE, "opcode", locate)
    for name, count in zip(engines, np.bincount(engine, minlength=len(engines)).tolist()):
        if count:
            totals.per_engine[name] = totals.per_engine.get(name, 0) + count
    waiting = np.array([name in WAIT_OPCODES for name in opcodes])
    if key is None:  # the opcode level
        names = [f"{e} {o}" for e in engines for o in opcodes]
        ids = totals.ids(names, [o in WAIT_OPCODES for _ in engines for o in opcodes])
        group = ids[engine * len(opcodes) + opcode]
    else:  # waits are left out: they go to the unnamed operator, never reported
        found, names = union.codes(columns_.text(batch, key, locate), NONE)
        ids = totals.ids(names, [False] * len(names))
        left_out = totals.ids([""], [False])[0]
        group = np.where(waiting[opcode], left_out, ids[found])
    union.add(totals, group, start, end, amounts, in_time_order)


def _amounts(batch: Any, locate: columns_.Locate) -> union.Amounts:
    flops, no_flops = columns_.amounts(batch, "raw_flops", locate)
    read, no_read = columns_.amounts(batch, "hbm_read_bytes", locate)
    written, no_written = columns_.amounts(batch, "hbm_write_bytes", locate)
    return union.Amounts(flops, read + written, no_flops, no_read | no_written)


def _neff_hash(directory: Path) -> str | None:
    files = table_files(directory, "NeffHeader")
    if not files:
        return None
    rows = _read(files, "NeffHeader", ["hash"], []).to_pylist()
    value = rows[0].get("hash") if rows else None
    return str(value) if value else None


def _from_summaries(directory: Path, level: str) -> OpTable:
    if level == "opcode" and (files := table_files(directory, "OpcodeSummary")):
        return _opcode_summary(files, directory)
    if level == "hlo" and (files := table_files(directory, "HloInstruction")):
        return _hlo_intervals(files, directory)
    raise ParseError(str(directory), f"level '{level}'",
                     "an Instruction table (or OpcodeSummary for --level opcode, HloInstruction for --level hlo)",
                     "none of them")


def _rows(files: list[Path], table: str, names: list[str]) -> Iterator[tuple[dict[str, Any], Callable[[str], str],
                                                                              str]]:
    """Each row of a summary table with a function naming a column of it (``table T, row N, C``) and
    the file it is stored in."""
    rows = _read(files, table, names, []).to_pylist()
    pq = _pyarrow_parquet()
    locate = partial(_in_files, files, list(accumulate(pq.ParquetFile(f).metadata.num_rows for f in files)))
    for at, row in enumerate(rows):
        file, number = locate(at)
        yield row, partial("table {}, row {}, {}".format, table, number), str(file)


def _opcode_summary(files: list[Path], directory: Path) -> OpTable:
    names = ["engine", "opcode", "instruction_count", "instruction_time_ns", "active_time_ns"]
    ops: list[Op] = []
    counts: Counter[str] = Counter()
    seen: dict[str, str] = {}
    for row, where, path in _rows(files, "OpcodeSummary", names):
        count = checks.count(row.get("instruction_count"), path, where("instruction_count"))
        active = checks.nanoseconds(row.get("active_time_ns"), path, where("active_time_ns"))
        summed = row.get("instruction_time_ns")
        summed = None if summed is None else checks.nanoseconds(summed, path, where("instruction_time_ns"))
        engine = checks.name(row.get("engine"), path, where("engine"), "an engine", required=True)
        opcode = checks.name(row.get("opcode"), path, where("opcode"), "an opcode", required=True)
        if f"{engine} {opcode}" in seen:  # one merged active time per engine x opcode: two cannot be added
            raise ParseError(path, where("opcode"), "one row per engine x opcode",
                             f"{engine} {opcode} again (first at {seen[f'{engine} {opcode}']})")
        seen[f"{engine} {opcode}"] = where("opcode").split(", ")[1]
        ops.append(Op(f"{engine} {opcode}", count, float(active) * _NS, None if summed is None else float(summed) * _NS,
                      wait=opcode in WAIT_OPCODES))
        counts[engine] += count
    return OpTable("opcode", str(directory), tuple(ops), Graph(_neff_hash(directory), tuple(sorted(counts.items()))),
                   ("from OpcodeSummary: time is its merged active time",))


def _hlo_intervals(files: list[Path], directory: Path) -> OpTable:
    """Per HLO op the union of its rows' ``time_intervals`` (``"[[start, end], ...]"`` in ns)."""
    spans: dict[str, list[tuple[float, float]]] = {}
    moved: dict[str, float | None] = {}
    counts: Counter[str] = Counter()
    for row, where, path in _rows(files, "HloInstruction", ["hlo_name", "time_intervals", "hbm_read_bytes",
                                                            "hbm_write_bytes"]):
        name = checks.name(row.get("hlo_name"), path, where("hlo_name"), "an HLO op name", required=False)
        spans.setdefault(name, []).extend(_intervals(row.get("time_intervals"), path, where("time_intervals")))
        both = [checks.amount(row.get(c), path, where(c)) for c in ("hbm_read_bytes", "hbm_write_bytes")]
        known = moved.get(name, 0.0)
        moved[name] = None if known is None or None in both else known + sum(b or 0.0 for b in both)
        counts[name] += 1
    ops = tuple(Op(name, counts[name], union.union_length(found) * _NS, None, None, moved[name])
                for name, found in spans.items())
    return OpTable("hlo", str(directory), ops, Graph(_neff_hash(directory)),
                   ("from HloInstruction: time is the union of each op's time_intervals; count is its rows",))


def _intervals(text: Any, path: str, where: str) -> list[tuple[float, float]]:
    """``"[[start, end], ...]"`` (text or a list), each pair an interval ``checks.interval`` takes."""
    try:
        pairs = json.loads(text) if isinstance(text, str) else text
        return [checks.interval(a, b, path, where) for a, b in pairs]
    except (ValueError, TypeError, RecursionError):  # not JSON, not pairs (checks' own errors pass)
        raise ParseError(path, where, "a list of [start, end] pairs", f"{text!r:.60}") from None

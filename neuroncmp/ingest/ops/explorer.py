"""Operation tables from Neuron Explorer's Parquet tables, aggregated column-wise (pyarrow and
numpy), never row by row.

``Instruction`` (one row per instruction: ``engine``, ``opcode``, ``start_ts``/``end_ts`` in ns,
``hlo_name``, ``layer``, ``nki_source_location``, HBM bytes, ``raw_flops``; millions of rows for a
training step) gives every level (``union.py`` merges each op's intervals). Without it,
``OpcodeSummary`` gives the opcode level (its merged ``active_time_ns``) and ``HloInstruction``
the HLO level (the union of its ``time_intervals``). Needs pyarrow (the ``parquet`` extra).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from ...errors import ParseError
from ..formats.explorer_parquet import _pyarrow_parquet, table_files
from . import union
from .intervals import union_length
from .table import NONE, WAIT_OPCODES, Graph, Op, OpTable, nested_parent

_NS = 1e-9
_KEY = {"hlo": "hlo_name", "layer": "layer", "kernel": "nki_source_location"}
_OPTIONAL = ("hbm_read_bytes", "hbm_write_bytes", "raw_flops")
_BATCH = 1 << 20  # rows per batch read: bounds memory to about 100 MB of columns
_WAITS_APART = "semaphore waits (EVENT_SEMAPHORE) are left out: they span the wait, not work"


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
        raise ParseError(str(files[0]), f"table {table}", "a readable Parquet table",
                         f"{type(exc).__name__}: "
                         f"{str(exc).strip().splitlines()[0][:120] if str(exc).strip() else ''}") from None


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
    notes: tuple[str, ...] = () if level == "opcode" else (_WAITS_APART,)
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


def _batches(files: list[Path], columns: list[str], text: list[str], in_time_order: bool) -> Iterator[Any]:
    """Row groups one by one (in time order), else the whole table as one batch."""
    pq = _pyarrow_parquet()
    if not in_time_order:
        yield pq.read_table([str(f) for f in files] if len(files) > 1 else files[0], columns=columns,
                            read_dictionary=text)
        return
    for file in files:
        yield from pq.ParquetFile(file, read_dictionary=text).iter_batches(batch_size=_BATCH, columns=columns)


def _stream(files: list[Path], level: str, key: str | None, columns: list[str], in_time_order: bool) -> union.Totals:
    totals = union.Totals(NONE)
    text = ["engine", "opcode"] + ([key] if key else [])
    batches = _batches(files, columns, text, in_time_order)
    while True:
        try:
            batch = next(batches, None)
        except Exception as exc:  # a damaged row group: one line naming the file
            raise _unreadable(files[0], "Instruction", exc) from None
        if batch is None:
            return totals
        _add_batch(totals, batch, level, key, in_time_order)


def _add_batch(totals: union.Totals, batch: Any, level: str, key: str | None, in_time_order: bool) -> None:
    engine, engines = union.codes(batch.column("engine"), NONE)
    opcode, opcodes = union.codes(batch.column("opcode"), NONE)
    for name, count in zip(engines, np.bincount(engine, minlength=len(engines)).tolist()):
        if count:
            totals.per_engine[name] = totals.per_engine.get(name, 0) + count
    waiting = np.array([name in WAIT_OPCODES for name in opcodes])
    if level == "opcode":
        names = [f"{e} {o}" for e in engines for o in opcodes]
        ids = totals.ids(names, [o in WAIT_OPCODES for _ in engines for o in opcodes])
        group = ids[engine * len(opcodes) + opcode]
    else:  # waits are left out: they go to the unnamed operator, never reported
        found, names = union.codes(batch.column(key), NONE)
        ids = totals.ids(names, [False] * len(names))
        left_out = totals.ids([""], [False])[0]
        group = np.where(waiting[opcode], left_out, ids[found])
    moved = union.numbers(batch, "hbm_read_bytes") + union.numbers(batch, "hbm_write_bytes")
    union.add(totals, group, np.asarray(union.numbers(batch, "start_ts"), dtype=np.int64),
              np.asarray(union.numbers(batch, "end_ts"), dtype=np.int64), union.numbers(batch, "raw_flops"),
              moved, in_time_order)


def _neff_hash(directory: Path) -> str | None:
    files = table_files(directory, "NeffHeader")
    if not files:
        return None
    rows = _read(files, "NeffHeader", ["hash"], []).to_pylist()
    value = rows[0].get("hash") if rows else None
    return str(value) if value else None


def _from_summaries(directory: Path, level: str) -> OpTable:
    if level == "opcode" and (files := table_files(directory, "OpcodeSummary")):
        names = ["engine", "opcode", "instruction_count", "instruction_time_ns", "active_time_ns"]
        rows = _read(files, "OpcodeSummary", names, []).to_pylist()
        ops = [Op(f"{r.get('engine')} {r.get('opcode')}", int(r.get("instruction_count") or 0),
                  float(r.get("active_time_ns") or 0) * _NS, float(r.get("instruction_time_ns") or 0) * _NS,
                  wait=str(r.get("opcode")) in WAIT_OPCODES) for r in rows]
        counts: dict[str, int] = {}
        for row in rows:
            engine = str(row.get("engine"))
            counts[engine] = counts.get(engine, 0) + int(row.get("instruction_count") or 0)
        return OpTable(level, str(directory), tuple(ops), Graph(_neff_hash(directory), tuple(sorted(counts.items()))),
                       ("from OpcodeSummary: time is its merged active time",))
    if level == "hlo" and (files := table_files(directory, "HloInstruction")):
        return _hlo_intervals(files, directory)
    raise ParseError(str(directory), f"level '{level}'",
                     "an Instruction table (or OpcodeSummary for --level opcode, HloInstruction for --level hlo)",
                     "none of them")


def _hlo_intervals(files: list[Path], directory: Path) -> OpTable:
    """Per HLO op the union of its rows' ``time_intervals`` (``"[[start, end], ...]"`` in ns)."""
    rows = _read(files, "HloInstruction", ["hlo_name", "time_intervals", "hbm_read_bytes", "hbm_write_bytes"],
                 []).to_pylist()
    spans: dict[str, list[tuple[float, float]]] = {}
    moved: dict[str, float] = {}
    counts: dict[str, int] = {}
    for at, row in enumerate(rows):
        name = str(row.get("hlo_name") or NONE)
        spans.setdefault(name, []).extend(_intervals(row.get("time_intervals"), str(files[0]), at))
        moved[name] = moved.get(name, 0.0) + float((row.get("hbm_read_bytes") or 0) + (row.get("hbm_write_bytes") or 0))
        counts[name] = counts.get(name, 0) + 1
    ops = tuple(Op(name, counts[name], union_length(found) * _NS, None, None, moved[name])
                for name, found in spans.items())
    return OpTable("hlo", str(directory), ops, Graph(_neff_hash(directory)),
                   ("from HloInstruction: time is the union of each op's time_intervals; count is its rows",))


def _intervals(text: Any, path: str, at: int) -> list[tuple[float, float]]:
    try:
        pairs = json.loads(text) if isinstance(text, str) else text
        return [(float(a), float(b)) for a, b in pairs]
    except (ValueError, TypeError):
        raise ParseError(path, f"table HloInstruction, row {at}, time_intervals",
                         "a list of [start, end] pairs", f"{text!r:.60}") from None

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
from pathlib import Path
from typing import Any

from ...errors import ParseError
from ..formats.explorer_parquet import _pyarrow_parquet, table_files
from .intervals import union_length
from .table import NONE, WAIT_OPCODES, Graph, Op, OpTable, nested_parent
from .union import Columns, aggregate

_NS = 1e-9
_KEY = {"hlo": "hlo_name", "layer": "layer", "kernel": "nki_source_location"}
_OPTIONAL = ("hbm_read_bytes", "hbm_write_bytes", "raw_flops")
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
                         f"{type(exc).__name__}: {str(exc).strip().splitlines()[0][:120] if str(exc).strip() else ''}") from None


def _from_instructions(files: list[Path], directory: Path, level: str) -> OpTable:
    need = ["engine", "opcode", "start_ts", "end_ts"] + ([_KEY[level]] if level in _KEY else [])
    table = _read(files, "Instruction", need + list(_OPTIONAL), ["engine", "opcode"] + need[4:])
    if missing := [c for c in need if c not in table.column_names]:
        raise ParseError(str(files[0]), "table Instruction", f"columns {', '.join(need)}", f"no {', '.join(missing)}")
    columns = Columns.of(table, level, _KEY.get(level), WAIT_OPCODES, NONE)
    found = aggregate(columns)
    has_flops = "raw_flops" in table.column_names
    ops = [Op(name, count, covered * _NS, summed * _NS, flops if has_flops else None, moved, wait)
           for name, count, covered, summed, flops, moved, wait in found]
    notes: tuple[str, ...] = () if level == "opcode" else (_WAITS_APART,)
    if level == "layer":
        keys = {op.key for op in ops}
        ops = [op._replace(parent=nested_parent(op.key, keys)) for op in ops]
    return OpTable(level, str(directory), tuple(ops), Graph(_neff_hash(directory), columns.per_engine()), notes)


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
            counts[str(row.get("engine"))] = counts.get(str(row.get("engine")), 0) + int(row.get("instruction_count") or 0)
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

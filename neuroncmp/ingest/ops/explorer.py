"""Operation tables from Neuron Explorer's Parquet tables, aggregated by DuckDB, never row by row.

``Instruction`` (one row per instruction: ``engine``, ``opcode``, ``start_ts``/``end_ts`` in ns,
``hlo_name``, ``layer``, ``nki_source_location``, HBM bytes, ``raw_flops``; millions of rows for a
training step) gives every level; a level's time is the union of its instructions' intervals,
computed in SQL (gaps and islands: an interval opens a new island when it starts after every
earlier one ended). Without it, ``OpcodeSummary`` gives the opcode level (its merged
``active_time_ns``) and ``HloInstruction`` the HLO level (the union of its ``time_intervals``).
Needs DuckDB (the ``store`` extra).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ...errors import MissingDependencyError, ParseError
from ..formats.explorer_parquet import table_files
from .intervals import union_length
from .table import NONE, WAIT_OPCODES, Graph, Op, OpTable, nested_parent

_NS = 1e-9
_KEYS = {"opcode": "engine || ' ' || opcode", "hlo": "coalesce(nullif(hlo_name, ''), '(none)')",
         "layer": "coalesce(nullif(layer, ''), '(none)')",
         "kernel": "coalesce(nullif(nki_source_location, ''), '(none)')"}
_WAITS = ", ".join(f"'{name}'" for name in sorted(WAIT_OPCODES))
# One pass to mark islands, one to close them, one to add them up: a group's covered time.
_UNION = """
WITH marked AS (
  SELECT g, start_ts, end_ts, count, bytes, flops, wait,
         max(end_ts) OVER (PARTITION BY g ORDER BY start_ts, end_ts
                           ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS reach
  FROM rows),
islands AS (
  SELECT *, sum(CASE WHEN reach IS NULL OR start_ts > reach THEN 1 ELSE 0 END)
              OVER (PARTITION BY g ORDER BY start_ts, end_ts ROWS UNBOUNDED PRECEDING) AS island
  FROM marked),
closed AS (
  SELECT g, island, min(start_ts) AS lo, max(end_ts) AS hi, sum(end_ts - start_ts) AS summed,
         sum(count) AS count, sum(bytes) AS bytes, sum(flops) AS flops, bool_or(wait) AS wait
  FROM islands GROUP BY g, island)
SELECT g, sum(count)::BIGINT, sum(hi - lo)::DOUBLE, sum(summed)::DOUBLE, sum(flops)::DOUBLE, sum(bytes)::DOUBLE,
       bool_or(wait)
FROM closed GROUP BY g
"""


def _duckdb() -> Any:
    try:
        import duckdb
    except ImportError:
        raise MissingDependencyError("reading Explorer's operation tables needs DuckDB: "
                                     "pip install 'neuroncmp[store]'") from None
    return duckdb


def has_tables(directory: Path) -> bool:
    return any(table_files(directory, name) for name in ("Instruction", "OpcodeSummary", "HloInstruction"))


def read(directory: Path, level: str) -> OpTable:
    duckdb = _duckdb()
    with duckdb.connect() as db:
        db.execute("SET preserve_insertion_order = false")  # lets the aggregation stream
        if table_files(directory, "Instruction"):
            return _from_instructions(db, directory, level)
        return _from_summaries(db, directory, level)


def _scan(files: list[Path]) -> str:
    return "read_parquet([" + ", ".join("'" + str(f).replace("'", "''") + "'" for f in files) + "])"


def _columns(db: Any, scan: str) -> set[str]:
    return {row[0] for row in db.execute(f"DESCRIBE SELECT * FROM {scan}").fetchall()}


def _from_instructions(db: Any, directory: Path, level: str) -> OpTable:
    files = table_files(directory, "Instruction")
    scan = _scan(files)
    try:
        columns = _columns(db, scan)
        need = {"engine", "opcode", "start_ts", "end_ts"} | ({"layer"} if level == "layer" else set())
        if level in ("hlo", "kernel"):
            need.add("hlo_name" if level == "hlo" else "nki_source_location")
        if missing := sorted(need - columns):
            raise ParseError(str(files[0]), "table Instruction", f"columns {', '.join(sorted(need))}",
                             f"no {', '.join(missing)}")
        bytes_ = " + ".join(f"coalesce({c}, 0)" for c in ("hbm_read_bytes", "hbm_write_bytes") if c in columns) or "0"
        flops = "raw_flops" if "raw_flops" in columns else "NULL::BIGINT"
        wait = f"opcode IN ({_WAITS})"
        where = "" if level == "opcode" else f"WHERE NOT ({wait})"
        db.execute(f"CREATE TEMP VIEW rows AS SELECT {_KEYS[level]} AS g, start_ts, end_ts, 1 AS count, "
                   f"{bytes_} AS bytes, {flops} AS flops, {wait} AS wait FROM {scan} {where}")
        found = db.execute(_UNION).fetchall()
        counts = db.execute(f"SELECT engine, count(*) FROM {scan} GROUP BY engine ORDER BY engine").fetchall()
        neff = _neff_hash(db, directory)
    except ParseError:
        raise
    except Exception as exc:  # duckdb's own errors (a corrupt file, a wrong type): said in one line
        raise ParseError(str(files[0]), "table Instruction", "a readable Parquet table",
                         f"{type(exc).__name__}: {str(exc).strip().splitlines()[0][:120]}") from None
    ops = [Op(str(g), int(n), (hi or 0.0) * _NS, (summed or 0.0) * _NS, flops_ if columns & {"raw_flops"} else None,
              bytes_sum, bool(waits)) for g, n, hi, summed, flops_, bytes_sum, waits in found]
    notes = [] if level == "opcode" else [_WAITS_APART]
    if level == "layer":
        keys = {op.key for op in ops}
        ops = [op._replace(parent=nested_parent(op.key, keys)) for op in ops]
    return OpTable(level, str(directory), tuple(ops), Graph(neff, tuple((str(e), int(n)) for e, n in counts)),
                   tuple(notes))


def _neff_hash(db: Any, directory: Path) -> str | None:
    files = table_files(directory, "NeffHeader")
    if not files:
        return None
    scan = _scan(files)
    if "hash" not in _columns(db, scan):
        return None
    row = db.execute(f"SELECT hash FROM {scan} LIMIT 1").fetchone()
    return str(row[0]) if row and row[0] else None


def _from_summaries(db: Any, directory: Path, level: str) -> OpTable:
    if level == "opcode" and (files := table_files(directory, "OpcodeSummary")):
        rows = db.execute(f"SELECT engine, opcode, instruction_count, instruction_time_ns, active_time_ns "
                          f"FROM {_scan(files)}").fetchall()
        ops = [Op(f"{e} {o}", int(n or 0), float(active or 0) * _NS, float(inst or 0) * _NS,
                  wait=str(o) in WAIT_OPCODES) for e, o, n, inst, active in rows]
        counts: dict[str, int] = {}
        for op, row in zip(ops, rows):
            counts[str(row[0])] = counts.get(str(row[0]), 0) + op.count
        return OpTable(level, str(directory), tuple(ops), Graph(_neff_hash(db, directory), tuple(sorted(counts.items()))),
                       ("from OpcodeSummary: time is its merged active time",))
    if level == "hlo" and (files := table_files(directory, "HloInstruction")):
        return _hlo_intervals(db, files, directory)
    raise ParseError(str(directory), f"level '{level}'",
                     "an Instruction table (or OpcodeSummary for --level opcode, HloInstruction for --level hlo)",
                     "none of them")


def _hlo_intervals(db: Any, files: list[Path], directory: Path) -> OpTable:
    """Per HLO op the union of its rows' ``time_intervals`` (``"[[start, end], ...]"`` in ns)."""
    rows = db.execute(f"SELECT coalesce(nullif(hlo_name, ''), '{NONE}'), time_intervals, "
                      f"coalesce(hbm_read_bytes, 0) + coalesce(hbm_write_bytes, 0) FROM {_scan(files)}").fetchall()
    spans: dict[str, list[tuple[float, float]]] = {}
    moved: dict[str, float] = {}
    counts: dict[str, int] = {}
    for at, (name, text, bytes_) in enumerate(rows):
        spans.setdefault(name, []).extend(_intervals(text, str(files[0]), at))
        moved[name] = moved.get(name, 0.0) + float(bytes_)
        counts[name] = counts.get(name, 0) + 1
    ops = tuple(Op(name, counts[name], union_length(found) * _NS, None, None, moved[name])
                for name, found in spans.items())
    return OpTable("hlo", str(directory), ops, Graph(_neff_hash(db, directory)),
                   ("from HloInstruction: time is the union of each op's time_intervals; count is its rows",))


def _intervals(text: Any, path: str, at: int) -> list[tuple[float, float]]:
    try:
        pairs = json.loads(text) if isinstance(text, str) else text
        return [(float(a), float(b)) for a, b in pairs]
    except (ValueError, TypeError):
        raise ParseError(path, f"table HloInstruction, row {at}, time_intervals",
                         "a list of [start, end] pairs", f"{text!r:.60}") from None


_WAITS_APART = "semaphore waits (EVENT_SEMAPHORE) are left out: they span the wait, not work"

"""Operation tables from the full ``neuron-profile view --output-format json`` document (its
``instruction``, ``layer_summary`` and ``neff_header`` sections: docs/commands/ops.md, "Inputs"). Plain
Python: the view JSON holds one kernel's instructions (hundreds to thousands), not a training step's
millions (those come as Explorer Parquet, ``explorer.py``).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from ...errors import ParseError
from .. import shapes
from ..decode import read_text, sections
from . import checks
from .table import NONE, WAIT_OPCODES, WAITS_APART, Graph, Op, OpTable, nested_parent
from .union import union_length

_SECTIONS = frozenset({"instruction", "layer_summary", "neff_header"})
_NS = 1e-9
Row = dict[str, Any]


def read(path: Path, level: str) -> OpTable:
    kept, _, _ = sections(read_text(path), str(path), _SECTIONS)
    rows = [shapes.obj(row, str(path), f"instruction[{at}]", "an instruction object")
            for at, row in enumerate(shapes.items(kept.get("instruction"), str(path), "section 'instruction'"))]
    if not rows:
        raise ParseError(str(path), "section 'instruction'", "the per-instruction rows `neuroncmp ops` needs",
                         "none (a view JSON written without them, or another document)")
    _check(rows, str(path), level)
    graph = Graph(_neff_hash(kept.get("neff_header")),
                  tuple(sorted(Counter(str(row.get("subgroup", "")) for row in rows).items())))
    ops, notes = _LEVELS[level](rows, kept, str(path))
    return OpTable(level, str(path), tuple(ops), graph, tuple(notes))


# The name fields every row needs (its engine and opcode), and those the level adds (null or empty: none).
_NAMES = {"subgroup": "an engine", "opcode": "an opcode"}
_LEVEL_NAMES = {"hlo": {"hlo_name": "an HLO op name"},
                "layer": {"fully_qualified_subgraph": "a subgraph name", "layer": "a layer name"}}


def _check(rows: list[Row], path: str, level: str) -> None:
    """Every row's numbers as ``checks`` says (its time, its interval inside 2^62 ns, its bytes) and
    the names the level groups it by (text)."""
    optional = _LEVEL_NAMES.get(level, {})
    for at, row in enumerate(rows):
        for field, what in (*_NAMES.items(), *optional.items()):
            checks.name(row.get(field), path, f"instruction[{at}], {field}", what, field in _NAMES)
        start = checks.nanoseconds(row.get("timestamp"), path, f"instruction[{at}], timestamp")
        checks.interval(start, start + checks.nanoseconds(row.get("duration"), path, f"instruction[{at}], duration"),
                        path, f"instruction[{at}], timestamp + duration")
        for field in ("hbm_read_bytes", "hbm_write_bytes"):
            checks.amount(row.get(field), path, f"instruction[{at}], {field}")


def _neff_hash(header: Any) -> str | None:
    rows = header if isinstance(header, list) else []
    value = rows[0].get("hash") if rows and isinstance(rows[0], dict) else None
    return str(value) if value else None


def _span(row: Row) -> tuple[float, float]:
    return float(row["timestamp"]), float(row["timestamp"] + row["duration"])


def _bytes(row: Row) -> float:
    return float((row.get("hbm_read_bytes") or 0) + (row.get("hbm_write_bytes") or 0))


def _grouped(rows: Iterable[Row], key: Callable[[Row], Iterable[str]], wait: bool = False,
             flops: dict[str, float] | None = None) -> list[Op]:
    groups: dict[str, list[Row]] = defaultdict(list)
    for row in rows:
        for name in key(row):
            groups[name].append(row)
    return [Op(name, len(members), union_length(map(_span, members)) * _NS,
               sum(r["duration"] for r in members) * _NS, (flops or {}).get(name),
               sum(map(_bytes, members)), wait)
            for name, members in groups.items()]


def _is_wait(row: Row) -> bool:
    return str(row.get("opcode")) in WAIT_OPCODES


def _work(rows: list[Row]) -> list[Row]:
    return [row for row in rows if not _is_wait(row)]


def _opcodes(rows: list[Row], kept: dict[str, Any], path: str) -> tuple[list[Op], list[str]]:
    def name(row: Row) -> list[str]:
        return [f"{row.get('subgroup', '')} {row.get('opcode', '')}"]
    return (_grouped(_work(rows), name) + _grouped([r for r in rows if _is_wait(r)], name, wait=True),
            [])


def _hlo(rows: list[Row], kept: dict[str, Any], path: str) -> tuple[list[Op], list[str]]:
    return _grouped(_work(rows), lambda row: [str(row.get("hlo_name") or NONE)]), [WAITS_APART]


def _layer_path(row: Row) -> str:
    graph, layer = str(row.get("fully_qualified_subgraph") or ""), str(row.get("layer") or "")
    return f"{graph}/{layer}" if graph and layer else graph or layer or NONE


def _with_ancestors(path: str) -> list[str]:
    parts = path.split("/")
    return ["/".join(parts[:end]) for end in range(2 if path.startswith("/") else 1, len(parts) + 1)]


def _layer_flops(kept: dict[str, Any], path: str) -> dict[str, float]:
    """``layer_summary``'s FLOP count per layer name (a layer without one has none)."""
    out = {}
    for at, row in enumerate(shapes.items(kept.get("layer_summary"), path, "section 'layer_summary'")):
        row = shapes.obj(row, path, f"layer_summary[{at}]")
        flops = checks.amount(row.get("tensor_engine_flop_count"), path,
                              f"layer_summary[{at}], tensor_engine_flop_count")
        if flops is not None:
            out[str(row.get("name"))] = flops
    return out


def _layers(rows: list[Row], kept: dict[str, Any], path: str) -> tuple[list[Op], list[str]]:
    flops = _layer_flops(kept, path)
    ops = _grouped(_work(rows), lambda row: _with_ancestors(_layer_path(row)), flops=flops)
    keys = {op.key for op in ops}
    return [op._replace(parent=nested_parent(op.key, keys)) for op in ops], [WAITS_APART, _NESTED]


def _kernel(rows: list[Row], kept: dict[str, Any], path: str) -> tuple[list[Op], list[str]]:
    return [], [_NO_SOURCE_LINES]


_NO_SOURCE_LINES = ("the view JSON ties no instruction to an NKI source line (Explorer's Instruction table "
                    "does, in nki_source_location)")
_NESTED = "layers nest: a layer's time includes its sub-layers' and is never added to them"
_LEVELS = {"opcode": _opcodes, "hlo": _hlo, "layer": _layers, "kernel": _kernel}

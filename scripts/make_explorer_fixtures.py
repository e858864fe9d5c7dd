"""Neuron Explorer Parquet output, built from AWS's documented schema (no public capture exists).

    python scripts/make_explorer_fixtures.py OUT_DIR

writes three profile folders into OUT_DIR (the tests call ``write`` into a temporary folder):

- ``b32@7.4.0/``: schema 7.4.0 (Neuron SDK 2.31) as AWS's profile-schema-reference.rst documents it:
  ``Summary`` with every documented field the bundled b32 profile has (its real values: seconds,
  bytes, FLOP counts, 0-1 fractions), ``Metadata`` (one row, one column per field, the clock in GHz),
  ``ThrottleSummary`` (per ``nc_idx`` and ``throttle_type``), ``HbmUsageSummaryByType`` (b32's memory
  table; the three labels seen in real Explorer output in its Title Case, the rest as the seed has
  them), ``Warning`` (the doc's own example message) and
  ``SchemaFields`` (one row per table and field with its documented unit).
- ``split@7.4.0/``: the same Summary for two NeuronCores, written as ``Summary_0.parquet`` and
  ``Summary_1.parquet`` (one row each), which Explorer does for large tables.
- ``b32@12.0.1/``: a *hypothetical* schema 12.0.1 profile (SDK 2.33 documents 12.0.1, but its field
  lists are not mapped here): the 7.4.0 tables, with a ``SchemaFields`` table that declares one
  field in another unit (``total_time`` in ``milliseconds``, which neuroncmp must not misread as
  seconds) and one field 7.4.0 does not have (``kernel_launch_time``, seconds). Which fields 12.0.1
  really has is not known to us: this folder tests the reading rule, not AWS's schema.

- ``ops-base@7.4.0/`` and ``ops-slow@7.4.0/``: operation tables with known truth, for ``neuroncmp
  ops`` (``OPS_BASE``, ``OPS_SLOW``): ``Instruction`` (schema 7.4.0's fields), ``OpcodeSummary``,
  ``HloInstruction`` (``time_intervals``), ``FrameworkNode``, ``FrameworkInstruction``, ``CcOp``,
  ``TensorInfo`` and ``NeffHeader``. Each HLO op's instructions run back to back on one engine,
  each starting after 80 % of the one before (pipelined: they overlap, so the op's time is
  ``0.8 * duration * (count - 1) + duration``, not ``count * duration``); the ops run one after
  another after a 10 us idle start, and a sync-engine ``EVENT_SEMAPHORE`` waits through the whole
  step. The slow side makes ``dot.1`` 30 % slower, drops ``reduce.4`` and adds ``gelu.5``, under
  another NEFF hash. Made up to test the reading and the arithmetic, not taken from a capture.

``instruction_table(rows, path)`` writes a generated ``Instruction`` table of any size
(``scripts/bench_ops.py`` times ``ops`` on 10 million rows).

Needs pyarrow. The values are copied from ``profiles/trn1-2xlarge-bs-sweep/b32.json`` and
``b32.memory.md``; nothing is made up except what is said above.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
RUN = ROOT / "profiles" / "trn1-2xlarge-bs-sweep"
sys.path.insert(0, str(ROOT))

from neuroncmp.ingest.formats.explorer_schema import SCHEMA_7_4_0  # noqa: E402  (the checkout, through sys.path)

WARNING = "Current NEFF is missing compiler metrics. Please re-compile using latest version of the compiler."
_BINARY = {"B": 1, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30}
# Explorer's Title Case for the seed's memory labels (formats.md 4, seen in real Explorer output)
_TITLE = {"Syncill": "DRAM Spill", "profiler buffers": "Profiler Buffers", "xt cc": "XT CC (unused)"}


def b32_summary() -> dict[str, Any]:
    block = next(iter(json.loads((RUN / "b32.json").read_text()).values()))
    return {k: v for k, v in block.items() if k in SCHEMA_7_4_0["Summary"]}


def memory_rows() -> list[dict[str, Any]]:
    rows = []
    for line in (RUN / "b32.memory.md").read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        match = re.fullmatch(r"([\d.]+) (B|KiB|MiB|GiB)", cells[-1]) if len(cells) == 4 else None
        if match and cells[2] != "Total":
            label = _TITLE.get(cells[2], cells[2])  # other labels as the seed has them
            rows.append({"neuron_device_idx": int(cells[0]), "neuroncore_idx": int(cells[1]),
                         "usage_type": label, "usage_bytes": round(float(match[1]) * _BINARY[match[2]])})
    return rows


def metadata(version: str) -> dict[str, Any]:
    block = next(iter(json.loads((RUN / "b32.json").read_text()).values()))
    return {"profile_schema_version": version, "explorer_version": "2.31.24.0", "instance_type": "trn1.2xlarge",
            "runtime_version": block.get("runtime_version"), "compiler_version": block.get("compiler_version"),
            "num_physical_cores": 1, "vnc_enabled": False, "neuroncore_clock_freq": 1.4,
            "hbm_ddr_bandwidth": 410e9, "ntff_version": 2}


def throttle_rows() -> list[dict[str, Any]]:
    block = next(iter(json.loads((RUN / "b32.json").read_text()).values()))
    rows = [{"nc_idx": 0, "throttle_type": "all", "throttle_active_time_ns": block["throttle_active_nc0_time_ns"],
             "throttle_active_time_percent": None,
             "max_achievable_util_with_throttling_percent": block["throttle_avg_util_limit_nc0_percent"]}]
    for kind in ("activity_0", "activity_1"):
        rows.append({"nc_idx": 0, "throttle_type": kind, "throttle_active_time_ns": None,
                     "throttle_active_time_percent": block[f"throttle_{kind}_active_time_nc0_percent"],
                     "max_achievable_util_with_throttling_percent":
                         block[f"throttle_{kind}_avg_util_limit_nc0_percent"]})
    return rows


def schema_fields(overrides: dict[tuple[str, str], str] | None = None) -> list[dict[str, Any]]:
    rows = [{"table_name": table, "field_name": field, "field_unit": unit or None, "field_type": "",
             "field_required": False} for table, fields in SCHEMA_7_4_0.items() for field, unit in fields.items()]
    for (table, field), unit in (overrides or {}).items():
        rows = [r for r in rows if (r["table_name"], r["field_name"]) != (table, field)]
        rows.append({"table_name": table, "field_name": field, "field_unit": unit, "field_type": "number",
                     "field_required": False})
    return rows


def _table(directory: Path, name: str, rows: list[dict[str, Any]]) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    columns = list(dict.fromkeys(key for row in rows for key in row))  # from_pylist reads the first row's keys only
    pq.write_table(pa.Table.from_pylist([{c: row.get(c) for c in columns} for row in rows]),
                   directory / f"{name}.parquet")


def profile_folder(directory: Path, version: str, summary: list[dict[str, Any]], fields: list[dict[str, Any]],
             split: bool = False) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    if split:
        for number, row in enumerate(summary):
            _table(directory, f"Summary_{number}", [row])
    else:
        _table(directory, "Summary", summary)
    _table(directory, "Metadata", [metadata(version)])
    _table(directory, "ThrottleSummary", throttle_rows())
    _table(directory, "HbmUsageSummaryByType", memory_rows())
    _table(directory, "Warning", [{"message": WARNING, "category": "Missing Data"}])
    _table(directory, "SchemaFields", fields)
    return directory


# HLO op -> (engine, opcode, instructions, ns each, layer, NKI source line)
OPS_BASE = {"dot.1": ("tensor", "MATMUL", 40, 1000, "decoder[0]/attn", "attn.py:12"),
            "add.2": ("vector", "TENSOR_TENSOR", 20, 500, "decoder[0]/mlp", "mlp.py:7"),
            "softmax.3": ("scalar", "ACTIVATE", 20, 800, "decoder[0]/attn", "attn.py:20"),
            "reduce.4": ("vector", "TENSOR_REDUCE", 10, 300, "decoder[0]/norm", "norm.py:3")}
OPS_SLOW = {**{k: v for k, v in OPS_BASE.items() if k != "reduce.4"},
            "dot.1": ("tensor", "MATMUL", 40, 1300, "decoder[0]/attn", "attn.py:12"),
            "gelu.5": ("scalar", "ACTIVATE", 10, 400, "decoder[0]/mlp", "mlp.py:9")}
IDLE_START_NS = 10_000
PIPELINE = 0.8  # each instruction starts after this share of the one before


def op_instructions(ops: dict[str, tuple[str, str, int, int, str, str]]) -> tuple[list[dict[str, Any]], int]:
    """The ``Instruction`` rows of ``ops`` laid out as the module docstring says, and the step's end."""
    rows, at = [], IDLE_START_NS
    for hlo, (engine, opcode, count, ns, layer, line) in ops.items():
        for i in range(count):
            start = at + round(PIPELINE * ns * i)
            rows.append({"start_ts": start, "end_ts": start + ns, "duration_ns": ns, "engine": engine,
                         "opcode": opcode, "hlo_name": hlo, "layer": layer, "nki_source_location": line,
                         "pcore_idx": 0, "hbm_read_bytes": 4096, "hbm_write_bytes": 1024,
                         "raw_flops": 2 * 128 * 128 * 512 if opcode == "MATMUL" else 0, "evt_wait_time_ns": 0})
        at += round(PIPELINE * ns * (count - 1)) + ns
    rows.append({"start_ts": 0, "end_ts": at, "duration_ns": at, "engine": "sync", "opcode": "EVENT_SEMAPHORE",
                 "hlo_name": "", "layer": "", "nki_source_location": "", "pcore_idx": 0, "hbm_read_bytes": 0,
                 "hbm_write_bytes": 0, "raw_flops": 0, "evt_wait_time_ns": at})
    return rows, at


def _op_tables(directory: Path, ops: dict[str, tuple[str, str, int, int, str, str]], neff_hash: str) -> None:
    rows, _ = op_instructions(ops)
    _table(directory, "Instruction", rows)
    by_opcode: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for row in rows:
        by_opcode.setdefault((row["engine"], row["opcode"]), []).append(row)
    _table(directory, "OpcodeSummary", [
        {"engine": e, "opcode": o, "instruction_count": len(rs),
         "instruction_time_ns": sum(r["duration_ns"] for r in rs),
         "active_time_ns": max(r["end_ts"] for r in rs) - min(r["start_ts"] for r in rs), "active_time_percent": None}
        for (e, o), rs in by_opcode.items()])  # one op per opcode, back to back: its span is its union
    hlo = []
    for number, name in enumerate(ops, 1):
        mine = [r for r in rows if r["hlo_name"] == name]
        lo, hi = min(r["start_ts"] for r in mine), max(r["end_ts"] for r in mine)
        hlo.append({"id": number, "raw_bir_id": number, "raw_penguin_id": number, "raw_hlo_id": number,
                    "raw_framework_id": number, "hlo_name": name, "start_ts": lo, "end_ts": hi,
                    "time_intervals": json.dumps([[lo, hi]]), "element_count_per_interval": [len(mine)],
                    "transpose_element_count_per_interval": [0],
                    "hbm_transfer_size_per_interval": [5120 * len(mine)],
                    "hbm_read_bytes": 4096 * len(mine), "hbm_write_bytes": 1024 * len(mine)})
    _table(directory, "HloInstruction", hlo)
    _table(directory, "FrameworkInstruction", [dict(h, framework_name=ops[h["hlo_name"]][4]) for h in hlo])
    layers = sorted({v[4] for v in ops.values()})
    _table(directory, "FrameworkNode", [{"node_name": layer.split("/")[-1], "parent_name": "decoder[0]",
                                         "children_names": "[]", "children_ids": "[]",
                                         "time_intervals": json.dumps([[h["start_ts"], h["end_ts"]] for h in hlo
                                                                       if ops[h["hlo_name"]][4] == layer]),
                                         "start_ts": 0, "end_ts": 0, "mfu": None, "hfu": None}
                                        for layer in layers])
    _table(directory, "CcOp", [{"start_ts": 0, "end_ts": 0, "duration_ns": 0, "operation": "all_reduce",
                                "algorithm": "ring", "num_elements": 0, "dtype": "bf16", "op_id": 0}])
    _table(directory, "TensorInfo", [{"variable_name": "input0", "type": "input", "format": "bf16",
                                      "shape": "[128,512]", "size": 131072, "node": 0, "pcore_idx": 0,
                                      "load_to_sbuf_repeat_factor": 1.0}])
    _table(directory, "NeffHeader", [{"network_name": "graph.neff", "uuid": neff_hash[::-1], "hash": neff_hash}])


def _union_ns(rows: list[dict[str, Any]]) -> int:
    """Nanoseconds covered by the rows' ``[start_ts, end_ts)`` intervals, overlaps counted once."""
    covered, reached = 0, None
    for row in sorted(rows, key=lambda r: r["start_ts"]):
        start = row["start_ts"] if reached is None else max(row["start_ts"], reached)
        covered += max(row["end_ts"] - start, 0)
        reached = row["end_ts"] if reached is None else max(reached, row["end_ts"])
    return covered


def ops_summary(ops: dict[str, tuple[str, str, int, int, str, str]]) -> dict[str, Any]:
    """The ``Summary`` row of an op-table folder: b32's, on the generated step's time. Every time and
    cycle count is b32's scaled to the step (so each ``X_active_time_percent`` stays the share of its
    time and the cycles stay the clock's), and so is every count of work moved or done per step, FLOPs
    and traffic bytes (so the rates stay b32's: its 2.55 TFLOP on a 65.72 us step was 39 PFLOP/s, more
    than any NeuronCore); each engine's times and counts are those of the generated instructions
    (active: the union of its intervals; an engine with none: 0)."""
    rows, end = op_instructions(ops)
    summary = b32_summary()
    scale = end * 1e-9 / summary["total_time"]
    timed = {f for f, unit in SCHEMA_7_4_0["Summary"].items() if unit in ("seconds", "cycles", "flops")
             or (unit == "bytes" and not f.endswith(("_size_bytes", "_average_bytes")))}
    summary.update({f: v * scale for f, v in summary.items() if f in timed and isinstance(v, (int, float))})
    summary["neuroncore_cycle_count"] = round(end * 1.4)  # b32's 1.4 GHz clock, ns x cycles a ns
    summary["dma_active_cycles"] = round(summary["dma_active_cycles"])
    for engine in ("tensor", "vector", "scalar", "sync", "gpsimd"):
        mine = [r for r in rows if r["engine"] == engine]
        active = _union_ns(mine) * 1e-9
        summary.update({f"{engine}_engine_active_time": active,
                        f"{engine}_engine_active_time_percent": active / (end * 1e-9),
                        f"{engine}_engine_instruction_time": sum(r["duration_ns"] for r in mine) * 1e-9,
                        f"{engine}_engine_instruction_count": len(mine)})
    return {k: v for k, v in summary.items() if k in SCHEMA_7_4_0["Summary"]}


def write_ops(out: Path) -> dict[str, Path]:
    """The two op-table folders described in the module docstring, under ``out``."""
    folders = {}
    for name, ops, neff in (("ops-base", OPS_BASE, "1f0e" * 8), ("ops-slow", OPS_SLOW, "7a7b" * 8)):
        directory = profile_folder(out / f"{name}@7.4.0", "7.4.0", [dict(ops_summary(ops), neuroncore_idx=0)],
                                   schema_fields())
        _op_tables(directory, ops, neff)
        folders[name] = directory
    return folders


def instruction_table(rows: int, path: Path, seed: int = 0, wide: bool = False) -> Path:
    """A generated ``Instruction`` table of ``rows`` rows (vectorised; 10 M rows in seconds):
    5 engines, 40 opcodes, 5,000 HLO ops, 500 layers, pipelined instructions of 50-2,000 ns.
    ``wide``: also every other field schema 7.4.0 documents for ``Instruction`` (ids, counters,
    operand text, ...: made-up values, mostly zero where a real trace's are), so the file is as wide
    as a real one and what reading only the needed columns saves shows."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    random = np.random.default_rng(seed)
    durations = random.integers(50, 2000, rows)
    starts = np.cumsum(random.integers(10, 400, rows))
    engines = np.array(["tensor", "vector", "scalar", "sync", "gpsimd"])
    opcodes = np.array([f"OP_{i}" for i in range(39)] + ["EVENT_SEMAPHORE"])
    table = pa.table({
        "start_ts": starts, "end_ts": starts + durations, "duration_ns": durations,
        "engine": pa.array(engines[random.integers(0, 5, rows)]).dictionary_encode(),
        "opcode": pa.array(opcodes[random.integers(0, 40, rows)]).dictionary_encode(),
        "hlo_name": pa.array(np.char.add("op.", random.integers(0, 5000, rows).astype(str))).dictionary_encode(),
        "layer": pa.array(np.char.add("layer/", random.integers(0, 500, rows).astype(str))).dictionary_encode(),
        "hbm_read_bytes": random.integers(0, 65536, rows), "hbm_write_bytes": random.integers(0, 65536, rows),
        "raw_flops": random.integers(0, 1 << 24, rows),
    })
    if wide:
        table = _widen(table, random, rows)
    pq.write_table(table, path, row_group_size=1 << 20)
    return path


_WIDE_IDS = ("pc", "compiler_pc", "raw_penguin_id", "raw_bir_id", "raw_hlo_id", "raw_framework_id", "crc_in", "crc_out",
             "tensor_elements", "adjusted_flops", "sbuf_read_bytes", "sbuf_write_bytes", "evt_wait_time_ns")
_WIDE_SPARSE = ("dma_trigger_start_ts", "dma_trigger_end_ts", "dma_wait_time_ns", "spill_save_bytes",
                "spill_reload_bytes", "psum_read_bytes", "psum_write_bytes", "psum_read_sbuf_write_bytes",
                "input_queue_bytes", "output_queue_bytes", "weight_queue_bytes", "tensor_elements_transpose",
                "flops_transpose", "adjusted_flops_transpose", "pcore_idx")
_WIDE_TEXT = {"timeline_track": 10, "operands": 5000, "compiler_opcode": 40, "compiler_operands": 5000,
              "penguin_id": 20000, "bir_id": 20000, "bir_instruction_name": 20000, "kernel_instruction_name": 200,
              "hlo_attrs": 500, "stack_frame_ids": 2000, "nki_source_location": 300,
              "bir_debug_info_source_location": 300, "instruction_chain": 1000, "performance_mode": 3,
              "tensor_instruction_type": 4, "scalar_activation_fn": 12}


def _widen(table: Any, random: Any, rows: int) -> Any:
    import numpy as np
    import pyarrow as pa

    table = table.append_column("id", pa.array(np.arange(rows, dtype=np.int64)))
    for name in _WIDE_IDS:
        table = table.append_column(name, pa.array(random.integers(0, 1 << 20, rows)))
    for name in _WIDE_SPARSE:  # zero but for one instruction in fifty
        values = random.integers(0, 1 << 16, rows) * (random.integers(0, 50, rows) == 0)
        table = table.append_column(name, pa.array(values))
    for name, distinct in _WIDE_TEXT.items():
        words = np.array([f"{name}_{i}_" + "x" * (i % 40) for i in range(distinct)])
        table = table.append_column(name, pa.array(words[random.integers(0, distinct, rows)]).dictionary_encode())
    return table


def write(out: Path) -> dict[str, Path]:
    """The three folders described above, under ``out``."""
    summary = b32_summary()
    cores = [dict(summary, neuroncore_idx=core, neuron_device_idx=0) for core in (0, 1)]
    changed = {("Summary", "total_time"): "milliseconds", ("Summary", "kernel_launch_time"): "seconds"}
    return {
        "7.4.0": profile_folder(out / "b32@7.4.0", "7.4.0", [dict(summary, neuroncore_idx=0)], schema_fields()),
        "split": profile_folder(out / "split@7.4.0", "7.4.0", cores, schema_fields(), split=True),
        "12.0.1": profile_folder(out / "b32@12.0.1", "12.0.1",
                           [dict(summary, neuroncore_idx=0, total_time=summary["total_time"] * 1e3,
                                 kernel_launch_time=0.0021)], schema_fields(changed)),
    }


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__.split("\n\n")[1])
    for name, path in {**write(Path(sys.argv[1])), **write_ops(Path(sys.argv[1]))}.items():
        print(f"{name}: {path}")

"""Neuron Explorer Parquet output, built from AWS's documented schema (no public capture exists).

    python scripts/make_explorer_fixtures.py OUT_DIR

writes three profile folders into OUT_DIR (the tests call ``write`` into a temporary folder):

- ``b32@7.4.0/``: schema 7.4.0 (Neuron SDK 2.31) as AWS's profile-schema-reference.rst documents it:
  ``Summary`` with every documented field the bundled b32 profile has (its real values: seconds,
  bytes, FLOP counts, 0-1 fractions), ``Metadata`` (one row, one column per field, the clock in GHz),
  ``ThrottleSummary`` (per ``nc_idx`` and ``throttle_type``), ``HbmUsageSummaryByType`` (b32's memory
  table; the three labels seen in real Explorer output in its Title Case, the rest as the seed has them), ``Warning`` (the doc's own example message) and
  ``SchemaFields`` (one row per table and field with its documented unit).
- ``split@7.4.0/``: the same Summary for two NeuronCores, written as ``Summary_0.parquet`` and
  ``Summary_1.parquet`` (one row each), which Explorer does for large tables.
- ``b32@12.0.1/``: a *hypothetical* schema 12.0.1 profile (SDK 2.33 documents 12.0.1, but its field
  lists are not mapped here): the 7.4.0 tables, with a ``SchemaFields`` table that declares one
  field in another unit (``total_time`` in ``milliseconds``, which neuroncmp must not misread as
  seconds) and one field 7.4.0 does not have (``kernel_launch_time``, seconds). Which fields 12.0.1
  really has is not known to us: this folder tests the reading rule, not AWS's schema.

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

from neuroncmp.ingest.formats.explorer_schema import SCHEMA_7_4_0

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
                     "max_achievable_util_with_throttling_percent": block[f"throttle_{kind}_avg_util_limit_nc0_percent"]})
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
    for name, path in write(Path(sys.argv[1])).items():
        print(f"{name}: {path}")

"""Shared code of the offline stand-ins for AWS's Neuron tools (tests only; no neuroncmp imports).

They behave like the real tools of Neuron SDK 2.32-2.33 as far as neuroncmp uses them, with what
AWS documents (Neuron Explorer "Capture profiles", "Analyze profile output", the profile schema
reference):
- ``view -n NEFF -s NTFF --output-format summary-json``: summary JSON on stdout,
  ``{"n_<40 hex>": {...}}``; ``--output-format parquet --output-file DIR`` (Explorer only): Parquet
  tables in DIR as schema 12.0.1 lays them out so far as AWS documents it (``Summary``; ``Metadata``
  as one row with a column per field, ``profile_schema_version`` 12.0.1; ``HbmUsageSummaryByType``;
  ``SchemaFields`` with each written field's unit, taken from schema 7.4.0's reference by the
  field's suffix, since 12.0.1's lists are not known to us; ``Instruction``, the op table ``neuroncmp
  ops`` reads: one 1,000 ns ``MATMUL`` of HLO op ``dot.1`` per sample, back to back); errors on stderr, exit 1; unknown
  flags or formats: usage on stderr, exit 2.
- ``view --show-profile-schema`` (Explorer, SDK 2.33; the top-level flag of 2.31-2.32 is gone):
  a YAML document; the real one's layout beyond "the OpenAPI schema as YAML" is not documented, so
  the stand-in prints an OpenAPI ``info`` block with ``version: 12.0.1``.
- ``capture -n NEFF -s FILE.ntff [--num-exec N] [--profile-nth-exec M]``: ``neuron-explorer
  capture`` replaces ``neuron-profile capture`` from SDK 2.32, same interface; the trace is saved as
  ``FILE_exec_M.ntff`` with ``--profile-nth-exec`` (``FILE.ntff`` without).
- ``--version``: one line.
The values come from the bundled real profiles (``profiles/trn1-2xlarge-bs-sweep/``): the stand-in
NTFF names its batch size and graph, and ``view`` prints that batch size's real summary (8 is the
baseline) for the training-step graph, a tiny one for the helper graphs. Stand-in NEFF/NTFF files
are small JSON texts, not the real binary formats.

Behaviour switches (environment): ``STANDIN_NO_DEVICE=1`` (capture and neuron-ls find no device),
``STANDIN_VIEW_FAIL=<batch>`` (view fails for that batch's trace).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import sys
from pathlib import Path

PROFILES = Path(__file__).resolve().parents[2] / "profiles" / "trn1-2xlarge-bs-sweep"
BUNDLED = {2: "b2", 4: "b4", 8: "baseline", 16: "b16", 32: "b32", 48: "b48", 64: "b64"}
VERSIONS = {"neuron-profile": "2.26.14.0", "neuron-explorer": "2.33.0.0"}
SCHEMA_VERSION = "12.0.1"  # what Explorer of SDK 2.33 writes (AWS's schema reference for 2.33)
_FIELD_UNITS = (("_time_ns", "nanoseconds"), ("_ns", "nanoseconds"), ("_time", "seconds"), ("_bytes", "bytes"),
          ("_percent", "percent"), ("_flops", "flops"), ("_cycle_count", "cycles"))
NO_DEVICE = "ERROR: no Neuron device found (is the Neuron driver loaded?)"  # wording invented


def fail(message: str, code: int = 1) -> None:
    print(message, file=sys.stderr)
    sys.exit(code)


def read_artifact(path: str, kind: str) -> dict:
    file = Path(path)
    if not file.is_file():
        fail(f"ERROR: {kind} file {path} does not exist")
    try:
        data = json.loads(file.read_text())
    except ValueError:
        fail(f"ERROR: failed to parse {kind} {path}: not a valid {kind.upper()} file")
    if data.get("standin") != kind:
        fail(f"ERROR: failed to parse {kind} {path}: not a valid {kind.upper()} file")
    return data


def bundled_summary(batch: int) -> dict:
    name = BUNDLED.get(batch)
    if name is None:
        fail(f"ERROR: stand-in has no bundled profile for batch size {batch}")
    wrapped = json.loads((PROFILES / f"{name}.json").read_text())
    return next(iter(wrapped.values()))


def trace(neff_path: str, ntff_path: str) -> dict:
    neff, ntff = read_artifact(neff_path, "neff"), read_artifact(ntff_path, "ntff")
    if ntff.get("neff_hash") != neff.get("hash"):
        fail(f"ERROR: {ntff_path} was not captured from {neff_path} (NEFF hash mismatch)")
    if str(ntff["batch"]) == os.environ.get("STANDIN_VIEW_FAIL"):
        fail(f"ERROR: failed to process {ntff_path}: trace is truncated", 1)
    return ntff


def helper_summary(batch: int) -> dict:
    """A small helper graph (initialisation, loss): microseconds, no matmuls."""
    versions = {k: v for k, v in bundled_summary(batch).items() if "version" in k}
    return {"total_time": 2.1e-05, "event_count": 41, "model_flops": 0, "hardware_flops": 0, **versions}


def view(tool: str, args: argparse.Namespace) -> None:
    if not args.neff_path or not args.session_file:
        fail("ERROR: view needs -n NEFF and -s NTFF in this stand-in", 2)
    ntff = trace(args.neff_path, args.session_file)
    batch = int(ntff["batch"])
    summary = bundled_summary(batch) if ntff.get("graph") == "train_step" else helper_summary(batch)
    if args.output_format == "summary-json":
        digest = hashlib.sha1(str(Path(args.session_file).resolve()).encode()).hexdigest()
        print(json.dumps({f"n_{digest}": summary}, indent=2))
    elif args.output_format == "summary-text":
        for key in sorted(summary):
            print(f"{key:<50} {summary[key]}")
    elif args.output_format == "parquet" and tool == "neuron-explorer":
        write_parquet(Path(args.output_file or "."), batch, summary)
    else:
        fail(f"ERROR: unsupported --output-format {args.output_format!r}", 2)


def write_parquet(out: Path, batch: int, summary: dict) -> None:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        fail("ERROR: this stand-in needs pyarrow to write Parquet")
    out.mkdir(parents=True, exist_ok=True)
    fields = {k: v for k, v in summary.items() if "version" not in k}
    pq.write_table(pa.Table.from_pylist([fields]), out / "Summary.parquet")
    meta = {k: str(v) for k, v in summary.items() if "version" in k and k != "profiler_version"}
    meta.update(profile_schema_version=SCHEMA_VERSION, explorer_version=VERSIONS["neuron-explorer"])
    pq.write_table(pa.Table.from_pylist([meta]), out / "Metadata.parquet")
    rows = memory_rows(batch)
    if rows:
        pq.write_table(pa.Table.from_pylist(rows), out / "HbmUsageSummaryByType.parquet")
    declared = [("Summary", k) for k in fields] + [("Metadata", k) for k in meta] + [
        ("HbmUsageSummaryByType", k) for k in ("neuron_device_idx", "neuroncore_idx", "usage_type", "usage_bytes")]
    pq.write_table(pa.Table.from_pylist([{"table_name": t, "field_name": f, "field_unit": unit_of(f)}
                                         for t, f in declared]), out / "SchemaFields.parquet")
    pq.write_table(pa.Table.from_pylist([{"start_ts": 1000 * i, "end_ts": 1000 * (i + 1), "duration_ns": 1000,
                                          "engine": "tensor", "opcode": "MATMUL", "hlo_name": "dot.1",
                                          "layer": "model/linear"} for i in range(batch)]), out / "Instruction.parquet")


def unit_of(field: str) -> str | None:
    """The unit schema 7.4.0's reference gives fields of this suffix (None: no unit)."""
    return next((unit for suffix, unit in _FIELD_UNITS if field.endswith(suffix)), None)


def show_schema() -> None:
    print(f"openapi: 3.0.3\ninfo:\n  title: Neuron Explorer profile schema (stand-in)\n"
          f"  version: {SCHEMA_VERSION}\npaths: {{}}")


_UNITS = {"B": 1, "KiB": 1024, "MiB": 1024**2, "GiB": 1024**3}


def memory_rows(batch: int) -> list[dict]:
    """The bundled memory table of this batch size as Explorer rows (Total left out)."""
    file = PROFILES / f"{BUNDLED[batch]}.memory.md"
    rows = []
    for line in file.read_text().splitlines() if file.is_file() else []:
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        match = re.fullmatch(r"([\d.]+) (B|KiB|MiB|GiB)", cells[-1]) if len(cells) == 4 else None
        if match and cells[2] != "Total":
            rows.append({"neuron_device_idx": int(cells[0]), "neuroncore_idx": int(cells[1]),
                         "usage_type": cells[2],
                         "usage_bytes": round(float(match[1]) * _UNITS[match[2]])})
    return rows


def capture(args: argparse.Namespace) -> None:
    if os.environ.get("STANDIN_NO_DEVICE"):
        fail(NO_DEVICE)
    neff = read_artifact(args.neff, "neff")
    if args.num_exec and args.profile_nth_exec and args.profile_nth_exec > args.num_exec:
        fail("ERROR: --profile-nth-exec must not exceed --num-exec", 2)
    base = Path(args.session_file or "profile.ntff")
    name = f"{base.stem}_exec_{args.profile_nth_exec}.ntff" if args.profile_nth_exec else base.name
    target = base.with_name(name)
    target.parent.mkdir(parents=True, exist_ok=True)
    executions = args.num_exec or args.profile_nth_exec or 1
    for number in range(1, executions + 1):
        print(f"INFO: execution {number} of {executions} completed")
    target.write_text(json.dumps({"standin": "ntff", "neff_hash": neff["hash"],
                                  "batch": neff["batch"], "graph": neff["graph"]}))
    print(f"INFO: profile saved to {target}")


def parser(tool: str) -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog=tool)
    top.add_argument("--version", action="store_true")
    sub = top.add_subparsers(dest="command")
    cap = sub.add_parser("capture")
    cap.add_argument("-n", "--neff", required=True)
    cap.add_argument("-s", "--session-file")
    cap.add_argument("--num-exec", type=int)
    cap.add_argument("--profile-nth-exec", type=int)
    cap.add_argument("--ignore-exec-errors", action="store_true")
    cap.add_argument("inputs", nargs="*")
    show = sub.add_parser("view")
    show.add_argument("-n", "--neff-path")
    show.add_argument("-s", "--session-file")
    show.add_argument("-d", "--session-dir")
    show.add_argument("--output-format", default="db")
    show.add_argument("--output-file")
    show.add_argument("--show-profile-schema", action="store_true")
    return top


def main(tool: str) -> None:
    args = parser(tool).parse_args()
    if args.version:
        print(f"{tool} version {VERSIONS[tool]} (stand-in)")
    elif args.command == "capture":
        capture(args)
    elif args.command == "view" and args.show_profile_schema and tool == "neuron-explorer":
        show_schema()
    elif args.command == "view":
        view(tool, args)
    else:
        fail(f"usage: {tool} {{capture,view}} ...", 2)

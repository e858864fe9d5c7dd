"""Speed of the operation tables on a generated Explorer ``Instruction`` table.

    python scripts/bench_ops.py [ROWS [DIR [--wide]]]   (default 10,000,000 rows, in a temporary folder)

Writes two profile folders (into TMPDIR) (``b32@7.4.0``'s Summary plus a generated ``Instruction`` table of ROWS
rows, ``make_explorer_fixtures.instruction_table``) into a temporary folder, then times reading
the op table at each level (file bytes / wall time = MB/s) and ``neuroncmp ops`` of the two
folders, and prints the peak resident memory of this process.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

import make_explorer_fixtures as fixtures  # noqa: E402  (found through the sys.path line above)

from neuroncmp.ingest.ops import read_ops  # noqa: E402  (the checkout, through sys.path)


def main(rows: int, keep: str | None, wide: bool) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        tmp = keep or scratch  # DIR: the tables are kept there and reused by the next run
        folders = []
        for name, seed in (("base", 0), ("slow", 1)):
            folder = fixtures.profile_folder(Path(tmp) / f"{name}@7.4.0", "7.4.0",
                                             [dict(fixtures.b32_summary(), neuroncore_idx=0)], fixtures.schema_fields())
            folders.append(folder)
            if (folder / "Instruction.parquet").is_file() and keep:
                continue
            began = time.perf_counter()
            fixtures.instruction_table(rows, folder / "Instruction.parquet", seed, wide)
            print(f"generated {name}: {rows:,} rows, {(folder / 'Instruction.parquet').stat().st_size / 1e6:.0f} MB "
                  f"in {time.perf_counter() - began:.1f} s")
        size = (folders[0] / "Instruction.parquet").stat().st_size
        for level in ("opcode", "hlo", "layer"):
            took, used, peak = _child("read", level, str(folders[0]))
            print(f"read --level {level}: {took:.2f} s wall = {size / took / 1e6:.0f} MB/s; {used:.2f} s of CPU = "
                  f"{size / used / 1e6:.0f} MB/s; peak resident memory {peak:.0f} MiB")
        took, used, peak = _child("ops", *map(str, folders))
        print(f"neuroncmp ops of two {rows:,}-row profiles (opcode level): {took:.2f} s wall, {used:.2f} s of CPU, "
              f"peak resident memory {peak:.0f} MiB")


def _child(*args: str) -> tuple[float, float, float]:
    """A fresh process (its memory high-water mark is its own: /proc's VmHWM starts again at exec)."""
    done = subprocess.run([sys.executable, __file__, "--child", *args], check=True, cwd=ROOT,
                          capture_output=True, text=True)
    took, used, peak = done.stdout.split()[-3:]
    return float(took), float(used), float(peak)


def child(mode: str, *args: str) -> None:
    if mode == "read":  # the libraries loaded first: the time is the reading and the aggregating
        import numpy  # noqa: F401
        import pyarrow.parquet  # noqa: F401

        from neuroncmp.ingest.ops import explorer, union  # noqa: F401
    began, cpu = time.perf_counter(), time.process_time()
    if mode == "read":
        read_ops(Path(args[1]), args[0])
    else:
        from neuroncmp.cli import cli

        with tempfile.TemporaryDirectory() as out:
            cli.main(["ops", *args, "--format", "json", "-o", str(Path(out) / "ops.json")], standalone_mode=False)
    took, used = time.perf_counter() - began, time.process_time() - cpu
    status = Path("/proc/self/status").read_text()
    peak = next(int(line.split()[1]) for line in status.splitlines() if line.startswith("VmHWM:")) / 1024
    print(took, used, peak)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        child(*sys.argv[2:])
        sys.exit(0)
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 10_000_000, sys.argv[2] if len(sys.argv) > 2 else None,
         "--wide" in sys.argv[3:])

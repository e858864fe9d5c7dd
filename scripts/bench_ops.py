"""Speed of the operation tables on a generated Explorer ``Instruction`` table.

    python scripts/bench_ops.py [ROWS [DIR]]   (default 10,000,000 rows, in a temporary folder)

Writes two profile folders (into TMPDIR) (``b32@7.4.0``'s Summary plus a generated ``Instruction`` table of ROWS
rows, ``make_explorer_fixtures.instruction_table``) into a temporary folder, then times reading
the op table at each level (file bytes / wall time = MB/s) and ``neuroncmp ops`` of the two
folders, and prints the peak resident memory of this process.
"""

from __future__ import annotations

import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

import make_explorer_fixtures as fixtures

from neuroncmp.ingest.ops import read_ops


def main(rows: int, keep: str | None) -> None:
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
            fixtures.instruction_table(rows, folder / "Instruction.parquet", seed)
            print(f"generated {name}: {rows:,} rows, {(folder / 'Instruction.parquet').stat().st_size / 1e6:.0f} MB "
                  f"in {time.perf_counter() - began:.1f} s")
        size = (folders[0] / "Instruction.parquet").stat().st_size
        for level in ("opcode", "hlo", "layer"):
            began, cpu = time.perf_counter(), time.process_time()
            table = read_ops(folders[0], level)
            took, used = time.perf_counter() - began, time.process_time() - cpu
            print(f"read --level {level}: {len(table.ops):,} ops in {took:.2f} s wall = {size / took / 1e6:.0f} MB/s "
                  f"({used:.2f} s of CPU: a busy machine's wall time is not this code's)")
        began = time.perf_counter()
        subprocess.run([sys.executable, "-m", "neuroncmp", "ops", *map(str, folders), "--format", "json",
                        "-o", str(Path(scratch) / "ops.json")], check=True, cwd=ROOT)
        print(f"neuroncmp ops of two {rows:,}-row profiles (opcode level): {time.perf_counter() - began:.2f} s")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    child = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"peak resident memory: this process {peak:.0f} MiB, the ops command {child:.0f} MiB")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 10_000_000, sys.argv[2] if len(sys.argv) > 2 else None)

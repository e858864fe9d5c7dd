"""Speed of ``neuroncmp ranks`` on 1,024 ranks of summary-level profiles (the target: at most 2 s).

    python scripts/bench_ranks.py [RANKS [REPEATS]]   (default 1,024 ranks, 5 runs)

Writes RANKS generated summary-json ranks (``make_ranks.generate``: the bundled b32 moved per rank, one
straggler planted) into a temporary folder, twice (a run and its baseline), then runs the command as a
user does, in a fresh process each time: ``neuroncmp ranks RUN`` and ``neuroncmp ranks RUN --baseline
BASE``, in the terminal format to a pipe. It prints each one's wall time and CPU time (user + system of the
child, from ``os.wait4``: the machine's other load moves wall time, much less CPU time), the median of
each over REPEATS runs.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

import make_ranks  # noqa: E402  (found through the sys.path line above)

from neuroncmp.analysis.rank_synthetic import Plant  # noqa: E402


def timed(command: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds of one run of ``command`` (its output discarded)."""
    began = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(command)} failed")
    return time.perf_counter() - began, usage.ru_utime + usage.ru_stime


def main(ranks: int, repeats: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        run, base = Path(tmp) / "run", Path(tmp) / "base"
        make_ranks.generate(run, ranks, 1, [Plant(ranks // 3, "DMA", 0.05)])
        make_ranks.generate(base, ranks, 2, [])
        cli = [sys.executable, "-m", "neuroncmp", "ranks"]
        for name, command in (("ranks RUN", [*cli, str(run)]),
                              ("ranks RUN --baseline BASE", [*cli, str(run), "--baseline", str(base)])):
            times = sorted(timed(command) for _ in range(repeats))
            walls, cpus = sorted(t[0] for t in times), sorted(t[1] for t in times)
            print(f"{name}: {ranks:,} ranks, median of {repeats}: wall {walls[repeats // 2]:.2f} s "
                  f"(min {walls[0]:.2f}, max {walls[-1]:.2f}), CPU {cpus[repeats // 2]:.2f} s "
                  f"(min {cpus[0]:.2f}, max {cpus[-1]:.2f})")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1024, int(sys.argv[2]) if len(sys.argv) > 2 else 5)

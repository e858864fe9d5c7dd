"""Benchmark the store: bulk add in-process, and cold CLI history and regressions.

    python scripts/bench_store.py --runs 5000

Generates ``--runs`` summary-json runs of the bundled b32 (values from
``neuroncmp.analysis.synthetic.history``, see ``make_history.py``) with a runs.csv listing, then:

1. adds them in one call in-process (``Store.add_listing``), after a warm-up add to another store
   so imports are not counted, beside a floor in the same process: reading and ``json.loads``-ing
   the same files (what any tool must do at least) and ``neuroncmp.ingest.load`` of each;
2. times cold CLI runs (a new process each, like a user's) of ``neuroncmp history total_time`` (one
   series of ``--runs`` points) and ``neuroncmp regressions`` (every series of every metric),
   after ``store compact`` and also before it, against ``python -c pass``.

Numbers vary with the machine; the script prints them with the floor measured beside them.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import make_history  # noqa: E402

from neuroncmp.ingest import load  # noqa: E402
from neuroncmp.store import Store  # noqa: E402


def cold(args: list[str], repeat: int) -> float:
    """Median wall time of ``repeat`` fresh processes."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(args, check=True, stdout=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def floor(files: list[Path]) -> tuple[float, float]:
    """Seconds to read + json.loads every file, and to ``ingest.load`` every file."""
    start = time.perf_counter()
    for file in files:
        json.loads(file.read_bytes())
    plain = time.perf_counter() - start
    start = time.perf_counter()
    for file in files:
        load(file)
    return plain, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=3, help="cold CLI runs per command")
    parser.add_argument("--keep", type=Path, default=None, help="keep the generated files and store here")
    args = parser.parse_args()
    work = args.keep or Path(tempfile.mkdtemp(prefix="neuroncmp-bench-"))
    data, store_path = work / "runs", work / "store"
    shutil.rmtree(store_path, ignore_errors=True)
    make_history.generate(data, args.runs, seed=7, shifts={"total_time": (args.runs * 3 // 5, 0.03)})
    files = sorted(data.glob("run-*.json"))

    Store(work / "warm").add(*files[:20])  # imports and first-use costs, not counted
    plain, ingest = floor(files)
    start = time.perf_counter()
    report = Store(store_path).add_listing(data / "runs.csv")
    added = time.perf_counter() - start
    n = len(report.added)
    print(f"bulk add, in-process, {n} summary-json profiles in one call:")
    print(f"  store add        {added:7.2f} s  {n / added:8.0f} profiles/s")
    print(f"  floor: json      {plain:7.2f} s  {n / plain:8.0f} files/s (read + json.loads)")
    print(f"  floor: ingest    {ingest:7.2f} s  {n / ingest:8.0f} profiles/s (neuroncmp.ingest.load)")

    exe = [sys.executable, "-m", "neuroncmp"]
    base = cold([sys.executable, "-c", "pass"], args.repeat)
    history = cold(exe + ["history", "total_time", "--store", str(store_path)], args.repeat)
    regressions = cold(exe + ["regressions", "--store", str(store_path)], args.repeat)
    series = Store(store_path).regressions()
    print(f"cold CLI at {args.runs} runs (median of {args.repeat}; python -c pass: {base:.2f} s):")
    print(f"  history total_time (1 series, {args.runs} points)   {history:6.2f} s")
    print(f"  regressions ({series.series_count} series of {series.metric_count} metrics)  "
          f"{regressions:6.2f} s")
    if args.keep is None:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()

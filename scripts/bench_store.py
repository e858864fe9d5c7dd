"""Benchmark the store on one engine: bulk add, one-series history, full regressions.

    python scripts/bench_store.py --runs 5000                       # DuckDB, as in docs/speed.md
    python scripts/bench_store.py --runs 100000 --engine spark [--conf KEY=VALUE]...

Generates ``--runs`` summary-json runs of the bundled b32 (values from
``neuroncmp.analysis.synthetic.history``, see ``make_history.py``) with a runs.csv listing, then:

1. adds them in one call in-process (``Store.add_listing``), after a warm-up add to another store
   so imports (and, for Spark, the session start, timed separately) are not counted; for DuckDB
   beside a floor in the same process: reading and ``json.loads``-ing the same files (what any
   tool must do at least) and ``neuroncmp.ingest.load`` of each; with ``--stages``, one more add
   with its CPU split by stage (listing, load, hash, sidecars, rows, copies, parquet, other);
2. times ``history total_time`` (one series of ``--runs`` points) and ``regressions`` (every
   series of every metric) twice: in-process on the warm engine (the query itself), and as cold
   CLI runs (a new process each, like a user's; for Spark that includes starting the JVM), against
   ``python -c pass``.

Numbers vary with the machine; the script prints them with the floor measured beside them.
"""

from __future__ import annotations

import argparse
import importlib
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import make_history

from neuroncmp.ingest import load
from neuroncmp.store import Store
from neuroncmp.store.engines import choose


def cold(args: list[str], repeat: int) -> float:
    """Median wall time of ``repeat`` fresh processes."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(args, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def warm(work: Callable[[], Any], repeat: int) -> float:
    """Median wall time of ``repeat`` calls in this process."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        work()
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


# the stages of an add, timed in CPU by wrapping the function that does each (``--stages``);
# ``load`` holds the parse and the set assembly (sidecars joined), ``hash`` the file's one read
STAGES = {
    "listing": ("neuroncmp.store.listing", "read"),
    "load": ("neuroncmp.store.adding", "load_set"),
    "hash": ("neuroncmp.store.objects", "read"),
    "sidecars": ("neuroncmp.store.adding", "_sidecars"),
    "rows": ("neuroncmp.store.adding", "_stage"),
    "copies": ("neuroncmp.store.objects", "keep"),
    "parquet": ("neuroncmp.store.parts", "write"),
}


@contextmanager
def stage_clock() -> Iterator[dict[str, float]]:
    """CPU seconds spent in each of STAGES while the block runs (the functions wrapped, then
    restored)."""
    spent = dict.fromkeys(STAGES, 0.0)
    saved = []
    for stage, (module_name, name) in STAGES.items():
        module = importlib.import_module(module_name)
        real = getattr(module, name)

        def timed(*args: Any, _real: Callable[..., Any] = real, _stage: str = stage, **kwargs: Any) -> Any:
            start = time.process_time()
            try:
                return _real(*args, **kwargs)
            finally:
                spent[_stage] += time.process_time() - start

        saved.append((module, name, real))
        setattr(module, name, timed)
    try:
        yield spent
    finally:
        for module, name, real in saved:
            setattr(module, name, real)


def staged_add(engine: Any, store_path: Path, listing: Path) -> None:
    """One more add of the listing to a new store, its CPU split by stage."""
    shutil.rmtree(store_path, ignore_errors=True)
    with stage_clock() as spent:
        start = time.process_time()
        report = Store(store_path, engine=engine).add_listing(listing)
        total = time.process_time() - start
    n = len(report.added)
    split = "  ".join(f"{stage} {seconds / n * 1e6:.0f}" for stage, seconds in spent.items())
    print(f"  stages (CPU us an add; {total / n * 1e6:.0f} in all, other "
          f"{(total - sum(spent.values())) / n * 1e6:.0f}): {split}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5000)
    parser.add_argument("--engine", choices=("duckdb", "spark"), default="duckdb")
    parser.add_argument("--spark-master", default=None, help="default: SPARK_MASTER, else local[*]")
    parser.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE", help="a Spark setting")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs per query")
    parser.add_argument("--no-floor", action="store_true", help="skip the json/ingest floor")
    parser.add_argument("--stages", action="store_true", help="one more add, its CPU split by stage (DuckDB)")
    parser.add_argument("--keep", type=Path, default=None, help="keep the generated files and store here")
    args = parser.parse_args()
    work = args.keep or Path(tempfile.mkdtemp(prefix="neuroncmp-bench-"))
    data, store_path = work / "runs", work / f"store-{args.engine}"
    shutil.rmtree(store_path, ignore_errors=True)
    shutil.rmtree(work / "warm", ignore_errors=True)
    start = time.perf_counter()
    if not (data / "runs.csv").is_file() or len(list(data.glob("run-*.json"))) != args.runs:
        shutil.rmtree(data, ignore_errors=True)
        make_history.generate(data, args.runs, seed=7, shifts={"total_time": (args.runs * 3 // 5, 0.03)})
    files = sorted(data.glob("run-*.json"))
    print(f"{args.engine}, {args.runs} runs (generated or reused in {time.perf_counter() - start:.0f} s)")

    conf = dict(item.split("=", 1) for item in args.conf)
    engine = choose(args.engine, master=args.spark_master, conf=conf) if args.engine == "spark" else choose("duckdb")
    start = time.perf_counter()
    Store(work / "warm", engine=engine).add(*files[:20])  # imports, session, first use: not counted
    print(f"  warm-up add of 20 (session start, imports)  {time.perf_counter() - start:7.2f} s")
    start = time.perf_counter()
    report = Store(store_path, engine=engine).add_listing(data / "runs.csv")
    added = time.perf_counter() - start
    n = len(report.added)
    print(f"  store add, in-process, one call   {added:8.2f} s  {n / added:8.0f} profiles/s")
    if args.engine == "duckdb" and not args.no_floor:
        plain, ingest = floor(files)
        print(f"  floor: json                       {plain:8.2f} s  {n / plain:8.0f} files/s (read + json.loads)")
        print(f"  floor: ingest                     {ingest:8.2f} s  {n / ingest:8.0f} profiles/s (ingest.load)")
    if args.stages and args.engine == "duckdb":  # Spark parses on its executors, out of this process
        staged_add(engine, work / f"store-{args.engine}-stages", data / "runs.csv")

    store = Store(store_path, engine=engine)
    found = store.regressions()
    history = warm(lambda: store.history("total_time"), args.repeat)
    regressions = warm(store.regressions, args.repeat)
    print(f"  in-process (median of {args.repeat}): history total_time (1 series, {args.runs} points) "
          f"{history:6.2f} s; regressions ({found.series_count} series of {found.metric_count} metrics) "
          f"{regressions:6.2f} s")

    exe = [sys.executable, "-m", "neuroncmp"]
    options = ["--store", str(store_path), "--engine", args.engine]
    options += ["--spark-master", args.spark_master] if args.spark_master else []
    options += [x for item in args.conf for x in ("--conf", item)]
    base = cold([sys.executable, "-c", "pass"], args.repeat)
    history = cold(exe + ["history", "total_time", *options], args.repeat)
    regressions = cold(exe + ["regressions", *options], args.repeat)
    print(f"  cold CLI (median of {args.repeat}; python -c pass {base:.2f} s): history total_time "
          f"{history:6.2f} s; regressions {regressions:6.2f} s")
    if args.keep is None:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()

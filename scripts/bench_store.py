"""Benchmark the store on one engine: bulk add, one-series history, full regressions, the site.

    python scripts/bench_store.py --runs 5000                       # DuckDB, as in docs/speed.md
    python scripts/bench_store.py --runs 5000 --baseline-src OLD    # also an older checkout, same run
    python scripts/bench_store.py --runs 100000 --engine spark [--conf KEY=VALUE]...

Generates ``--runs`` summary-json runs of the bundled b32 as nightly runs of ``--configs``
configurations (``make_history.generate_fleet``: each metric of each configuration shifts with
probability one half; 8 configurations make 8 x 89 series) with a runs.csv listing, then:

1. adds them in one call in-process (``Store.add_listing``), after a warm-up add to another store
   so imports (and, for Spark, the session start, timed separately) are not counted; for DuckDB
   beside a floor in the same process: reading and ``json.loads``-ing the same files (what any
   tool must do at least) and ``neuroncmp.ingest.load`` of each; with ``--stages``, one more add
   with its CPU split by stage (listing, load, hash, sidecars, rows, copies, parquet, other);
2. times ``history total_time`` of one series and ``regressions`` (every series of every metric)
   in-process on the warm engine (the query itself);
3. times cold CLI runs (a new process each, like a user's; for Spark that includes starting the
   JVM): ``history`` of one series, ``regressions``, ``regressions --since`` the last tenth of the
   runs, ``report -o`` a new folder and again over it, each as a ratio to the floor measured in
   the same run: a fresh Python process scanning the store's metric rows with DuckDB (``FLOOR``),
   with each command's peak memory. ``--baseline-src DIR`` times the same commands with the
   package of another checkout (``DIR/neuroncmp``) first on the path, alternating with this one.

Numbers vary with the machine; the script prints them with the floor measured beside them.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import make_history

from neuroncmp.ingest import load
from neuroncmp.store import Store
from neuroncmp.store.engines import choose


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


CONFIGS = ("llama-1b:8", "llama-1b:16", "llama-1b:32", "llama-8b:8", "llama-8b:16", "llama-8b:32",
           "bert:32", "bert:64")
# the floor: a fresh Python process scanning the store's metric rows with DuckDB, grouped by metric
FLOOR = ("import duckdb, sys; duckdb.sql(\"SELECT metric, count(*), avg(value) FROM read_parquet('\" "
         "+ sys.argv[1] + \"/tables/metrics/*.parquet') GROUP BY metric\").fetchall()")


# runs a command and prints its peak memory: a small process forks it, so the child does not start
# with this script's memory (a fork's peak counts the parent's pages until exec)
PEAK = ("import resource, subprocess, sys; code = subprocess.call(sys.argv[1:], stdout=subprocess.DEVNULL); "
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss); sys.exit(code)")


def cold_once(args: list[str], env: dict[str, str]) -> tuple[float, int]:
    """Wall seconds and peak memory (KiB) of one fresh process."""
    start = time.perf_counter()
    # run outside any checkout: ``-m neuroncmp`` puts the working directory first on the path
    done = subprocess.run([sys.executable, "-c", PEAK, *args], capture_output=True, text=True, env=env,
                          cwd=tempfile.gettempdir())
    wall = time.perf_counter() - start
    if done.returncode not in (0, 1):  # regressions exits 1 when it finds some
        raise SystemExit(f"{' '.join(args)} failed ({done.returncode}): {done.stderr[-2000:]}")
    return wall, int(done.stdout.split()[-1])


def sources(baseline: Path | None) -> dict[str, dict[str, str]]:
    """The checkouts to time: this one, and ``baseline`` (its package first on the path)."""
    found = {"this": dict(os.environ)}
    if baseline is not None:
        found["baseline"] = {**os.environ, "PYTHONPATH": str(baseline.resolve())}
    return found


def cold_table(commands: dict[str, list[str]], fresh: dict[str, Path], store: Path,
               baseline: Path | None, repeat: int) -> None:
    """Median wall time and peak memory of each command from each checkout, in turns, and the
    floor's; ``fresh`` names the folders removed before each run of a command."""
    runs: dict[tuple[str, str], list[tuple[float, int]]] = {}
    floor_runs = []
    for _ in range(repeat):
        floor_runs.append(cold_once([sys.executable, "-c", FLOOR, str(store)], dict(os.environ)))
        for name, args in commands.items():
            for label, env in sources(baseline).items():
                if name in fresh:
                    shutil.rmtree(fresh[name], ignore_errors=True)
                runs.setdefault((label, name), []).append(cold_once(args, env))
    floor = statistics.median(w for w, _ in floor_runs)
    print(f"  cold CLI, median of {repeat}; floor (fresh Python, DuckDB scan of the metric rows) "
          f"{floor:.2f} s, {max(m for _, m in floor_runs) / 1024:.0f} MiB")
    for (label, name), timed in runs.items():
        wall = statistics.median(w for w, _ in timed)
        peak = max(m for _, m in timed) / 1024
        print(f"    {label:9} {name:34} {wall:7.2f} s  {wall / floor:6.1f}x floor  {peak:6.0f} MiB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5000)
    parser.add_argument("--configs", default=",".join(CONFIGS), metavar="MODEL:BATCH,...",
                        help="the configurations the runs are split between")
    parser.add_argument("--engine", choices=("duckdb", "spark"), default="duckdb")
    parser.add_argument("--spark-master", default=None, help="default: SPARK_MASTER, else local[*]")
    parser.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE", help="a Spark setting")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs per query")
    parser.add_argument("--no-floor", action="store_true", help="skip the json/ingest floor")
    parser.add_argument("--stages", action="store_true", help="one more add, its CPU split by stage (DuckDB)")
    parser.add_argument("--keep", type=Path, default=None, help="keep the generated files and store here")
    parser.add_argument("--store", type=Path, default=None,
                        help="time the queries on this store (made from the same --runs and --configs)"
                             " instead of adding")
    parser.add_argument("--baseline-src", type=Path, default=None, metavar="DIR",
                        help="also time the cold commands with the package of this checkout")
    args = parser.parse_args()
    work = args.keep or Path(tempfile.mkdtemp(prefix="neuroncmp-bench-"))
    configs = [(m, int(b)) for m, _, b in (c.rpartition(":") for c in args.configs.split(","))]
    per_config = args.runs // len(configs)
    store_path = add_all(args, work, configs, per_config) if args.store is None else args.store
    engine = _engine(args)
    store = Store(store_path, engine=engine)
    found = store.regressions()
    model, batch = configs[0]
    one = {"model": [model], "batch": [str(batch)]}
    history = warm(lambda: store.history("total_time", **one), args.repeat)
    regressions = warm(store.regressions, args.repeat)
    print(f"  in-process (median of {args.repeat}): history total_time (1 series, {per_config} points) "
          f"{history:6.2f} s; regressions ({found.series_count} series of {found.metric_count} metrics) "
          f"{regressions:6.2f} s")

    exe = [sys.executable, "-m", "neuroncmp"]
    options = ["--store", str(store_path), "--engine", args.engine]
    options += ["--spark-master", args.spark_master] if args.spark_master else []
    options += [x for item in args.conf for x in ("--conf", item)]
    since = (make_history.START + timedelta(days=per_config * 9 // 10)).isoformat()
    site = work / "site"
    commands = {"history total_time (1 series)": exe + ["history", "total_time", "--where", f"model={model}",
                                                        "--where", f"batch={batch}", *options],
                "regressions": exe + ["regressions", *options],
                "regressions --since (last tenth)": exe + ["regressions", "--since", since, *options],
                "report -o (new folder)": exe + ["report", "-o", str(site), *options],
                "report -o (over the last one)": exe + ["report", "-o", str(site), *options]}
    cold_table(commands, {"report -o (new folder)": site}, store_path, args.baseline_src, args.repeat)
    if args.keep is None:
        shutil.rmtree(work, ignore_errors=True)


def _engine(args: argparse.Namespace) -> Any:
    conf = dict(item.split("=", 1) for item in args.conf)
    if args.engine == "spark":
        return choose(args.engine, master=args.spark_master, conf=conf)
    return choose("duckdb")


def add_all(args: argparse.Namespace, work: Path, configs: list[tuple[str, int]], per_config: int) -> Path:
    """Generate the runs (or reuse them), add them in one call, and time it (with the floors)."""
    data, store_path = work / "runs", work / f"store-{args.engine}"
    shutil.rmtree(store_path, ignore_errors=True)
    shutil.rmtree(work / "warm", ignore_errors=True)
    start = time.perf_counter()
    listed = (data / "runs.csv").read_text().count("\n") - 1 if (data / "runs.csv").is_file() else 0
    if listed != per_config * len(configs):
        shutil.rmtree(data, ignore_errors=True)
        make_history.generate_fleet(data, per_config, seed=7, configs=configs)
    files = sorted(data.glob("*/*.json"))
    print(f"{args.engine}, {len(files)} runs of {len(configs)} configurations "
          f"(generated or reused in {time.perf_counter() - start:.0f} s)")
    engine = _engine(args)
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
    return store_path


if __name__ == "__main__":
    main()

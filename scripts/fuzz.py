#!/usr/bin/env python3
"""Fuzz neuroncmp for a long while and print what broke, per input format (issue 11's table).

  python scripts/fuzz.py [--inputs 10000] [--cli-every 10] [--charts-every 20] [--jobs 2] [--seed 0] [--format NAME ...]
  python scripts/fuzz.py --surface all [--inputs 2000]    (or --surface sets --surface store ...)

Each input is a bundled profile or fixture mutated by ``tests/fuzzing.py`` (byte flips, truncation,
lines deleted or duplicated, numbers swapped for strings, null, NaN, Infinity, 1e400, 5,000-digit
integers, negatives, nested objects, duplicate keys, Unicode, BOM, UTF-16, CRLF, NUL bytes, wrong
column counts, long lines), or a generated structure; run folders get hostile manifests (paths
out of the folder, FIFOs, /dev/zero, recursion, wrong types). Every input goes through the
library (load, every renderer of show and diff, gates), every ``--cli-every``-th one also
through the CLI. Columns: inputs; crashes or hangs (any exception but a neuroncmp error, or over
the time limit); silent wrong values (a non-finite or impossible negative value without an
anomaly, a NaN/Infinity token in JSON, a bad batch size); CLI inputs; CLI tracebacks or hangs
(including exit codes other than 0, 1, 3 and errors longer than one line); and how many inputs
loaded and rendered, and how many were refused with a neuroncmp error (the mutations' reach). Exit 1 if any count
is not zero. Inputs are reproducible from --seed.

``--surface`` runs the surfaces beyond one file instead (``tests/fuzzing_surfaces.py``, issue 22):
sets of 1-10 inputs, options at their limits, a tampered store, the Python API with wrong types
and values, capture over hostile manifests and batch lists, and ``ops`` over mutated view JSONs and
Explorer op tables with its options (``tests/fuzzing_ops.py``: on exit 0, no non-finite or negative
time and no suspect value scored, else a "silent wrong value"). Its table counts, per surface, the
runs, tracebacks, hangs, wrong exit codes, writes outside the output and silent wrong values
(a NaN token in JSON), and how many ended cleanly or were refused with a neuroncmp error.
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import fuzzing  # noqa: E402  (tests/fuzzing.py, after the path is set)
import fuzzing_surfaces  # noqa: E402

SURFACE_COLUMNS = ("runs", "traceback", "hang", "wrong exit code", "write outside the output", "silent", "ok",
                   "error")

COLUMNS = ("inputs", "crash/hang", "silent", "cli", "cli crash/hang", "ok", "error")


def run_chunk(task: tuple[str, int, int, int, int]) -> tuple[str, Counter[str], list[str]]:
    """Inputs ``start`` .. ``start + count`` of one format: counts and the first examples."""
    fmt, start, count, cli_every, charts_every = task
    counts: Counter[str] = Counter()
    examples: list[str] = []
    with tempfile.TemporaryDirectory(prefix="neuroncmp-fuzz-") as temp:
        workdir = Path(temp) / "case"
        for number in range(start, start + count):
            rnd = random.Random(f"{fmt}:{number}")
            case = fuzzing.make_case(fmt, rnd, workdir)
            draw = bool(charts_every) and number % charts_every == 0
            outcome = fuzzing.quietly(fuzzing.check_library, case.path, draw)
            counts["inputs"] += 1
            counts[{"crash": "crash/hang", "hang": "crash/hang"}.get(outcome.kind, outcome.kind)] += 1
            _note(examples, outcome, fmt, number, case.how, "library")
            if cli_every and number % cli_every == 0:
                cli = fuzzing.quietly(fuzzing.check_cli, case.path, rnd, Path(temp))
                counts["cli"] += 1
                if cli.kind in ("crash", "hang"):
                    counts["cli crash/hang"] += 1
                elif cli.kind == "silent":
                    counts["silent"] += 1
                _note(examples, cli, fmt, number, case.how, "cli")
    return fmt, counts, examples


def run_surface_chunk(task: tuple[str, int, int]) -> tuple[str, Counter[str], list[str]]:
    """Runs ``start`` .. ``start + count`` of one surface: counts and the first examples."""
    surface, start, count = task
    counts: Counter[str] = Counter()
    examples: list[str] = []
    with tempfile.TemporaryDirectory(prefix="neuroncmp-fuzz-") as temp:
        for number in range(start, start + count):
            rnd = random.Random(f"{surface}:{number}")
            outcome, how = fuzzing.quietly(lambda rnd=rnd: _surface_outcome(surface, rnd, Path(temp) / "case"))
            counts["runs"] += 1
            counts[_column(outcome)] += 1
            if outcome.kind in ("crash", "hang", "silent") and len(examples) < 20:
                examples.append(f"{surface} #{number} ({how[:120]}): {outcome.kind}: {outcome.detail[:300]}")
    return surface, counts, examples


def _surface_outcome(surface: str, rnd: random.Random, workdir: Path) -> tuple[fuzzing.Outcome, str]:
    return fuzzing_surfaces.run_case(surface, rnd, workdir)


def _column(outcome: fuzzing.Outcome) -> str:
    if outcome.kind != "crash":
        return outcome.kind
    if "wrote outside" in outcome.detail or ("left" in outcome.detail and "behind" in outcome.detail):
        return "write outside the output"
    if ": exit " in outcome.detail or "not one line" in outcome.detail:
        return "wrong exit code"
    return "traceback"


def _note(examples: list[str], outcome: fuzzing.Outcome, fmt: str, number: int, how: str, where: str) -> None:
    if outcome.kind in ("crash", "hang", "silent") and len(examples) < 20:
        examples.append(f"{fmt} #{number} ({where}; {how}): {outcome.kind}: {outcome.detail}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--inputs", type=int, default=10_000, help="inputs per format")
    parser.add_argument("--cli-every", type=int, default=10, help="every Nth input also through the CLI")
    parser.add_argument("--charts-every", type=int, default=20,
                        help="every Nth input's sweep charts also drawn to PNG (the others are built, not drawn)")
    parser.add_argument("--jobs", type=int, default=multiprocessing.cpu_count())
    parser.add_argument("--seed", type=int, default=0, help="first input number")
    parser.add_argument("--format", dest="formats", action="append", choices=fuzzing.FORMATS)
    parser.add_argument("--surface", dest="surfaces", action="append",
                        choices=(*fuzzing_surfaces.SURFACES, "all"),
                        help="fuzz these surfaces beyond one file (issue 22) instead of the formats")
    parser.add_argument("--chunk", type=int, default=250)
    args = parser.parse_args()
    if args.surfaces:
        return surfaces(args)
    formats = args.formats or list(fuzzing.FORMATS)
    tasks = [(fmt, start, min(args.chunk, args.seed + args.inputs - start), args.cli_every,
              args.charts_every)
             for fmt in formats for start in range(args.seed, args.seed + args.inputs, args.chunk)]
    began = time.perf_counter()
    totals = {fmt: Counter() for fmt in formats}
    examples: list[str] = []
    with multiprocessing.Pool(args.jobs) as pool:
        for fmt, counts, found in pool.imap_unordered(run_chunk, tasks):
            totals[fmt].update(counts)
            examples += found
    elapsed = time.perf_counter() - began
    print(_table(totals))
    print(f"\nrun time: {elapsed:.0f} s ({args.jobs} jobs), seeds {args.seed}..{args.seed + args.inputs - 1}")
    for line in examples[:60]:
        print(line)
    bad = sum(totals[f][c] for f in formats for c in ("crash/hang", "silent", "cli crash/hang"))
    return 1 if bad else 0


def surfaces(args: argparse.Namespace) -> int:
    chosen = list(fuzzing_surfaces.SURFACES) if "all" in args.surfaces else list(dict.fromkeys(args.surfaces))
    tasks = [(surface, start, min(args.chunk, args.seed + args.inputs - start))
             for surface in chosen for start in range(args.seed, args.seed + args.inputs, args.chunk)]
    began = time.perf_counter()
    totals = {surface: Counter() for surface in chosen}
    examples: list[str] = []
    with multiprocessing.Pool(args.jobs) as pool:
        for surface, counts, found in pool.imap_unordered(run_surface_chunk, tasks):
            totals[surface].update(counts)
            examples += found
    elapsed = time.perf_counter() - began
    lines = ["| surface | runs | traceback | hang | wrong exit code | write outside the output | silent wrong value "
             "| ended cleanly | refused (neuroncmp error) |", "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    lines += [f"| {surface} | " + " | ".join(f"{counts[c]:,}" for c in SURFACE_COLUMNS) + " |"
              for surface, counts in totals.items()]
    print("\n".join(lines))
    print(f"\nrun time: {elapsed:.0f} s ({args.jobs} jobs), seeds {args.seed}..{args.seed + args.inputs - 1}")
    for line in examples[:60]:
        print(line)
    bad = sum(totals[s][c] for s in chosen for c in SURFACE_COLUMNS[1:6])
    return 1 if bad else 0


def _table(totals: dict[str, Counter[str]]) -> str:
    head = ("| input format | library inputs | crash or hang | silent wrong value | CLI inputs "
            "| CLI traceback or hang | loaded | refused (neuroncmp error) |")
    lines = [head, "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for fmt, counts in totals.items():
        cells = [f"{counts[c]:,}" for c in COLUMNS]
        lines.append(f"| {fmt} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())

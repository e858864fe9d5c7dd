#!/usr/bin/env python3
"""Benchmark the CLI against a plain-Python floor measured in the same run (these machines are noisy).

  python scripts/bench_cli.py [--repeat N] [--variants 500] [--check]

1. cold `neuroncmp diff` of the 8 bundled profiles (plain, and in colour: FORCE_COLOR=1, ANSI codes) and cold
   `neuroncmp sweep` of their run folder vs `python -c` json-loading the same 8 files;
2. cold `neuroncmp --help` and `neuroncmp show` vs `python -c 'import json'`;
3. a generated sweep of N variants: `load_many` + `compare` in process vs json-loading the same files
   in process, and the CLI writing JSON;
4. the package modules each command imports (`python -X importtime`).
Targets (issue 23): diff within 4x of the floor (aim 3x), --help within 2.5x of `import json`, the
N variants in process within 8x of json-loading them, through the CLI to JSON under 1 s; sweep and
the colour diff within 8x. --check exits 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RUN = ROOT / "profiles" / "trn1-2xlarge-bs-sweep"
FILES = [str(RUN / f"{name}.json") for name in
         ("baseline", "b2", "b4", "b16", "b32", "b32-cc-optim", "b48", "b64")]
TARGETS = {"diff": 4.0, "diff (colour)": 8.0, "help": 2.5, "sweep": 8.0, "variants": 8.0}
CLI_VARIANTS_SECONDS = 1.0


def _cli() -> list[str]:
    script = Path(sys.executable).parent / "neuroncmp"
    return [str(script)] if script.exists() else [sys.executable, "-m", "neuroncmp"]


def timed(cmd: list[str], repeat: int, **env: str) -> float:
    """Median wall time of ``cmd`` over ``repeat`` cold runs (after one warm-up for the disk cache)."""
    samples = []
    for index in range(repeat + 1):
        start = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True,
                       env=dict(os.environ, COLUMNS="100", **env))
        if index:
            samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def floor_cmd(files: list[str]) -> list[str]:
    code = "import json,sys\nfor f in sys.argv[1:]:\n    json.load(open(f))"
    return [sys.executable, "-c", code, *files]


def generate_sweep(folder: Path, count: int) -> list[str]:
    """``count`` summary-json variants of b32 with every numeric value nudged deterministically, then
    made consistent as the profiler writes them (``synthetic.consistent``: shares from their times,
    fractions within 100 %), so each loads with no anomaly."""
    from neuroncmp.analysis import synthetic

    block = next(iter(json.loads((RUN / "b32.json").read_text()).values()))
    numbers = {k: v for k, v in block.items()
               if isinstance(v, (int, float)) and not isinstance(v, bool) and not k.endswith("_idx")}
    related = synthetic.relations(numbers)
    paths = [str(RUN / "b32.json")]
    for index in range(count):
        factor = 1 + ((index * 37) % 200 - 100) / 1000
        made = synthetic.consistent({k: v * factor for k, v in numbers.items()}, related)
        nudged = {**block, **{k: (round(v) if isinstance(block[k], int) else v) for k, v in made.items()}}
        path = folder / f"v{index:03d}.json"
        path.write_text(json.dumps({f"n_{index}": nudged}))
        paths.append(str(path))
    return paths


def in_process(paths: list[str], repeat: int) -> tuple[float, float]:
    """Median seconds of ``load_many`` + ``compare`` of ``paths``, and of json-loading them (the floor)."""
    sys.path.insert(0, str(ROOT))
    import neuroncmp
    from neuroncmp.comparison.differ import compare

    samples, floors = [], []
    for _ in range(repeat):
        start = time.perf_counter()
        for path in paths:
            with open(path, encoding="utf-8") as handle:
                json.load(handle)
        floors.append(time.perf_counter() - start)
        start = time.perf_counter()
        profiles = neuroncmp.load_many(paths)
        compare(profiles[0], *profiles[1:])
        samples.append(time.perf_counter() - start)
    return statistics.median(samples), statistics.median(floors)


def modules(cmd: list[str]) -> int:
    """How many of the package's modules ``cmd`` (a neuroncmp command, as installed) imports."""
    result = subprocess.run(cmd, capture_output=True, text=True, check=False,
                            env=dict(os.environ, COLUMNS="100", PYTHONPROFILEIMPORTTIME="1"))
    return sum(1 for line in result.stderr.splitlines()
               if line.startswith("import time:") and line.split("|")[-1].strip().startswith("neuroncmp"))


def compile_package() -> None:
    """Byte-compile the package first, as ``pip install`` does: a cold run then measures start-up,
    not the compiler (this environment sets PYTHONDONTWRITEBYTECODE, so nothing else would)."""
    import compileall

    compileall.compile_dir(str(ROOT / "neuroncmp"), quiet=1)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--variants", type=int, default=500)
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    compile_package()
    cli = _cli()
    floor = timed(floor_cmd(FILES), args.repeat)
    diff = timed([*cli, "diff", *FILES, "--no-color"], args.repeat)
    colour = timed([*cli, "diff", *FILES], args.repeat, FORCE_COLOR="1")  # rich writing colour codes
    helps = timed([*cli, "--help"], args.repeat)
    sweep = timed([*cli, "sweep", str(RUN), "--no-color"], args.repeat)
    bare = timed([sys.executable, "-c", "import json"], args.repeat)
    show = timed([*cli, "show", FILES[4], "--no-color"], args.repeat)
    library = timed([sys.executable, "-c", "import neuroncmp, neuroncmp.api"], args.repeat)
    folder = Path(tempfile.mkdtemp(prefix="neuroncmp-bench-"))
    try:
        paths = generate_sweep(folder, args.variants)
        in_library, json_floor = in_process(paths, max(1, args.repeat // 3))
        big_cli = timed([*cli, "diff", *paths, "--format", "json", "-o", str(folder / "out.json")],
                        max(1, args.repeat // 3))
    finally:
        shutil.rmtree(folder)
    ratios = {"diff": diff / floor, "diff (colour)": colour / floor, "help": helps / bare,
              "sweep": sweep / floor, "variants": in_library / json_floor}
    json_ = "python -c 'import json'"
    print(f"floor (python -c json.load x8): {floor * 1000:7.1f} ms")
    print(f"neuroncmp diff (8 profiles):     {diff * 1000:7.1f} ms  = {ratios['diff']:.1f}x floor "
          f"(target {TARGETS['diff']:g}x)")
    print(f"neuroncmp diff, colour:          {colour * 1000:7.1f} ms  = {ratios['diff (colour)']:.1f}x floor "
          "(target 8x)")
    print(f"neuroncmp --help:               {helps * 1000:7.1f} ms  = {ratios['help']:.1f}x {json_} "
          f"(target {TARGETS['help']:g}x)")
    print(f"neuroncmp sweep (run folder):   {sweep * 1000:7.1f} ms  = {ratios['sweep']:.1f}x floor "
          f"(target {TARGETS['sweep']:g}x)")
    print(f"neuroncmp show b32.json:        {show * 1000:7.1f} ms  = {show / bare:.1f}x {json_} "
          f"({bare * 1000:.1f} ms)")
    print(f"import neuroncmp (+ api), cold: {library * 1000:7.1f} ms  = {library / bare:.1f}x {json_}")
    print(f"{args.variants}-variant load+compare (library): {in_library * 1000:7.1f} ms  = "
          f"{ratios['variants']:.1f}x json-loading them ({json_floor * 1000:.1f} ms; target {TARGETS['variants']:g}x)")
    print(f"{args.variants}-variant diff CLI -> JSON file:   {big_cli * 1000:7.1f} ms (target "
          f"{CLI_VARIANTS_SECONDS * 1000:.0f} ms)")
    commands = {"--help": [*cli, "--help"], "diff": [*cli, "diff", *FILES, "--no-color"],
                "sweep": [*cli, "sweep", str(RUN), "--no-color"], "show": [*cli, "show", FILES[4], "--no-color"],
                "metrics": [*cli, "metrics", "--no-color"], "formats": [*cli, "formats"]}
    print("package modules imported: " + ", ".join(f"{name} {modules(cmd)}" for name, cmd in commands.items()))
    missed = [k for k, v in ratios.items() if v > TARGETS[k]]
    missed += ["variants CLI"] if big_cli > CLI_VARIANTS_SECONDS else []
    if missed:
        print(f"targets missed: {', '.join(missed)}")
    return 1 if args.check and missed else 0


if __name__ == "__main__":
    sys.exit(main())

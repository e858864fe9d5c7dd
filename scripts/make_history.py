"""Write a generated history of one profile: N summary-json runs plus a runs.csv listing.

    python scripts/make_history.py --runs 80 -o /tmp/history

Values follow ``neuroncmp.analysis.synthetic.history``: every time, cycle, fraction and rate
metric of ``--base`` (default: the bundled b32) varies with its own noise level (0.5-2 % by
default), 1.5 % of values are outliers, 3 % of runs are on a noisy node (every time metric 3-15 %
slow), and the shifts given by ``--shift METRIC:RUN:CHANGE`` (default: total_time +4 % and
dma_active_time +6 % from run 50; mfu_estimated_percent -4 % from run 50) are the truth to find.
Counts and bytes stay constant, as they do for one compiled graph. Times are one run a day. What
the profiler derives is derived (``synthetic.consistent``: each active-time share from its time and
the step's, so ``dma_active_time_percent`` moves by 1.06 / 1.04 at run 50), so every run loads with
no anomaly.
"""

from __future__ import annotations

import argparse
import csv
import json
import random
from datetime import datetime, timedelta, timezone
from pathlib import Path

from neuroncmp.analysis import synthetic
from neuroncmp.catalog import lookup

ROOT = Path(__file__).resolve().parent.parent
BASE = ROOT / "profiles" / "trn1-2xlarge-bs-sweep" / "b32.json"
VARYING_KINDS = ("time", "cycles", "fraction", "rate")
START = datetime(2025, 1, 1, 2, 0, tzinfo=timezone.utc)  # the first run's time; one run a day
DEFAULT_SHIFTS = ("total_time:50:0.04", "dma_active_time:50:0.06", "mfu_estimated_percent:50:-0.04")


def base_metrics(path: Path) -> tuple[str, dict[str, float]]:
    """The profile key and its numeric metrics."""
    ((key, block),) = json.loads(path.read_text()).items()
    return key, {k: v for k, v in block.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}


def generate(out: Path, runs: int, seed: int, shifts: dict[str, tuple[int, float]], base: Path = BASE,
             noise: float = 0.01, noisy_nodes: float = 0.03) -> synthetic.History:
    """Write ``runs`` profiles and ``runs.csv`` into ``out``; return the truth."""
    key, metrics = base_metrics(base)
    kinds = {name: lookup(name).kind for name in metrics}
    varying = {n for n, kind in kinds.items() if kind in VARYING_KINDS}
    slow = {n for n, kind in kinds.items() if kind in ("time", "cycles")}
    made = synthetic.history(random.Random(seed), metrics, runs, varying=varying, slow=slow,
                             shifts=shifts, noise=noise, noisy_node_rate=noisy_nodes)
    out.mkdir(parents=True, exist_ok=True)
    start = START
    rng = random.Random(seed + 1)
    with open(out / "runs.csv", "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["path", "time", "commit", "model", "instance"])
        for i, values in enumerate(made.runs):
            name = f"run-{i:05d}.json"
            block = {k: (round(v) if isinstance(metrics[k], int) else v) for k, v in values.items()}
            (out / name).write_text(json.dumps({key: block}))
            when = (start + timedelta(days=i)).isoformat().replace("+00:00", "Z")
            writer.writerow([name, when, f"{rng.getrandbits(28):07x}", "bert-large", "trn1.2xlarge"])
    return made


NAMINGS = ("neutral", "commit", "date", "run", "host")


def nightly_name(naming: str, model: str, batch: int, i: int, commit: str, when: datetime) -> str:
    """A run's file name as nightly jobs write them: ``neutral`` puts the commit in a folder
    (``<commit>/llama-1b-b8.json``), the others in the name itself (``llama-1b-b8-<commit>.json``,
    ``...-2025-01-03.json``, ``...-run-0042.json``, ``...-ip-10-0-3-17.json``)."""
    stem = f"{model}-b{batch}"
    parts = {"neutral": f"{commit}/{stem}.json", "commit": f"{stem}-{commit}.json",
             "date": f"{stem}-{when:%Y-%m-%dT%H-%M-%SZ}.json", "run": f"{stem}-run-{i:04d}.json",
             "host": f"{stem}-ip-10-0-{i % 7}-{(i * 37) % 251}.json"}
    return parts[naming]


def generate_fleet(out: Path, runs: int, seed: int, configs: list[tuple[str, int]],
                   naming: str = "neutral", shift_rate: float = 0.5, base: Path = BASE,
                   noise: float = 0.01) -> dict[tuple[str, int], synthetic.History]:
    """Nightly runs of several configurations (model, batch), files named by ``naming``, and a
    ``runs.csv`` listing (path, time, commit, model, batch). Each configuration's varying metrics
    shift with probability ``shift_rate``, by 4-8 % either way, at a run in the middle half. The
    values depend on ``seed`` and the configuration only, never on ``naming``: the same history
    under every naming. Returns each configuration's truth."""
    key, metrics = base_metrics(base)
    kinds = {name: lookup(name).kind for name in metrics}
    varying = {n for n, kind in kinds.items() if kind in VARYING_KINDS}
    slow = {n for n, kind in kinds.items() if kind in ("time", "cycles")}
    start = START
    commits = [f"{random.Random(seed + i).getrandbits(28):07x}" for i in range(runs)]
    truth: dict[tuple[str, int], synthetic.History] = {}
    rows = []
    related = synthetic.relations(metrics)
    for number, (model, batch) in enumerate(configs):
        rng = random.Random(seed * 1000 + number)
        shifts = fleet_shifts(rng, sorted(varying), runs, shift_rate, metrics, related)
        made = synthetic.history(rng, metrics, runs, varying=varying, slow=slow, shifts=shifts,
                                 noise=noise, noisy_node_rate=0.0)
        truth[(model, batch)] = made
        for i, values in enumerate(made.runs):
            when = start + timedelta(days=i)
            name = nightly_name(naming, model, batch, i, commits[i], when)
            block = {k: (round(v) if isinstance(metrics[k], int) else v) for k, v in values.items()}
            (out / name).parent.mkdir(parents=True, exist_ok=True)
            (out / name).write_text(json.dumps({key: block}))
            rows.append([name, when.isoformat().replace("+00:00", "Z"), commits[i], model, str(batch)])
    with open(out / "runs.csv", "w", newline="") as handle:
        csv.writer(handle).writerows([["path", "time", "commit", "model", "batch"], *rows])
    return truth


def fleet_shifts(rng: random.Random, names: list[str], runs: int, rate: float, base: dict[str, float],
                 related: synthetic.Relations) -> dict[str, tuple[int, float]]:
    """Each metric shifts with probability ``rate``, by 4-8 % either way, at a run in the middle half;
    a metric derived from others (an active-time share) is drawn for but not shifted (it follows
    what it is derived from), a fraction that 8 % more would take past 95 % only falls. The draws are
    the same for every metric whatever is kept, so the others' shifts stay as they were."""
    shifts = {}
    for name in names:
        if rng.random() >= rate:
            continue
        index, sign, size = rng.randint(runs // 4, 3 * runs // 4), rng.choice((-1, 1)), rng.uniform(0.04, 0.08)
        if name in related.derived:
            continue
        if name in related.fractions and base[name] * 1.08 > 0.95:
            sign = -1
        shifts[name] = (index, sign * size)
    return shifts


def parse_shift(text: str) -> tuple[str, tuple[int, float]]:
    metric, run, change = text.split(":")
    return metric, (int(run), float(change))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-o", "--out", type=Path, required=True)
    parser.add_argument("--runs", type=int, default=80)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--noisy-nodes", type=float, default=0.03, help="share of runs on a slow node")
    parser.add_argument("--shift", action="append", default=None, metavar="METRIC:RUN:CHANGE")
    parser.add_argument("--configs", default=None, metavar="MODEL:BATCH,...",
                        help="several configurations (llama-1b:8,llama-1b:16,...), each with random "
                             "shifts, instead of one b32 history with --shift's")
    parser.add_argument("--naming", choices=NAMINGS, default="neutral",
                        help="with --configs: what the file names carry besides model and batch")
    args = parser.parse_args()
    if args.configs:
        configs = [(m, int(b)) for m, _, b in (c.rpartition(":") for c in args.configs.split(","))]
        truth = generate_fleet(args.out, args.runs, args.seed, configs, args.naming)
        planted = sum(len(h.shifts) for h in truth.values())
        print(f"wrote {args.runs} runs of {len(configs)} configurations ({args.naming} names) and "
              f"runs.csv to {args.out}; {planted} planted shifts")
        return
    shifts = dict(parse_shift(s) for s in (args.shift or DEFAULT_SHIFTS))
    made = generate(args.out, args.runs, args.seed, shifts, noisy_nodes=args.noisy_nodes)
    print(f"wrote {args.runs} runs and runs.csv to {args.out}; noisy-node runs {list(made.noisy_runs)}")
    for metric, (run, change) in shifts.items():
        print(f"truth: {metric} {change:+.1%} from run {run}")


if __name__ == "__main__":
    main()

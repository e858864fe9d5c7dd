"""Write a generated history of one profile: N summary-json runs plus a runs.csv listing.

    python scripts/make_history.py --runs 80 -o /tmp/history

Values follow ``neuroncmp.analysis.synthetic.history``: every time, cycle, fraction and rate
metric of ``--base`` (default: the bundled b32) varies with its own noise level (0.5-2 % by
default), 1.5 % of values are outliers, 3 % of runs are on a noisy node (every time metric 3-15 %
slow), and the shifts given by ``--shift METRIC:RUN:CHANGE`` (default: total_time +4 % and
dma_active_time +6 % from run 50; mfu_estimated_percent -4 % from run 50) are the truth to find.
Counts and bytes stay constant, as they do for one compiled graph. Times are one run a day.
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
    start = datetime(2025, 1, 1, 2, 0, tzinfo=timezone.utc)
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
    args = parser.parse_args()
    shifts = dict(parse_shift(s) for s in (args.shift or DEFAULT_SHIFTS))
    made = generate(args.out, args.runs, args.seed, shifts, noisy_nodes=args.noisy_nodes)
    print(f"wrote {args.runs} runs and runs.csv to {args.out}; noisy-node runs {list(made.noisy_runs)}")
    for metric, (run, change) in shifts.items():
        print(f"truth: {metric} {change:+.1%} from run {run}")


if __name__ == "__main__":
    main()

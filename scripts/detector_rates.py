"""Measure the shift detector on generated histories with known truth (issue 13's targets).

    python scripts/detector_rates.py --count 20000

For each shift size (0: no shift; 2, 3, 5 noise sigmas) it generates ``--count`` series of
``--runs`` runs (``neuroncmp.analysis.synthetic``: Gaussian noise, 1.5 % outliers 6-10 sigma off,
noisy-node runs 3-15 % slow, a shift at least 20 runs from either end) and prints how many
shifts were found exactly and within 2 and 4 runs of the truth, how often the range of
candidate first runs (``Shift.earliest`` to ``Shift.latest``, 95 %) held the truth and its
median width in runs, how many series had any alarm, how many extra shifts were reported away
from the truth, and the time per series.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from neuroncmp.analysis import synthetic
from neuroncmp.analysis.shifts import ALPHA, detect_shifts

TARGETS = {0: "false alarms <= 1 %", 2: ">= 90 % within 4 runs",
           3: ">= 99 % within 2 runs; range holds >= 95 %, median width <= 3",
           5: ">= 99 % within 2 runs; range holds >= 95 %, median width <= 3"}


def measure(sigma: float, args: argparse.Namespace) -> dict[str, float]:
    rng = random.Random(f"{args.seed}/{sigma}")
    counts = {"exact": 0, "within 2": 0, "within 4": 0, "held": 0, "any alarm": 0, "extra": 0}
    widths: list[int] = []
    elapsed = 0.0
    for _ in range(args.count):
        slow = synthetic.noisy_runs(rng, args.runs, args.noisy_nodes)
        truth = synthetic.series(rng, args.runs, noise=args.noise, shift_sigma=sigma,
                                 margin=args.margin, outlier_rate=args.outliers, slow_runs=slow)
        start = time.perf_counter()
        shifts = detect_shifts(truth.values, alpha=args.alpha)
        elapsed += time.perf_counter() - start
        found = [shift.index for shift in shifts]
        counts["any alarm"] += bool(found)
        if truth.change_index is not None:
            counts["exact"] += synthetic.found(truth, found, 0)
            counts["held"] += synthetic.held(truth, shifts)
            widths += [s.latest - s.earliest + 1 for s in synthetic.nearest(truth, shifts)]
            counts["within 2"] += synthetic.found(truth, found, 2)
            counts["within 4"] += synthetic.found(truth, found, 4)
            counts["extra"] += sum(abs(i - truth.change_index) > 4 for i in found)
    rates = {key: value / args.count for key, value in counts.items()}
    rates["ms"] = elapsed / args.count * 1000
    rates["width"] = statistics.median(widths) if widths else float("nan")
    return rates


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=5000, help="series per shift size")
    parser.add_argument("--runs", type=int, default=80)
    parser.add_argument("--noise", type=float, default=0.01, help="relative noise sigma")
    parser.add_argument("--outliers", type=float, default=0.015, help="share of values 6-10 sigma off")
    parser.add_argument("--noisy-nodes", type=float, default=0.01, help="share of runs 3-15 %% slow")
    parser.add_argument("--margin", type=int, default=20, help="runs between a shift and either end")
    parser.add_argument("--alpha", type=float, default=ALPHA, help="the detector's significance level")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--sizes", type=float, nargs="+", default=list(TARGETS),
                        help="shift sizes in noise sigmas (0: no shift)")
    args = parser.parse_args()
    print(f"{args.count} series of {args.runs} runs per row, noise {args.noise:.1%}, outliers "
          f"{args.outliers:.1%}, noisy-node runs {args.noisy_nodes:.1%}, margin {args.margin}, "
          f"alpha {args.alpha}, seed {args.seed}")
    print(f"{'shift':>7} {'exact':>7} {'within 2':>9} {'within 4':>9} {'range holds':>12} "
          f"{'width':>6} {'any alarm':>10} {'extra/series':>13} {'ms/series':>10}  target")
    for sigma in args.sizes:
        r = measure(sigma, args)
        found = (f"{r['exact']:>7.2%} {r['within 2']:>9.2%} {r['within 4']:>9.2%} {r['held']:>12.2%} "
                 f"{r['width']:>6g}") if sigma else " " * 48  # no shift: nothing to find
        print(f"{sigma:>5g} σ {found} {r['any alarm']:>10.2%} {r['extra']:>13.4f} "
              f"{r['ms']:>10.3f}  {TARGETS.get(sigma, '')}")


if __name__ == "__main__":
    main()

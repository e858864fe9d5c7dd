"""Write generated ranks of one distributed step: one summary-json per rank, and the truth beside them.

    python scripts/make_ranks.py -o tests/data/ranks/before --ranks 8 --seed 3 --plant 5:vector-engine:0.06
    python scripts/make_ranks.py -o tests/data/ranks/after --ranks 8 --seed 4

Each rank is the real bundled profile ``--base`` (default: the trn1.2xlarge b32 summary-json) moved by
``neuroncmp.analysis.rank_synthetic.rank_set``: start skew and compute noise of 0.5 %, collective
noise of 3 % with a 2 % tail, the collectives of a synchronous step (every rank waits for the last
one), MFU/HFU/MBU scaled with the step, the profiler's derived values derived again, counts and bytes
unchanged (one graph). ``--plant RANK:CAUSE:SIZE`` adds SIZE x the base step to one rank (CAUSE: an
engine such as ``vector-engine``, ``DMA``, ``idle``, or ``collectives``: that rank starts earlier and
waits). Files are named ``profile_rank_<r>.json``, as ``neuron-profile capture`` names per-rank
profiles; every value not moved is the base file's own, as read.
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

from neuroncmp.analysis.rank_synthetic import CAUSES, Plant, rank_set

ROOT = Path(__file__).resolve().parent.parent
BASE = ROOT / "profiles" / "trn1-2xlarge-bs-sweep" / "b32.json"


def plant(text: str) -> Plant:
    rank, cause, size = text.split(":")
    named = {c.lower().replace(" ", "-"): c for c in CAUSES}
    return Plant(int(rank), named.get(cause.lower(), cause), float(size))


def generate(out: Path, ranks: int, seed: int, plants: list[Plant], base: Path = BASE) -> None:
    """``ranks`` files into ``out`` and the truth beside it (``<out>.truth.json``)."""
    ((key, block),) = json.loads(base.read_text()).items()
    numbers = {k: v for k, v in block.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
    out.mkdir(parents=True, exist_ok=True)
    for rank, values in enumerate(rank_set(random.Random(seed), numbers, ranks, plants)):
        moved = {k: round(v) if isinstance(numbers[k], int) else v for k, v in values.items()}
        (out / f"profile_rank_{rank}.json").write_text(json.dumps({key: {**block, **moved}}, indent=1) + "\n")
    truth = {"base": str(base.relative_to(ROOT)) if base.is_relative_to(ROOT) else str(base), "seed": seed,
             "ranks": ranks, "plants": [{"rank": p.rank, "cause": p.cause, "size_of_step": p.size} for p in plants]}
    (out.parent / f"{out.name}.truth.json").write_text(json.dumps(truth, indent=1) + "\n")  # beside: not a rank


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-o", "--out", type=Path, required=True)
    parser.add_argument("--ranks", type=int, default=8)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--plant", action="append", default=[], type=plant, metavar="RANK:CAUSE:SIZE")
    parser.add_argument("--base", type=Path, default=BASE)
    args = parser.parse_args()
    generate(args.out, args.ranks, args.seed, args.plant, args.base)


if __name__ == "__main__":
    main()

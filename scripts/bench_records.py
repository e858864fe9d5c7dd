#!/usr/bin/env python3
"""Why the records are NamedTuples (``neuroncmp/records.py``): what defining and creating one costs,
against ``@dataclass(frozen=True, slots=True)`` and a plain ``@dataclass(slots=True)``.

  python scripts/bench_records.py [--repeat 7]

Defining matters because the CLI defines about forty record types on every cold run; creating
matters because a 500-variant comparison creates about 100,000 deltas. Medians of ``--repeat``.
"""

from __future__ import annotations

import argparse
import statistics
import time
from dataclasses import dataclass
from typing import NamedTuple

FIELDS = ("basis", "baseline", "variant", "delta", "relative", "points", "ratio", "verdict", "p_value")


def define_namedtuple() -> type:
    return NamedTuple("Delta", [(name, object) for name in FIELDS])


def define_dataclass(frozen: bool) -> type:
    namespace = {"__annotations__": {name: object for name in FIELDS}}
    return dataclass(frozen=frozen, slots=True)(type("Delta", (), namespace))


def per_call(function, calls: int, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        began = time.perf_counter()
        for _ in range(calls):
            function()
        times.append((time.perf_counter() - began) / calls)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    kinds = {"NamedTuple": define_namedtuple, "dataclass(frozen, slots)": lambda: define_dataclass(True),
             "dataclass(slots)": lambda: define_dataclass(False)}
    values = tuple(range(len(FIELDS)))
    print(f"{'record kind':<26}{'define':>12}{'create':>12}")
    for name, define in kinds.items():
        defining = per_call(define, 200, args.repeat)
        cls = define()
        creating = per_call(lambda cls=cls: cls(*values), 100_000, args.repeat)
        print(f"{name:<26}{defining * 1e3:>9.3f} ms{creating * 1e6:>9.2f} us")


if __name__ == "__main__":
    main()

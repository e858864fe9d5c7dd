"""Operation tables: where a profile's time went, per engine x opcode, HLO op, layer or NKI source line.

Built only when asked for (``neuroncmp ops``): the summary-level commands never read the
per-instruction sections. Times are seconds; ``time`` (the union of an op's intervals) and
``instruction_time`` (their plain sum): docs/commands/ops.md ("Formulas").
"""

from __future__ import annotations

from typing import NamedTuple

LEVEL_NAMES = {"opcode": "engine x opcode", "hlo": "HLO op", "layer": "layer", "kernel": "NKI source line"}
# An engine waiting on a semaphore: the instruction spans the wait (up to the whole kernel on
# an idle engine), so it is shown apart from work and never counted as the op's time.
WAIT_OPCODES = frozenset({"EVENT_SEMAPHORE"})
WAITS_APART = "semaphore waits (EVENT_SEMAPHORE) are left out: they span the wait, not work"  # a table's note
NONE = "(none)"  # instructions the source ties to no HLO op / layer / source line


class Op(NamedTuple):
    """One operator of one profile at one level."""

    key: str                        # "Tensor MATMUL", an HLO op, a layer path, "file.py:12"
    instructions: int               # how many
    time: float                     # seconds: union of its instruction intervals
    instruction_time: float | None  # seconds: plain sum of its instruction durations
    flops: float | None = None
    bytes: float | None = None      # HBM bytes read + written
    wait: bool = False              # a semaphore wait, shown apart from work
    parent: str | None = None       # layers: the enclosing layer listed (its time includes this one)


class Graph(NamedTuple):
    """What identifies the compiled graph: the NEFF hash and the instruction count per engine."""

    neff_hash: str | None = None
    instructions: tuple[tuple[str, int], ...] = ()


class OpTable(NamedTuple):
    """A profile's operators at one level, and where they were read from."""

    level: str
    source: str
    ops: tuple[Op, ...]
    graph: Graph = Graph()
    notes: tuple[str, ...] = ()

    def work(self) -> tuple[Op, ...]:
        return tuple(op for op in self.ops if not op.wait)

    def by_key(self) -> dict[str, Op]:
        return {op.key: op for op in self.ops}

    def __repr__(self) -> str:
        return f"<OpTable {self.level} {len(self.ops)} ops from {self.source}>"


def nested_parent(key: str, keys: set[str]) -> str | None:
    """The nearest listed ancestor of layer path ``key`` (``/sg00`` for ``/sg00/_dot.3``)."""
    parts = key.split("/")
    for end in range(len(parts) - 1, 0, -1):
        if (ancestor := "/".join(parts[:end])) in keys:
            return ancestor
    return None

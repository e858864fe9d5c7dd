"""Operator-level comparison: which operators changed, by how much, and how much of the step-time change
each one explains. The noise rule (``diff``'s time band), contributions and the unexplained rest, suspect
operators, waits, layers and the ranking by what moved: docs/commands/ops.md."""

from __future__ import annotations

from typing import NamedTuple

from ..choices import ADDED, BETTER, LESS_WAITING, MORE_WAITING, REMOVED, SAMPLE, SUSPECT, WORSE
from ..ingest.ops.table import LEVEL_NAMES, NONE, Op, OpTable
from ..units import counted
from .bands import Band


class OpsSide(NamedTuple):
    """One side: its label, batch size, step time (seconds) and operator table."""

    label: str
    batch_size: int | None
    step_time: float | None
    table: OpTable
    step_doubt: str | None = None  # why the profile's step time is not used (step_time is None then)

    def per(self, basis: str) -> float:
        """What a time is divided by in ``basis``: the batch size per sample, else 1."""
        return float(self.batch_size) if basis == SAMPLE and self.batch_size else 1.0


class OpChange(NamedTuple):
    """One operator across baseline and variant (times in the comparison's basis, seconds)."""

    key: str
    baseline: float | None
    variant: float | None
    verdict: str
    counted: bool            # part of the contributions (False: a parent layer, a wait, a suspect op)
    baseline_op: Op | None
    variant_op: Op | None
    holds_others: bool = False  # a parent layer: its time includes its listed sub-layers'

    @property
    def change(self) -> float:
        """The contribution: variant minus baseline (an op on one side only: its whole time)."""
        return (self.variant or 0.0) - (self.baseline or 0.0)

    @property
    def relative(self) -> float | None:
        """The operator's own relative change (None on one side only, or from 0)."""
        if not self.baseline or self.variant is None:
            return None
        return self.variant / self.baseline - 1

    @property
    def time(self) -> float | None:
        """Its time on the side it has (the variant's, else the baseline's): what its share is of."""
        return self.variant if self.variant_op is not None else self.baseline


class OpsVariant(NamedTuple):
    """A variant against the baseline: operators ranked by contribution, waits apart."""

    side: OpsSide
    changes: tuple[OpChange, ...]
    waits: tuple[OpChange, ...]
    step_baseline: float | None
    step_variant: float | None
    graph_change: str | None

    @property
    def step_change(self) -> float | None:
        if self.step_baseline is None or self.step_variant is None:
            return None
        return self.step_variant - self.step_baseline

    @property
    def explained(self) -> float:
        return sum(c.change for c in self.changes if c.counted)

    @property
    def left_out(self) -> tuple[str, ...]:
        """The suspect operators: never scored, never in ``explained`` nor in the rest."""
        return tuple(c.key for c in self.changes if c.verdict == SUSPECT)

    @property
    def unexplained(self) -> float | None:
        """The step-time change no counted operator explains (overlap, idle time)."""
        step = self.step_change
        return None if step is None else round(step - self.explained, 12)  # to the picosecond: float dust

    def share_of_step(self, change: OpChange) -> float | None:
        """The operator's time over its side's step time (the variant's, or the baseline's for an
        operator only there); None without a step time, or for a suspect operator (its time is what is
        doubted: longer than the step)."""
        step = self.step_variant if change.variant_op is not None else self.step_baseline
        time = change.time
        return None if not step or time is None or change.verdict == SUSPECT else time / step

    def share_of_change(self, part: float | None) -> float | None:
        """``part`` (a contribution, the rest) over the step-time change; None when the step did
        not change or has no time."""
        step = self.step_change
        return None if not step or part is None else part / step


class OpsComparison(NamedTuple):
    """``neuroncmp ops``: the baseline against each variant at one level."""

    level: str
    basis: str
    baseline: OpsSide
    variants: tuple[OpsVariant, ...]
    band: Band
    notes: tuple[str, ...] = ()

    @property
    def step_doubts(self) -> tuple[str, ...]:
        """Each side's step time that is not used, and why (as ``diff`` names the anomaly)."""
        return tuple(side.step_doubt for side in (self.baseline, *(v.side for v in self.variants)) if side.step_doubt)

    def __repr__(self) -> str:
        return (f"<OpsComparison {self.level} per {self.basis}: {self.baseline.label} vs "
                f"{', '.join(v.side.label for v in self.variants)}>")


def compare_ops(baseline: OpsSide, variants: list[OpsSide], level: str, basis: str, band: Band) -> OpsComparison:
    notes = tuple(dict.fromkeys(n for side in (baseline, *variants) for n in side.table.notes))
    return OpsComparison(level, basis, baseline, tuple(_variant(baseline, v, basis, band) for v in variants),
                         band, notes)


def _variant(base: OpsSide, side: OpsSide, basis: str, band: Band) -> OpsVariant:
    work = _changes(base, side, basis, band, waits=False)
    step_b = None if base.step_time is None else base.step_time / base.per(basis)
    step_v = None if side.step_time is None else side.step_time / side.per(basis)
    waits = _changes(base, side, basis, band, waits=True)
    return OpsVariant(side, tuple(sorted(work, key=_rank)), tuple(sorted(waits, key=_rank)), step_b, step_v,
                      graph_change(base, side))


_TIERS = {WORSE: 0, BETTER: 0, ADDED: 0, REMOVED: 0, MORE_WAITING: 0, LESS_WAITING: 0, SUSPECT: 1}  # UNCHANGED: 2
_WAITING = {WORSE: MORE_WAITING, BETTER: LESS_WAITING}  # a wait's change is said, not scored


def _rank(change: OpChange) -> tuple[bool, int, float, str]:
    """Parent layers last; scored changes, then suspect, then unchanged; the largest change of the
    operator's own time first, growth and shrinkage alike."""
    return change.holds_others, _TIERS.get(change.verdict, 2), -abs(change.change), change.key


def _changes(base: OpsSide, side: OpsSide, basis: str, band: Band, waits: bool) -> list[OpChange]:
    before = {op.key: op for op in base.table.ops if op.wait == waits}
    after = {op.key: op for op in side.table.ops if op.wait == waits}
    parents = {op.parent for op in (*base.table.ops, *side.table.ops) if op.parent}
    out = []
    for key in dict.fromkeys([*before, *after]):
        b, v = before.get(key), after.get(key)
        tb = None if b is None else b.time / base.per(basis)
        tv = None if v is None else v.time / side.per(basis)
        verdict = _verdict(b, v, tb, tv, base, side, band)
        verdict = _WAITING.get(verdict, verdict) if waits else verdict
        counted = not waits and key not in parents and verdict != SUSPECT
        out.append(OpChange(key, tb, tv, verdict, counted, b, v, not waits and key in parents))
    return out


def _verdict(b: Op | None, v: Op | None, tb: float | None, tv: float | None, base: OpsSide,
             side: OpsSide, band: Band) -> str:
    if (b is not None and _impossible(b, base)) or (v is not None and _impossible(v, side)):
        return SUSPECT  # an op busier than the whole step: shown, never scored nor counted (as diff does)
    if b is None:
        return ADDED
    if v is None or tv is None or tb is None:
        return REMOVED
    return band.time_verdict(tb, tv)


def _impossible(op: Op, side: OpsSide) -> bool:
    return op.time < 0 or (side.step_time is not None and op.time > side.step_time * 1.0001)


def graph_change(base: OpsSide, side: OpsSide) -> str | None:
    """"the compiler changed the graph: 14 HLO ops only in b32, 3 only in the baseline (...)" when the
    two sides did not run the same graph (NEFF hash, instructions per engine, the set of ops)."""
    a, b = base.table, side.table
    level = LEVEL_NAMES[a.level]
    keys_a = {op.key for op in a.work() if op.key != NONE}
    keys_b = {op.key for op in b.work() if op.key != NONE}
    sizes = []
    if keys_b - keys_a or keys_a - keys_b:
        sizes.append(f"{counted(len(keys_b - keys_a), level)} only in {side.label}, "
                     f"{len(keys_a - keys_b) or 'none'} only in the baseline")
    why = []
    if a.graph.neff_hash and b.graph.neff_hash and a.graph.neff_hash != b.graph.neff_hash:
        why.append(f"NEFF hash {a.graph.neff_hash[:8]} -> {b.graph.neff_hash[:8]}")
    counts_a, counts_b = dict(a.graph.instructions), dict(b.graph.instructions)
    if counts_a and counts_b and counts_a != counts_b:
        why.append("instructions per engine " + ", ".join(
            f"{e} {counts_a.get(e, 0):,} -> {counts_b.get(e, 0):,}" for e in sorted({*counts_a, *counts_b})
            if counts_a.get(e, 0) != counts_b.get(e, 0)))
    if not sizes and not why:
        return None
    if sizes:
        return f"the compiler changed the graph: {sizes[0]}" + (f" ({'; '.join(why)})" if why else "")
    # the change is in why; the operators, when there are any, are on both sides
    same = f"; {counted(len(keys_a), level)} on both sides" if keys_a else ""
    return f"the compiler changed the graph: {'; '.join(why)}{same}"

"""``ops`` as one library call: ``ops_report(paths, OpsOptions(...))`` loads the profiles (their
summaries: step time, batch size, label), reads each one's operation table at the level asked for
(``ingest.ops``, only now) and compares them (``comparison.ops``); the CLI renders the result and
``nc.ops`` wraps it."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from .. import arguments
from ..choices import (
    AUTO,
    BASES,
    OPS_LEVELS,
    ORDERS,
    SAMPLE,
    STEP,
    Basis,
    OpsLevel,
    Order,
    check,
)
from ..comparison.bands import Band
from ..comparison.ops import OpsComparison, OpsSide
from ..errors import UsageError
from ..model import Profile
from ..records import NamedTuple, record

TOP = 20  # operators shown per variant by default (--top)


@dataclass(frozen=True, slots=True)
class OpsOptions:
    """Every option of ``ops``, checked when made (``UsageError`` naming the argument and, for a
    choice, every value it takes): ``level`` (``opcode``, ``hlo``, ``layer``, ``kernel``), ``top``
    operators shown per variant (None: all), ``baseline`` label, ``basis``, ``thresholds`` (noise
    bands for times, as for diff), ``order`` of the variants, ``format_in`` (the input format)."""

    level: OpsLevel = "opcode"
    top: int | None = TOP
    baseline: str | None = None
    basis: Basis = AUTO
    thresholds: tuple[str, ...] = ()
    order: Order = "batch"
    format_in: str | None = None
    band: Band = field(init=False, repr=False, compare=False)  # the time band the thresholds make

    def __post_init__(self) -> None:
        from ..comparison.bands import Bands

        fixed = object.__setattr__
        fixed(self, "level", check("level", self.level, OPS_LEVELS))
        if self.top is not None:
            fixed(self, "top", arguments.integer("top", self.top, 1, 10**9))
        arguments.optional_text("baseline", self.baseline)
        fixed(self, "basis", check("basis", self.basis, BASES))
        fixed(self, "thresholds", arguments.texts("thresholds", self.thresholds))
        fixed(self, "band", Bands(self.thresholds).for_kind("time"))  # checked before anything is read
        fixed(self, "order", check("order", self.order, ORDERS))
        arguments.optional_text("format_in", self.format_in)


@record
class OpsReport(NamedTuple):
    """What an ``ops`` renderer shows: the comparison, how many operators per variant, and what the
    set of inputs was read as (notes for standard error)."""

    comparison: OpsComparison
    top: int | None = TOP
    notes: tuple[str, ...] = ()

    def __repr__(self) -> str:
        return f"<OpsReport {self.comparison!r}>"


def ops_report(paths: Iterable[str | Path], options: OpsOptions) -> OpsReport:
    """Compare the operators of the baseline (the first path, or ``options.baseline``) with the others."""
    from ..comparison.ops import compare_ops
    from ..ingest import load_set

    profiles, said = load_set(paths, options.format_in)
    sides = _sides(_one_per_label(profiles), options)
    if len(sides) < 2:
        raise UsageError("ops compares a baseline with at least one variant: give two or more profiles")
    baseline = _baseline(sides, options.baseline)
    variants = [side for side in sides if side is not baseline]
    if options.order == "batch" and all(s.batch_size for s in variants):
        variants.sort(key=lambda s: s.batch_size or 0)
    comparison = compare_ops(baseline, variants, options.level, _basis(sides, options.basis), options.band)
    return OpsReport(comparison, options.top, tuple(said))


def _basis(sides: list[OpsSide], basis: str) -> str:
    """``auto``: per sample when every batch size is known and they differ, else per step."""
    sizes = {s.batch_size for s in sides}
    if basis == AUTO:
        return SAMPLE if len(sizes) > 1 and None not in sizes else STEP
    if basis == SAMPLE and None in sizes:
        raise UsageError("--basis sample needs every side's batch size (name files b8, b16, ...)")
    return basis


def _one_per_label(profiles: list[Profile]) -> list[Profile]:
    seen: dict[str, Profile] = {}
    for profile in profiles:  # one source per label (a multi-core Summary has one op table)
        seen.setdefault(profile.label, profile)
    return list(seen.values())


def _sides(profiles: list[Profile], options: OpsOptions) -> list[OpsSide]:
    from ..ingest.ops import read_ops

    sides = []
    for profile in profiles:
        step = profile.value("total_time")
        table = read_ops(profile.source.path, options.level, profile.label)
        sides.append(OpsSide(profile.label, profile.batch_size,
                             float(step) if isinstance(step, (int, float)) else None, table))
    return sides


def _baseline(sides: list[OpsSide], label: str | None) -> OpsSide:
    if label is None:
        return sides[0]
    for side in sides:
        if side.label == label:
            return side
    raise UsageError(f"--baseline '{label}': no profile has that label "
                     f"(labels: {', '.join(s.label for s in sides)})")

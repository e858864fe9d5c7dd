"""``neuroncmp ops`` as one library call: ``ops(paths, OpsOptions(...))`` loads the profiles
(their summaries: step time, batch size, label), reads each one's operation table at the level
asked for, and compares them (``ops.compare_ops``). The CLI and ``nc.ops`` both call it."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import NamedTuple

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
from ..errors import UsageError
from ..ingest import load_set
from ..ingest.ops import read_ops
from ..model import Profile
from ..records import record
from .bands import Bands
from .ops import OpsComparison, OpsSide, compare_ops


@record
class OpsOptions(NamedTuple):
    """What ``ops`` compares and how (the values ``neuroncmp ops`` takes)."""

    level: OpsLevel = "opcode"
    baseline: str | None = None
    basis: Basis = "auto"
    thresholds: tuple[str, ...] = ()
    order: Order = "batch"
    format_in: str | None = None

    def checked(self) -> OpsOptions:
        """The options, each checked against its vocabulary (``UsageError`` naming every choice)."""
        return self._replace(level=check("level", self.level, OPS_LEVELS), basis=check("basis", self.basis, BASES),
                             order=check("order", self.order, ORDERS))


DEFAULT = OpsOptions()


def ops(paths: Iterable[str | Path], options: OpsOptions = DEFAULT) -> tuple[OpsComparison, list[str]]:
    """The comparison and what the set of inputs was read as (notes for standard error)."""
    options = options.checked()
    profiles, said = load_set(paths, options.format_in)
    sides = _sides(_one_per_label(profiles), options)
    if len(sides) < 2:
        raise UsageError("ops compares a baseline with at least one variant: give two or more profiles")
    baseline = _baseline(sides, options.baseline)
    variants = [side for side in sides if side is not baseline]
    if options.order == "batch" and all(s.batch_size for s in variants):
        variants.sort(key=lambda s: s.batch_size or 0)
    basis: str = options.basis
    if basis == AUTO:
        sizes = {s.batch_size for s in sides}
        basis = SAMPLE if len(sizes) > 1 and None not in sizes else STEP
    elif basis == SAMPLE and any(not s.batch_size for s in sides):
        raise UsageError("--basis sample needs every side's batch size (name files b8, b16, ...)")
    band = Bands(options.thresholds).for_kind("time")
    return compare_ops(baseline, variants, options.level, basis, band), said


def _one_per_label(profiles: list[Profile]) -> list[Profile]:
    seen: dict[str, Profile] = {}
    for profile in profiles:  # one source per label (a multi-core Summary has one op table)
        seen.setdefault(profile.label, profile)
    return list(seen.values())


def _sides(profiles: list[Profile], options: OpsOptions) -> list[OpsSide]:
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

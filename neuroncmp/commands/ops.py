"""``ops`` as one library call: ``ops_report(paths, OpsOptions(...))`` loads the profiles (their
summaries: step time, batch size, label), reads each one's operation table at the level asked for
(``ingest.ops``, only now) and compares them (``comparison.ops``); the CLI renders the result and
``nc.ops`` wraps it."""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

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
from ..escape import quote
from ..model import Profile
from ..units import positive_number

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
    from ..ingest import load_set

    given = [str(path) for path in paths]
    _not_one_file(given)
    profiles, said = load_set(given, options.format_in)
    return profiles_report(profiles, options, tuple(said))


def profiles_report(profiles: Sequence[Profile], options: OpsOptions, notes: tuple[str, ...] = ()) -> OpsReport:
    """``ops_report`` of profiles already loaded (``nc.ops`` of profiles): each one's op table is read
    from the file it came from."""
    from ..comparison.ops import compare_ops

    named, said = _labelled(profiles)
    sides = _sides(named, options)
    if len(sides) < 2:
        _not_one_file([p.source.path for p in profiles if p.source.path])
        why = f" (the inputs read: {'; '.join(notes)})" if notes else ""  # a copy read once, say
        raise UsageError(f"ops compares a baseline with at least one variant: give two or more profiles{why}")
    baseline = _baseline(sides, options.baseline)
    variants = [side for side in sides if side is not baseline]
    if options.order == "batch" and all(s.batch_size for s in variants):
        variants.sort(key=lambda s: s.batch_size or 0)
    comparison = compare_ops(baseline, variants, options.level, _basis(sides, options.basis), options.band)
    return OpsReport(comparison, options.top, (*notes, *said))


def _not_one_file(paths: list[str]) -> None:
    """Every input the same file (``ops b32.json b32.json``, ``b32.json ./b32.json``, a link to it):
    one profile, nothing to compare it with; a ``UsageError`` saying so and what to give."""
    if len(paths) < 2:
        return
    try:
        one = all(os.path.samefile(paths[0], path) for path in paths[1:])
    except (OSError, ValueError):  # a path that does not exist: loading it names it
        return
    if one:
        again = next((p for p in paths[1:] if p != paths[0]), None)
        said = f"{quote(again)} is the same file as {quote(paths[0])}" if again else f"{quote(paths[0])} is given twice"
        raise UsageError(f"{said}: ops compares a baseline with a different profile; give the baseline's file, "
                         "then the variant's")


def _basis(sides: list[OpsSide], basis: str) -> str:
    """``auto``: per sample when every batch size is known and they differ, else per step."""
    sizes = {s.batch_size for s in sides}
    if basis == AUTO:
        return SAMPLE if len(sizes) > 1 and None not in sizes else STEP
    if basis == SAMPLE and None in sizes:
        raise UsageError("--basis sample needs every side's batch size (name files b8, b16, ...)")
    return basis


def _labelled(profiles: Sequence[Profile]) -> tuple[list[tuple[str, Profile]], list[str]]:
    """One side per file and label, each with a label of its own: profiles of one file sharing a
    label (a multi-core Summary) have one op table and are one side; files sharing a label
    (``run1/b32.json``, ``run2/b32.json``: the same batch on two compilers) are told apart by their
    folders (``run1/b32``, ``run2/b32``), never dropped. Notes say both."""
    by_label: dict[str, dict[str, list[Profile]]] = {}
    for profile in profiles:
        by_label.setdefault(profile.label, {}).setdefault(profile.source.path, []).append(profile)
    named, notes = [], []
    for label, files in by_label.items():
        names = _distinct(label, list(files)) if len(files) > 1 else [label]
        if len(files) > 1:
            notes.append(f"{len(files)} inputs share the label {label}: compared as {', '.join(names)}")
        for name, (path, found) in zip(names, files.items(), strict=True):
            if len(found) > 1:
                notes.append(f"{name}: {len(found)} profiles in {path}, one op table: compared once")
            named.append((name, found[0]))
    return named, notes


def _distinct(label: str, paths: list[str]) -> list[str]:
    """``label`` under as many of each path's folders as tell the paths apart (``run1/b32``)."""
    folders = [Path(path).parent.parts for path in paths]
    for depth in range(1, max(map(len, folders)) + 1):
        names = ["/".join([*parts[-depth:], label]) for parts in folders]
        if len(set(names)) == len(names):
            return names
    return [f"{label}#{number}" for number in range(1, len(paths) + 1)]


def _sides(named: list[tuple[str, Profile]], options: OpsOptions) -> list[OpsSide]:
    from ..ingest.ops import read_ops

    sides = []
    for label, profile in named:
        if not profile.source.path:
            raise UsageError(f"profile {label!r} has no source file to read its operation tables from")
        step, doubt = _step(profile, label)
        table = read_ops(profile.source.path, options.level, profile.label)
        sides.append(OpsSide(label, profile.batch_size, step, table, doubt))
    return sides


def _step(profile: Profile, label: str) -> tuple[float | None, str | None]:
    """The step time, and why it is not used when it is not: an anomaly naming ``total_time`` (what
    ``diff`` marks suspect and never scores), or a value that is not a finite number above 0."""
    doubts = [f"{a.message} [{a.code}]" for a in profile.anomalies if a.metric == "total_time"]
    value = profile.value("total_time")
    if not doubts and positive_number(value):
        return float(value), None
    if not doubts and isinstance(value, (int, float)):
        doubts = [f"total_time is {value!r}"]
    if doubts:
        return None, f"{label}: {'; '.join(doubts)}: step time not used (its shares are not computed)"
    return None, None


def _baseline(sides: list[OpsSide], label: str | None) -> OpsSide:
    if label is None:
        return sides[0]
    for side in sides:
        if side.label == label:
            return side
    raise UsageError(f"--baseline '{label}': no profile has that label "
                     f"(labels: {', '.join(s.label for s in sides)})")

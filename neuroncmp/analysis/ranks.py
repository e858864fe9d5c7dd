"""One distributed step across its ranks: the per-rank table, the distribution, the outliers and why. The
quantities, the outlier rule (``Z_LIMIT`` robust sigmas AND outside the time noise band) and how an
outlier's excess is broken down: docs/commands/ranks.md ("The straggler rule")."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..comparison.bands import Band
from ..ingest.ranks import RankId
from ..model import Profile
from ..stats import median, robust_sigma
from ..units import finite_number

Z_LIMIT = 3.5   # modified z-score beyond which a value is an outlier (Iglewicz & Hoaglin)
CAUSE_SHARE = 0.5  # a part is the cause when it accounts for at least half of the excess
STEP, COLLECTIVES, OUTSIDE = "step", "collectives", "outside collectives"
COLLECTIVE_SOURCES = ("cc_op_active_time", "cc_op_time")
PARTS = {"tensor_engine_active_time": "tensor engine", "vector_engine_active_time": "vector engine",
         "scalar_engine_active_time": "scalar engine", "gpsimd_engine_active_time": "GpSimd engine",
         "sync_engine_active_time": "sync engine", "dma_active_time": "DMA"}
IDLE = "idle"
COLLECTIVE_METRICS = ("cc_op_time", "cc_op_active_time", "cc_cores_instruction_time",
                      "cc_cores_instruction_active_time")
WORK = ("hardware_flops", "model_flops")  # what the rank was asked to do: one graph, one amount


@dataclass(frozen=True, slots=True)
class RankRow:
    """One rank's numbers (seconds, fractions); None where the profile lacks the input."""

    id: RankId
    label: str
    step: float | None
    collectives: float | None
    collectives_from: str | None
    mfu: float | None
    hfu: float | None
    mbu: float | None
    parts: Mapping[str, float]

    @property
    def outside(self) -> float | None:
        return None if self.step is None or self.collectives is None else self.step - self.collectives

    @property
    def share(self) -> float | None:
        return None if self.collectives is None or not self.step else self.collectives / self.step

    def quantity(self, name: str) -> float | None:
        return {STEP: self.step, COLLECTIVES: self.collectives, OUTSIDE: self.outside}[name]


@dataclass(frozen=True, slots=True)
class Spread:
    """A quantity across ranks: median, 90th percentile, max, max/median, robust sigma, min."""

    name: str
    count: int
    median: float
    p90: float
    max: float
    sigma: float
    min: float

    @property
    def max_over_median(self) -> float | None:
        return self.max / self.median if self.median else None


@dataclass(frozen=True, slots=True)
class Outlier:
    """A rank beyond the rule: ``kinds`` (slow step, late), its excess over the median step and
    outside collectives, the parts' deltas against their medians, and the cause."""

    row: RankRow
    kinds: tuple[str, ...]
    step_excess: float
    outside_excess: float | None
    collectives_delta: float | None
    parts: tuple[tuple[str, float], ...]   # (part, delta s), largest first
    idle: float | None
    cause: str
    z: Mapping[str, float]


@dataclass(frozen=True, slots=True)
class RanksAnalysis:
    """The step across ranks: unlike ranks first, then the rows, spreads, outliers, collectives."""

    rows: tuple[RankRow, ...]
    unlike: tuple[tuple[RankRow, str], ...]
    spreads: Mapping[str, Spread]
    outliers: tuple[Outlier, ...]
    collectives: tuple[Spread, ...]
    band: Band
    how: str
    notes: tuple[str, ...] = ()
    operations: tuple[Spread, ...] = ()  # per collective operation (Explorer's CcOp), widest range first


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q`` quantile by linear interpolation between the closest ranks (numpy's default)."""
    ordered = sorted(values)
    at = (len(ordered) - 1) * q
    low = int(at)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (at - low)


def spread(name: str, values: Sequence[float]) -> Spread:
    return Spread(name, len(values), median(list(values)), percentile(values, 0.9), max(values),
                  robust_sigma(list(values)), min(values))


def _number(profile: Profile, name: str) -> float | None:
    """``name``'s value as a float; None where it is missing or not a finite number (a NaN or an
    infinity kept as read would poison every rank's median, p90 and sigma)."""
    value = profile.values.all.get(name)
    number = None if value is None else value.value
    return float(number) if finite_number(number) else None


def rank_row(rank: RankId, profile: Profile) -> RankRow:
    source = next((name for name in COLLECTIVE_SOURCES if _number(profile, name) is not None), None)
    parts = {name: value for name in PARTS if (value := _number(profile, name)) is not None}
    return RankRow(rank, profile.label, _number(profile, "total_time"),
                   None if source is None else _number(profile, source), source,
                   _number(profile, "mfu_estimated_percent"), _number(profile, "hfu_estimated_percent"),
                   _number(profile, "mbu_estimated_percent"), parts)


def analyse(ranks: Sequence[RankId], profiles: Sequence[Profile], band: Band, how: str,
            operations: Mapping[tuple[int | str, ...], Mapping[str, float]] | None = None) -> RanksAnalysis:
    """The step across ``profiles`` (one per rank, ``ranks`` their ids), outliers judged with ``band``;
    ``operations``: per rank (by key), each collective operation's time, where the input has it."""
    rows = sorted((rank_row(r, p) for r, p in zip(ranks, profiles, strict=True)), key=lambda row: row.id.key)
    like, unlike = split_unlike(rows, profiles_by_key(ranks, profiles))
    notes = _lacking(like)
    usable = [row for row in like if row.step is not None]
    spreads = {name: spread(name, values) for name in (STEP, COLLECTIVES, OUTSIDE)
               if (values := [v for row in usable if (v := row.quantity(name)) is not None])}
    outliers = tuple(o for row in usable if (o := outlier(row, usable, spreads, band)) is not None)
    collectives = _collectives(like, profiles_by_key(ranks, profiles))
    return RanksAnalysis(tuple(like), tuple(unlike), spreads, outliers, collectives, band, how, tuple(notes),
                         _operations(like, operations or {}))


def profiles_by_key(ranks: Sequence[RankId], profiles: Sequence[Profile]) -> dict[tuple[int | str, ...], Profile]:
    return {rank.key: profile for rank, profile in zip(ranks, profiles, strict=True)}


def _lacking(rows: list[RankRow]) -> list[str]:
    notes = []
    if no_step := [row.id.name for row in rows if row.step is None]:
        notes.append(f"no total_time (missing, or not a finite number) in {', '.join(no_step)}: left out of "
                     "the distribution and outliers")
    if no_cc := [row.id.name for row in rows if row.collectives is None]:
        notes.append(f"no finite cc_op_active_time or cc_op_time in {', '.join(no_cc)}: collectives and the time "
                     "outside them not computed there (late ranks cannot be found without them)")
    return notes


def split_unlike(rows: list[RankRow], by_key: Mapping[tuple[int | str, ...], Profile]
                 ) -> tuple[list[RankRow], list[tuple[RankRow, str]]]:
    """The ranks that ran the step's graph, and those that did not with why: the step's graph is the
    NEFF most ranks ran (``neff_hash``), else the work most ranks were asked to do (hardware and model
    FLOPs, to 4 significant figures as the profiler prints them); ties go to the lowest rank."""
    signatures = {row.id.key: _signature(by_key[row.id.key]) for row in rows}
    counts = Counter(signatures.values())
    common = max(counts, key=lambda s: counts[s])  # first seen among the most common: rows are in rank order
    like = [row for row in rows if signatures[row.id.key] == common]
    unlike = [(row, _why(signatures[row.id.key], common, counts[common])) for row in rows
              if signatures[row.id.key] != common]
    return like, unlike


def _signature(profile: Profile) -> tuple[str, ...]:
    graph = profile.metadata.get("neff_hash") or profile.metadata.get("neff_name")
    if graph:
        return (f"graph {graph}",)
    return tuple(f"{name} {value:.4g}" for name in WORK if (value := _number(profile, name)) is not None)


def _why(signature: tuple[str, ...], common: tuple[str, ...], count: int) -> str:
    return (f"ran different work ({', '.join(signature) or 'none stated'}) from the {count} ranks of "
            f"the step ({', '.join(common) or 'none stated'}): left out of the distribution")


def z_score(value: float, spread: Spread) -> float:
    """The modified z-score; infinite for a value off a median every other rank sits on (sigma 0)."""
    if spread.sigma > 0:
        return (value - spread.median) / spread.sigma
    return 0.0 if value == spread.median else float("inf") if value > spread.median else float("-inf")


def beyond(value: float, spread: Spread, band: Band) -> bool:
    """The rule: above the median by more than ``Z_LIMIT`` robust sigmas and outside the noise band."""
    return z_score(value, spread) > Z_LIMIT and not band.inside(spread.median, value)


def outlier(row: RankRow, rows: Sequence[RankRow], spreads: Mapping[str, Spread], band: Band) -> Outlier | None:
    """``row`` as an outlier when the rule flags its step or its time outside collectives (a row
    without a step is never one: it is left out before)."""
    kinds = tuple(kind for kind, name in (("slow step", STEP), ("late", OUTSIDE))
                  if (value := row.quantity(name)) is not None and name in spreads
                  and beyond(value, spreads[name], band))
    step_excess = _delta(row, spreads, STEP)
    if not kinds or step_excess is None:
        return None
    outside, cc = _delta(row, spreads, OUTSIDE), _delta(row, spreads, COLLECTIVES)
    parts = _part_deltas(row, rows)
    idle = None if outside is None else outside - max([0.0, *(d for _, d in parts)])
    z = {name: z_score(value, spreads[name]) for name in spreads if (value := row.quantity(name)) is not None}
    return Outlier(row, kinds, step_excess, outside, cc, parts, idle,
                   _cause(kinds, step_excess, cc, outside, parts), z)


def _delta(row: RankRow, spreads: Mapping[str, Spread], name: str) -> float | None:
    """The row's ``name`` less the ranks' median of it; None where either is missing."""
    value = row.quantity(name)
    return None if value is None or name not in spreads else value - spreads[name].median


def _part_deltas(row: RankRow, rows: Sequence[RankRow]) -> tuple[tuple[str, float], ...]:
    deltas = []
    for name, value in row.parts.items():
        others = [r.parts[name] for r in rows if name in r.parts]
        deltas.append((PARTS[name], value - median(others)))
    return tuple(sorted(deltas, key=lambda part: -part[1]))


def _cause(kinds: tuple[str, ...], step_excess: float, cc: float | None, outside: float | None,
           parts: tuple[tuple[str, float], ...]) -> str:
    """Collectives when the rank's step is slow and its collectives account for half its excess;
    else the largest part outside collectives if it accounts for half of that excess; else idle."""
    if "slow step" in kinds and cc is not None and cc >= CAUSE_SHARE * step_excess:
        return COLLECTIVES
    excess = outside if outside is not None else step_excess
    if parts and parts[0][1] >= CAUSE_SHARE * excess:
        return parts[0][0]
    return IDLE


def _collectives(rows: Sequence[RankRow],
                 by_key: Mapping[tuple[int | str, ...], Profile]) -> tuple[Spread, ...]:
    """Each collective metric across the ranks, the one whose range is widest against its median first."""
    found = []
    for name in COLLECTIVE_METRICS:
        values = [v for row in rows if (v := _number(by_key[row.id.key], name)) is not None]
        if len(values) > 1:
            found.append(spread(name, values))
    return tuple(sorted(found, key=lambda s: -relative_range(s)))


def _operations(rows: Sequence[RankRow],
                operations: Mapping[tuple[int | str, ...], Mapping[str, float]]) -> tuple[Spread, ...]:
    """Each collective operation's time across the ranks that have it (an operation a rank lacks counts
    0 there when the rank has others: it ran none of it), the widest range against its median first."""
    having = [operations[row.id.key] for row in rows if row.id.key in operations]
    if len(having) < 2:
        return ()
    names = dict.fromkeys(name for ops in having for name in ops)
    found = [spread(name, [ops.get(name, 0.0) for ops in having]) for name in names]
    return tuple(sorted(found, key=lambda s: -relative_range(s)))


def relative_range(s: Spread) -> float:
    """(max - min) / median: how far apart the ranks are, against the typical rank."""
    return (s.max - s.min) / s.median if s.median else 0.0

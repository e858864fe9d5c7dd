"""Which profiles form the batch-size axis of a sweep, and what each point measured: the largest set of
sides that share one configuration (docs/commands/sweep.md, "The axis")."""

from __future__ import annotations

from collections.abc import Mapping
from itertools import chain
from typing import NamedTuple

from .. import per_sample as basis
from ..comparison.result import Side, suspects
from ..model import finite_numbers
from ..stats import median


class MissingValue(LookupError):
    """Internal error: ``Point.number`` asked for a value the caller should have checked was there."""


class Point(NamedTuple):
    """One batch size on the axis: its sides, and every numeric value per step (medians of captures)."""

    batch_size: int
    labels: tuple[str, ...]
    sides: tuple[Side, ...]
    values: Mapping[str, float]
    inferred: bool                    # the batch size was inferred, not stated
    suspects: Mapping[str, str]       # metric -> why its value here cannot be trusted (input anomalies)

    @property
    def label(self) -> str:
        return "/".join(self.labels)

    def get(self, name: str) -> float | None:
        return self.values.get(name)

    def number(self, name: str) -> float:
        """The value of ``name``, for a caller that has already checked it is here (``trusted``)."""
        value = self.values.get(name)
        if value is None:
            raise MissingValue(f"internal error: {name} is not measured at {self.label}; the caller should check")
        return value

    def trusted(self, *names: str) -> bool:
        """Every one of ``names`` is here and carries no input anomaly."""
        return all(name in self.values and name not in self.suspects for name in names)

    def per_sample(self, name: str) -> float | None:
        return basis.per_sample(self.values.get(name), self.batch_size)

    def __repr__(self) -> str:
        return f"<Point b{self.batch_size} {self.label}: {len(self.values)} values>"


class Axis(NamedTuple):
    points: tuple[Point, ...]            # ascending batch size
    alternatives: tuple[Side, ...]       # other configurations (tags) at some batch size
    unknown: tuple[str, ...]             # labels without a batch size
    notes: tuple[str, ...]


def at_every(labels: tuple[str, ...] | list[str], all_points: int) -> str:
    """``at every batch size`` when ``labels`` are all ``all_points`` points of the axis and there
    are several; ``at b32`` for the one point of a single profile (a diff of two files at one batch
    size); else ``at b2, b8``."""
    return "at every batch size" if len(labels) == all_points > 1 else "at " + ", ".join(labels)


def configuration(side: Side) -> tuple[str, ...]:
    """The tags that name the side's configuration: those its label carries (``cc-optim``)."""
    tags = side.profiles[0].params.get("tags") or []
    return tuple(sorted(str(tag) for tag in tags if str(tag) in side.label))


def axis(sides: list[Side]) -> Axis:
    """The batch-size axis of ``sides``: its points, the alternatives, the sides left out and notes."""
    known = [side for side in sides if side.batch_size]
    groups: dict[tuple[str, ...], list[Side]] = {}
    for side in known:
        groups.setdefault(configuration(side), []).append(side)
    main = max(groups.values(), key=lambda g: (len({s.batch_size for s in g}), len(g)), default=[])
    by_batch: dict[int, list[Side]] = {}
    for side in main:
        if side.batch_size:  # every side of ``known`` has one; this narrows it for the type checker
            by_batch.setdefault(side.batch_size, []).append(side)
    points = tuple(_point(batch, group) for batch, group in sorted(by_batch.items()))
    notes = tuple(f"b{p.batch_size}: {' and '.join(p.labels)} merged (median of their values)"
                  for p in points if len(p.labels) > 1)
    on_axis = {side.label for side in main}
    alternatives = tuple(side for side in known if side.label not in on_axis)
    unknown = tuple(side.label for side in sides if not side.batch_size)
    return Axis(points, alternatives, unknown, notes)


def _point(batch: int, sides: list[Side]) -> Point:
    inferred = any(side.batch_size_inferred for side in sides)
    doubts = {name: why for side in sides for name, why in suspects(side).items()}
    return Point(batch, tuple(side.label for side in sides), tuple(sides), medians(sides), inferred, doubts)


def medians(sides: list[Side]) -> dict[str, float]:
    """Every numeric value of ``sides`` by name, the median of their captures."""
    every = [profile.values.all for side in sides for profile in side.profiles]
    collected: dict[str, list[float]] = {name: [] for name in dict.fromkeys(chain.from_iterable(every))}
    for values in every:  # the names in order of first appearance, usable or not, as read
        for name, value in finite_numbers(values).items():
            collected[name].append(value)
    return {name: median(numbers) for name, numbers in collected.items() if numbers}

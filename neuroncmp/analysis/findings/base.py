"""What a finding is, what a rule may look at (``Context``), and the one small interface every rule
implements: it returns a ``Finding`` (it fired: the values that fired it, an estimated impact with its
formula, an action), a ``Passed`` (the numbers that cleared it) or a ``NotRun`` (the input it lacks: it
does not guess). The rules and their impacts: docs/findings.md."""

from __future__ import annotations

from typing import NamedTuple, Protocol

from ...comparison.result import Side
from .. import fits
from ..bounds import Bounds
from ..capture_bound import OomBound
from ..roofline import Roof, RooflinePoint
from ..series import Point
from ..table import TableRow

PERFORMANCE, BATCH, QUALITY = "performance", "batch size", "data quality"


class Context(NamedTuple):
    """Everything a finding rule may look at: the sweep's points, models, roof and table (built once)."""

    points: tuple[Point, ...]
    sides: tuple[Side, ...]
    focus: Point                       # the point findings are about (the recommendation's)
    step_fit: fits.StepFit | None
    knee: fits.Knee | None
    memory: fits.MemoryForecast | None
    intensity: fits.IntensityModel | None
    spill: fits.SpillOnset | None
    roof: Roof
    roofline: tuple[RooflinePoint, ...]
    table: tuple[TableRow, ...]
    bounds: tuple[Bounds, ...] = ()    # per point, in the points' order
    oom_bound: OomBound | None = None  # the smallest batch size that ran out of memory at capture

    def point_of(self, batch: int) -> Point:
        return next(p for p in self.points if p.batch_size == batch)


class Evidence(NamedTuple):
    """A value that fired (or cleared) a rule: ``spill_reload_share`` at b64 = 86.2 % (> 25 %)."""

    metric: str
    where: str          # the point or variant ("b64")
    value: float | str
    unit: str
    note: str = ""      # the threshold or comparison it was held against


class Impact(NamedTuple):
    """An estimated gain: ``share`` of ``of`` (step time, end-to-end throughput), and its formula."""

    share: float        # 0-1: the part of ``of`` at stake
    of: str             # "device step time", "end-to-end step time", "device throughput"
    amount: float       # in ``unit`` (seconds per step, samples/s)
    unit: str
    formula: str
    at_least: bool = False  # a lower bound ("at least 5.0 %"), not the most at stake ("up to")


class Finding(NamedTuple):
    rule: str
    category: str
    title: str                    # one line, with the key numbers
    where: tuple[str, ...]        # the points it fires at (labels)
    evidence: tuple[Evidence, ...]
    impact: Impact | None
    action: str
    parent: str | None = None     # the rule whose share this one's impact is part of
    # points past the threshold too but not counted in ``where``: (label, why: the suspect value)
    set_aside: tuple[tuple[str, str], ...] = ()

    def __repr__(self) -> str:
        share = f", impact {self.impact.share:.0%} of {self.impact.of}" if self.impact else ""
        title = self.title if len(self.title) <= 80 else self.title[:79] + "…"
        return f"<Finding {self.rule}: {title}{share}>"


class Passed(NamedTuple):
    rule: str
    reason: str                   # the numbers that cleared it


class NotRun(NamedTuple):
    rule: str
    reason: str                   # the inputs it lacked


Outcome = Finding | Passed | NotRun


class Rule(Protocol):
    """One rule: ``id`` names it, ``apply`` decides (None: the input holds nothing the rule is
    about, such as a capture record for ``capture-bound``: nothing to say, not even that it passed)."""

    id: str

    def apply(self, context: Context) -> Outcome | None: ...

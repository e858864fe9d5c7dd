"""What a finding rule may look at: the sweep's points, models, roof and table (a value, built once)."""

from __future__ import annotations

from typing import NamedTuple

from ..comparison.result import Side
from . import fits
from .bounds import Bounds
from .capture_bound import OomBound
from .roofline import Roof, RooflinePoint
from .series import Point
from .table import TableRow


class Context(NamedTuple):
    """Everything a finding rule may look at."""

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

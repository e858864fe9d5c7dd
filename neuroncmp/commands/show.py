"""``show`` as one library call: ``show_report(paths, ShowOptions(...))``, every profile in the paths
(files, run folders, Explorer folders) with what the set was read as."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from .. import arguments
from ..analysis.side_bounds import Overrides, bounds_for, overrides
from ..comparison.result import Side
from .documents import Loaded


@dataclass(frozen=True, slots=True)
class ShowOptions:
    """``format``: force an input parser (``neuroncmp formats`` lists them); None: by suffix and content.
    ``peak_flops``, ``hbm_bandwidth``, ``dma_bandwidth`` (base units): the bounds' peaks, None: each
    profile's own (``analysis/peaks.py``)."""

    format: str | None = None
    peak_flops: float | None = None
    hbm_bandwidth: float | None = None
    dma_bandwidth: float | None = None

    def __post_init__(self) -> None:
        arguments.optional_text("format", self.format)
        given = overrides(None, None, self.peak_flops, self.hbm_bandwidth, self.dma_bandwidth)
        for peak in ("peak_flops", "hbm_bandwidth", "dma_bandwidth"):
            object.__setattr__(self, peak, getattr(given, peak))


def show_report(paths: Iterable[str | Path], options: ShowOptions) -> Loaded:
    """The profiles in ``paths``, in order, the notes on how the set was read, and what bounds each step."""
    from ..ingest import load_set

    profiles, notes = load_set(paths, options.format)
    given = Overrides(options.peak_flops, options.hbm_bandwidth, dma_bandwidth=options.dma_bandwidth)
    found = bounds_for((Side.of(p.label, (p,)) for p in profiles), given)
    return Loaded(tuple(profiles), tuple(notes), found)

"""The Python API for scripts and notebooks: the pipeline's functions with results that show themselves.

The compute layers return plain immutable values and know nothing of display. This module sits
on top, beside the CLI: ``compare()`` returns the same ``Comparison`` as ``comparison.compare``, as a
subclass that also carries the rows to show (a ``View``) and renders itself in Jupyter
(``_repr_html_``) or as a tidy pandas frame (``to_frame``, pandas imported only there).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Iterable

from .comparison import differ
from .comparison import result as _result
from .comparison.bands import Bands
from .comparison.sides import ProfileInput
from .comparison.view import View, select
from .ingest import load, load_many

__all__ = ["load", "load_many", "compare", "Comparison"]


@dataclass(frozen=True, slots=True, repr=False)  # keeps the short repr of the result
class Comparison(_result.Comparison):
    """A comparison (see ``compare.result.Comparison``) with the view a notebook shows of it."""

    view: View | None = None

    def select(self, *, groups: Iterable[str] = (), metrics: Iterable[str] = (),
               only_changed: bool = False, sort: str = "group") -> "Comparison":
        """The same comparison showing other rows (``groups``, ``metrics`` globs, ...)."""
        return replace(self, view=select(self, groups=groups, metrics=metrics,
                                         only_changed=only_changed, sort=sort))

    def _report(self) -> Any:
        from .render.base import DiffReport

        return DiffReport.of(self, self.view)

    def to_frame(self) -> Any:
        """A tidy pandas DataFrame, one row per metric x variant x basis (pandas imported here)."""
        from .render.frame import to_frame

        return to_frame(self._report())

    def _repr_html_(self) -> str:
        from .render.formats.html import fragment

        return fragment(self._report())


def compare(*profiles: ProfileInput, baseline: str | None = None, basis: str = "auto",
            thresholds: Bands | Iterable[str] = (), groups: Iterable[str] = (),
            metrics: Iterable[str] = (), only_changed: bool = False, sort: str = "group") -> Comparison:
    """Compare the baseline (the first label, or ``baseline``) against every other label.

    ``profiles`` are profiles or lists of them (a ``load()`` result); ``thresholds`` noise
    bands (``"time=2%"``); ``groups``, ``metrics``, ``only_changed`` and ``sort`` choose the rows
    shown (the result always holds every row).
    """
    plain = differ.compare(*profiles, baseline=baseline, basis=basis, thresholds=thresholds)
    values = {name: getattr(plain, name) for name in _result.Comparison.__dataclass_fields__}
    made = Comparison(**values)
    return made.select(groups=groups, metrics=metrics, only_changed=only_changed, sort=sort)

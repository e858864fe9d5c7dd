"""The results the Python API returns: the pipeline's own values, as subclasses that show themselves
(docs/python.md). The compute layers return plain values and know nothing of display; these live
above ``render/`` and call into it, importing pandas, matplotlib and rich only when asked.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, fields, replace
from importlib import import_module
from typing import TYPE_CHECKING, Any

from ..analysis import sweep as _sweep
from ..analysis.findings import base as _base
from ..arguments import TEXT_WIDTHS, choice, flag, integer, texts
from ..choices import Sort
from ..commands.documents import DiffReport
from ..comparison import result as _result
from ..comparison.view import View, select
from ..model import Profile as _Profile

if TYPE_CHECKING:
    from ..commands.diff import DiffOptions


class Profile(_Profile):
    """A loaded profile (``model.Profile``) that shows itself in notebooks and as frames."""

    @classmethod
    def of(cls, profile: _Profile) -> Profile:
        """The same profile (its fields shared, not copied) as this class."""
        return profile if isinstance(profile, cls) else profile.recast(cls)

    def to_frame(self) -> Any:
        """One row per metric (derived ones included): value in its base unit, unit, display text."""
        from ..render.frame import profile_frame

        return profile_frame(self)

    def memory_frame(self) -> Any:
        """The device memory table: device, core, usage type, label, bytes."""
        from ..render.frame import memory_frame

        return memory_frame(self)

    def _repr_html_(self) -> str:
        from ..render.formats.html import profile_fragment

        return profile_fragment(self)

    def __rich_console__(self, console: Any, options: Any) -> Any:
        yield from drawn("profiles", [self], options)


@dataclass(frozen=True, slots=True, repr=False)  # keeps the short repr of the result
class Comparison(_result.Comparison):
    """A comparison (``comparison.result.Comparison``) with the rows a notebook shows of it."""

    view: View | None = None
    options: DiffOptions | None = None  # how it was made: the bounds' peaks and versions its reports keep

    def select(self, *, groups: Iterable[str] = (), metrics: Iterable[str] = (),
               only_changed: bool = False, sort: Sort = "group") -> Comparison:
        """The same comparison showing other rows (``groups``, ``metrics`` globs, ...)."""
        return replace(self, view=select(self, groups=groups, metrics=metrics,
                                         only_changed=only_changed, sort=sort))

    def report(self, findings: bool = True) -> DiffReport:
        """What every format renders: this comparison, its view, and (unless ``findings=False``) the
        findings of the sweep its profiles form."""
        from ..commands.diff import DiffOptions, report_of

        return report_of(self, replace(self.options or DiffOptions(), findings=findings), self.view)

    def to_frame(self, wide: bool = False) -> Any:
        """Tidy: one row per metric x variant x basis (numeric values in base units, ``unit`` and
        ``display_unit`` columns, deltas, verdict); ``wide=True``: one row per metric and basis,
        a column per side."""
        from ..render.frame import comparison_frame

        return comparison_frame(self.report(findings=False), wide=flag("wide", wide))

    def text(self, width: int = 100) -> str:
        """The full report as the terminal shows it."""
        from ..render.registry import by_name

        return by_name("term").render("diff", self.report(), text_width(width))

    def plot(self, metrics: Iterable[str] | None = None) -> Any:
        """A matplotlib figure: each variant's change on the headline metrics (or ``metrics``)."""
        from ..render.charts import comparison_figure

        return comparison_figure(self, self._plotted(metrics))

    def _plotted(self, metrics: Iterable[str] | None) -> list[str] | None:
        """``metrics`` checked against the rows (a name no row has is a usage error naming the closest)."""
        if metrics is None:
            return None
        from ..catalog import resolve_named, suggestion
        from ..errors import UsageError

        present = [row.name for row in self.rows]
        names = [resolve_named(name, present)[0] for name in texts("metrics", metrics)]
        for typed, name in zip(texts("metrics", metrics), names, strict=True):
            if name not in present:
                raise UsageError(f"metrics: {typed!r} is no row of this comparison{suggestion(typed, present)}")
        return names

    def _repr_html_(self) -> str:
        from ..render.formats.html import fragment

        return fragment(self.report())

    def __rich_console__(self, console: Any, options: Any) -> Any:
        yield from drawn("diff", self.report(), options)


@dataclass(frozen=True, slots=True, repr=False)
class Sweep(_sweep.Sweep):
    """A batch-size sweep (``analysis.sweep.Sweep``) that shows itself, as frames and charts."""

    def to_frame(self, units: str | None = None) -> Any:
        """One row per batch size, a column per table column (base units); ``units="pint"`` gives
        pint-pandas columns (each column has one unit), when pint-pandas is installed."""
        from ..render.frame import sweep_frame

        return sweep_frame(self, units)

    def findings_frame(self) -> Any:
        """One row per finding: rule, category, title, impact share and amount, where, action."""
        from ..render.frame import findings_frame

        return findings_frame(self.findings)

    def text(self, width: int = 100) -> str:
        """The full report as the terminal shows it."""
        from ..render.registry import by_name

        return by_name("term").render("sweep", self, text_width(width))

    def plot(self, kind: str = "throughput") -> Any:
        """A matplotlib figure: ``throughput`` (with the fit and MFU), ``roofline`` or ``memory``."""
        from ..render.charts import FIGURES

        return FIGURES[choice("kind", kind, FIGURES)](self)

    def _repr_html_(self) -> str:
        from ..render.formats.html import sweep_fragment

        return sweep_fragment(self, with_charts=False)

    def __rich_console__(self, console: Any, options: Any) -> Any:
        yield from drawn("sweep", self, options)


class Finding(_base.Finding):
    """A finding (``analysis.findings.base.Finding``) that shows itself: an HTML list item in
    Jupyter, its evidence and action in rich; ``repr`` stays one short line."""

    __slots__ = ()

    def _repr_html_(self) -> str:
        from ..render.formats.html import CSS, finding_html

        return f'<div class="ncmp"><style>{CSS}</style><ul>{finding_html(self)}</ul></div>'

    def __rich_console__(self, console: Any, options: Any) -> Any:
        from ..render.terminal.sweep import finding

        yield from finding(1, self)


class Shown:
    """A command's document (``.report``) that shows itself: ``str`` is the terminal's text, Markdown
    in notebooks; ``.records()`` its tidy rows (``render/<document>.py``), ``.to_frame()`` them in pandas."""

    document = ""  # the command: its terminal document and its module under ``render/``

    def __init__(self, report: Any) -> None:
        self.report = report

    def records(self) -> list[dict[str, Any]]:
        records: list[dict[str, Any]] = self._rendering().records(self.report)
        return records

    def to_frame(self) -> Any:
        import pandas as pd

        return pd.DataFrame(self.records())

    def __str__(self) -> str:
        from ..render.registry import by_name

        return by_name("term").render(self.document, self.report)

    def _repr_markdown_(self) -> str:
        text: str = self._rendering().markdown_text(self.report)
        return text

    def __repr__(self) -> str:
        return repr(self.report)

    def _rendering(self) -> Any:
        return import_module(f"..render.{self.document}", __package__)


def drawn(document: str, value: Any, options: Any) -> Any:
    """What the terminal format draws of ``value`` at the width rich gives (``render/terminal/``)."""
    from ..render.formats.term import RENDERER

    return RENDERER.drawn(document, value, options.max_width)


def text_width(width: object) -> int:
    return integer("width", width, *TEXT_WIDTHS)


def showing_findings(sweep: Any) -> Any:
    """``sweep`` with its findings as ``Finding``s that show themselves."""
    return replace(sweep, findings=tuple(Finding(*f) for f in sweep.findings))


def as_subclass(value: Any, cls: type) -> Any:
    """A frozen dataclass result as its display subclass (fields shared)."""
    return cls(**{f.name: getattr(value, f.name) for f in fields(value)})

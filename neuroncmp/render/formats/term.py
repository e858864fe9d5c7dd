"""The terminal format (``term``): plain text laid out for a terminal, styled for colour.

Each command's view lives in the module named after it (``render/diff_text.py``, ``show_text.py``,
``sweep_text.py``, ``metrics_text.py``, ``store_text.py``, ...); each method imports its own, so a
store command that renders with this format loads no comparison or analysis code.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..base import (
    FormatsReport,
    HistoryReport,
    RegressionsReport,
    Renderer,
    StoreAddReport,
    StoreCheckReport,
    StoreCompactReport,
    StoreRunsReport,
    StoreSeriesByReport,
)
from ..layout import plain

if TYPE_CHECKING:  # types only: the comparison's and the sweep's code load when they are rendered
    from ...analysis.sweep import Sweep
    from ...catalog import MetricSpec
    from ...commands.documents import DiffReport, Loaded
    from ...model import Profile
    from ..layout import Line as Styled


def styled_lines(report: DiffReport, width: int = 100, summary: bool = False) -> list[Styled]:
    """The comparison as styled lines (``diff_text.styled_lines``; the Python API calls it here)."""
    from ..diff_text import styled_lines as comparison_lines

    return comparison_lines(report, width, summary)


def profiles_lines(profiles: list[Profile] | Loaded, width: int) -> list[Styled]:
    """``neuroncmp show`` as styled lines (``show_text.profiles_lines``: none of the comparison's views);
    ``show``'s ``Loaded`` brings each profile's bounds."""
    from ..show_text import profiles_lines as profile_lines

    if isinstance(profiles, list):
        return profile_lines(profiles, width)
    return profile_lines(profiles.profiles, width, profiles.bounds)


def _sweep_lines(sweep: Sweep, width: int) -> list[Styled]:
    from ..sweep_text import sweep_lines

    return sweep_lines(sweep, width)


def _catalog_lines(specs: list[MetricSpec], width: int) -> list[Styled]:
    from ..metrics_text import catalog_lines

    return catalog_lines(specs, width)


class Term(Renderer):
    name, extensions, order, aliases = "term", (".txt",), 10, ("table",)
    description = "the terminal table (plain text in a file)"

    def diff(self, report: DiffReport, width: int = 100) -> str:
        return plain(styled_lines(report, width, report.summary))

    def profiles(self, profiles: list[Profile] | Loaded, width: int = 100) -> str:
        return plain(profiles_lines(profiles, width))

    def metrics(self, specs: list[MetricSpec], width: int = 100) -> str:
        return plain(_catalog_lines(specs, width))

    def sweep(self, sweep: Sweep, width: int = 100) -> str:
        return plain(_sweep_lines(sweep, width))

    def history(self, report: HistoryReport, width: int = 100) -> str:
        from .. import store_text  # the store's views load with its commands only

        return store_text.history(report.history, width, report.last)

    def regressions(self, report: RegressionsReport, width: int = 100) -> str:
        from .. import store_text

        return store_text.regressions(report.regressions, report.store, report.width)

    def formats(self, report: FormatsReport, width: int = 100) -> str:
        from ..formats_list import formats_text

        return formats_text(report.parsers, report.renderers, width)

    def store_runs(self, report: StoreRunsReport, width: int = 100) -> str:
        from .. import store_text

        return store_text.runs_table(report.runs, report.width)

    def store_add(self, report: StoreAddReport, width: int = 100) -> str:
        from .. import store_text

        return store_text.add_report(report.report, report.store)

    def store_series_by(self, report: StoreSeriesByReport, width: int = 100) -> str:
        return f"series by {','.join(report.series_by) or 'every tag'}\n"

    def store_check(self, report: StoreCheckReport, width: int = 100) -> str:
        from .. import store_text

        return store_text.check_report(report.report, report.store)

    def store_compact(self, report: StoreCompactReport, width: int = 100) -> str:
        from .. import store_text

        return store_text.compact_report(report.report, report.store)

    def styled(self, document: str, value: Any, width: int = 100) -> list[Any] | None:
        if document == "diff":
            return styled_lines(value, width, value.summary)
        if document == "sweep":
            return _sweep_lines(value, width)
        if document == "profiles":
            return profiles_lines(value, width)
        return _catalog_lines(value, width) if document == "metrics" else None  # the store's: plain text

    def ranks(self, report: Any, width: int = 100) -> str:
        """``neuroncmp ranks``: the ranks of one step (render/ranks.py)."""
        from ..ranks_term import terminal

        return terminal(report, width)

    def ops(self, report: Any, width: int = 100) -> str:
        """``neuroncmp ops``: the operator-level comparison (render/ops.py)."""
        from ..ops import terminal

        return terminal(report, width)


RENDERER = Term()

"""Views: which rows of a comparison to show, and in what order (``select``). Cheap, and never changes
the result; what a view leaves out is counted, never silently dropped."""

from __future__ import annotations

from collections.abc import Iterable
from fnmatch import fnmatchcase
from typing import NamedTuple

from ..arguments import flag, texts
from ..catalog import resolve_named, suggestion
from ..choices import ADDED, BETTER, CONTEXT, NEUTRAL, REMOVED, SORTS, SUSPECT, WORSE, ShownBasis, Sort, check
from ..errors import UsageError
from .result import Comparison, Row


class View(NamedTuple):
    """The rows to show, in order, and what was left out (counted, never silently dropped)."""

    rows: tuple[Row, ...]
    sort: Sort = "group"
    hidden_unchanged: int = 0   # rows inside the noise band, hidden by only_changed or brief
    filtered_out: int = 0       # rows not matching the group / metric filters
    brief: bool = False         # the rows that changed, largest change first, for one screen (``select``)
    hidden_changed: int = 0     # changed rows a brief view left out to fit the screen

    def __repr__(self) -> str:
        return (f"<View {len(self.rows)} rows, sort {self.sort}, {self.hidden_unchanged} unchanged hidden, "
                f"{self.filtered_out} filtered out>")

    @property
    def grouped(self) -> bool:
        """Rows come in catalog-group order, so views print group headings."""
        return self.sort == "group"


def select(comparison: Comparison, *, groups: Iterable[str] = (), metrics: Iterable[str] = (),
           only_changed: bool = False, sort: Sort = "group", brief: bool = False) -> View:
    """The rows of ``comparison`` whose catalog group and name match, the unchanged ones dropped on
    request (counted), ordered by ``sort``: ``group`` (catalog order), ``change`` (biggest first) or
    ``name``. ``brief``: the rows that changed beyond the noise band, largest change first, the
    unchanged ones counted; a renderer for one screen leaves out those its headline shows, shows as
    many of the others as fit and counts the rest (``cut``)."""
    groups = list(texts("groups", groups))
    sort = check("sort", sort, SORTS)
    flag("only_changed", only_changed)
    flag("brief", brief)
    if brief:
        only_changed, sort = True, "change"
    rows = comparison.rows
    names = [row.name for row in rows]
    globs = [resolve_named(g, names)[0] for g in texts("metrics", metrics)]  # a row holds both bases
    _check_filters(rows, groups, globs)
    kept = [r for r in rows if (not groups or r.spec.group in groups)
            and (not globs or any(fnmatchcase(r.name, g) for g in globs))]
    filtered_out = len(rows) - len(kept)
    hidden = 0
    if only_changed:
        changed = [r for r in kept if r.changed(comparison.basis)]
        hidden, kept = len(kept) - len(changed), changed
    return View(tuple(_sorted(kept, sort, comparison.basis)), sort, hidden, filtered_out, brief)


def cut(view: View, shown: int) -> View:
    """A brief view showing its first ``shown`` rows (the largest changes), the rest counted."""
    return view._replace(rows=view.rows[:shown], hidden_changed=view.hidden_changed + len(view.rows) - shown)


def _check_filters(rows: tuple[Row, ...], groups: list[str], globs: list[str]) -> None:
    """A filter that matches nothing is a mistake: say so, with the names it may have meant."""
    present = [row.spec.group for row in rows]
    for group in groups:
        if group not in present:
            raise UsageError(f"--group {group}: no such group in this comparison"
                             f"{suggestion(group, present)} (groups: {', '.join(dict.fromkeys(present))})")
    names = [row.name for row in rows]
    for glob in globs:
        if not any(fnmatchcase(name, glob) for name in names):
            raise UsageError(f"--metric {glob}: matches no metric{suggestion(glob, names)}; "
                             "globs match whole names ('mfu*'); 'neuroncmp metrics' lists them")


def _sorted(rows: list[Row], sort: Sort, basis: ShownBasis) -> list[Row]:
    if sort == "name":
        return sorted(rows, key=lambda r: r.name)
    if sort == "change":
        # rounded: reciprocal metrics (throughput, time per sample) change by the same size up to
        # the last bits, and their order should not hang on floating-point noise (ties keep catalog order)
        return sorted(rows, key=lambda r: (change_rank(r, basis), -round(change_in_bands(r, basis), 6)))
    return rows


def change_in_bands(row: Row, basis: ShownBasis) -> float:
    """The row's largest change across variants in noise bands (``Band.size``), a unit-free size on
    which changes of every kind rank (docs/judging.md, "Ranking by change")."""
    sizes = [0.0 if delta.delta is None else row.band.size(delta.baseline, delta.variant) for delta in row.shown(basis)]
    return max(sizes, default=0.0)


def change_rank(row: Row, basis: ShownBasis) -> int:
    """better/worse first, then neutral, suspect and unscored changes (memory across batch sizes),
    then rows on one side only, then unchanged (a row without a verdict whose values stayed in the band too)."""
    if not row.changed(basis):
        return 3
    verdicts = set(row.verdicts(basis))
    for rank, kinds in enumerate(({BETTER, WORSE}, {NEUTRAL, SUSPECT, CONTEXT}, {ADDED, REMOVED})):
        if verdicts & kinds:
            return rank
    return 3

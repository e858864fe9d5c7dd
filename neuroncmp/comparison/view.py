"""Views: which rows of a comparison to show, and in what order. Cheap, and never changes the result.

``select(comparison, groups=..., metrics=..., only_changed=..., sort=...)`` keeps the rows whose
catalog group and name match, drops unchanged ones on request (counting them), and orders them:
``group`` (catalog order, shown under group headings), ``change`` (biggest change first) or
``name``.
"""

from __future__ import annotations

from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Iterable

from .result import ADDED, BETTER, NEUTRAL, REMOVED, WORSE, Comparison, Row

SORTS = ("group", "change", "name")


@dataclass(frozen=True, slots=True)
class View:
    """The rows to show, in order, and what was left out (counted, never silently dropped)."""

    rows: tuple[Row, ...]
    sort: str = "group"
    hidden_unchanged: int = 0   # rows inside the noise band, hidden by only_changed
    filtered_out: int = 0       # rows not matching the group / metric filters

    @property
    def grouped(self) -> bool:
        """Rows come in catalog-group order, so views print group headings."""
        return self.sort == "group"


def select(comparison: Comparison, *, groups: Iterable[str] = (), metrics: Iterable[str] = (),
           only_changed: bool = False, sort: str = "group") -> View:
    """The rows of ``comparison`` to show (see the module docstring)."""
    groups, globs = list(groups), list(metrics)
    rows = comparison.rows
    kept = [r for r in rows if (not groups or r.spec.group in groups)
            and (not globs or any(fnmatchcase(r.name, g) for g in globs))]
    filtered_out = len(rows) - len(kept)
    hidden = 0
    if only_changed:
        changed = [r for r in kept if r.changed(comparison.basis)]
        hidden, kept = len(kept) - len(changed), changed
    return View(tuple(_sorted(kept, sort, comparison.basis)), sort, hidden, filtered_out)


def _sorted(rows: list[Row], sort: str, basis: str) -> list[Row]:
    if sort == "name":
        return sorted(rows, key=lambda r: r.name)
    if sort == "change":
        return sorted(rows, key=lambda r: (change_rank(r, basis), -r.magnitude(basis)))
    return rows


def change_rank(row: Row, basis: str) -> int:
    """better/worse first, then neutral changes, then rows on one side only, then unchanged."""
    verdicts = {cell.shown(basis).verdict for cell in row.cells}
    for rank, kinds in enumerate(({BETTER, WORSE}, {NEUTRAL}, {ADDED, REMOVED})):
        if verdicts & kinds:
            return rank
    return 3

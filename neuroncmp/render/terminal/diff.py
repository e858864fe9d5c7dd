"""``neuroncmp diff`` in the terminal: title, headline, warnings, the table, findings, footer. How the
table is laid out for a width: ``docs/commands/diff.md`` ("The terminal table").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.console import RenderableType
from rich.text import Text

from ... import escape
from ...choices import BETTER, SUSPECT, UNCHANGED, WORSE, Verdict
from ...comparison.view import cut
from ..captions import (
    batch_line,
    brief_lines,
    finding_line,
    findings_title,
    footer_lines,
    group_title,
    later_warnings,
    opening,
    title,
)
from ..changes import FLAT, LEGEND, banded, changes_with_marks
from ..headline import (
    BOUND_LABEL,
    NEXT_LABEL,
    NEXT_SHARE_LABEL,
    SPEEDUP_LABEL,
    TALLY_LABEL,
    BoundLine,
    headline,
    notes,
    report_bound_line,
    tally_texts,
)
from ..rows import Heading, Line, identical_text, lines, trend_order
from . import MAX_LABEL, SHORT_LABEL, Hanging, Piece, Wrapped, fold, height, piece, wrapped
from .bounds import bounds_view
from .labels import Labels, short_labels

if TYPE_CHECKING:  # types only
    from ...commands.documents import DiffReport
    from ...comparison.result import Comparison

STYLE: dict[Verdict | None, str] = {BETTER: "green", WORSE: "red", SUSPECT: "yellow", UNCHANGED: "dim"}
MIN_NAME = 16       # narrowest metric column before falling back to one table per variant
INLINE_NAME = 32    # a metric column at least this wide: each change beside its value, one line a row
METRIC = "metric [unit]"
Cell = list[Piece]  # one piece a line
Entry = tuple[str, list[Cell]]  # ("group" | "row" | "step", cells: the name's, then one per column)


@dataclass(frozen=True, slots=True)
class Plan:
    """The columns of one table: the header of each after the metric's, their widths (the metric
    column's first), whether each change has a column of its own (``inline``), which of an entry's
    cells it shows (``keep``: every side's and the trend, or one variant's in the narrow layout) and
    how many of those are variants."""

    labels: list[str]
    widths: list[int]
    inline: bool
    keep: list[int]
    variants: int
    trend: bool

    def cells(self, cells: list[Cell]) -> list[Cell]:
        """A row's cells as this table's columns."""
        out = [cells[0]]
        for index, at in enumerate(self.keep):
            cell = cells[at + 1]
            out += [cell[:1], cell[1:] or [("", "")]] if self.inline and 1 <= index <= self.variants else [cell]
        return out

    def height(self, kind: str, cells: list[Cell], width: int) -> int:
        """The lines an entry takes in this table (a group's title: across the ``width``)."""
        if kind == "group":
            return len(wrapped(cells[0][0][0], width))
        return max(len(fold(cells[0][0][0], self.widths[0])), *map(len, self.cells(cells)[1:]))

    def draw(self, blocks: list[list[Entry]], between: list[RenderableType]) -> list[RenderableType]:
        """The blocks in these columns, one under another (a group's title across them), ``between``
        (the warnings, under the headline) between the blocks: each row as rich ``Text`` lines, its
        cells padded to the plan's widths (computed for every row at once, so rows line up)."""
        right = set(range(1, len(self.widths) - self.trend))
        heads = [piece(label.rjust(self.widths[at]) if at in right else label.ljust(self.widths[at]), "bold")
                 for at, label in enumerate([METRIC, *self.labels])]
        out: list[RenderableType] = [Text(" ").join(heads), Text("\u2500" * (sum(self.widths) + len(self.widths) - 1))]
        for index, block in enumerate(blocks):
            if index:
                out += [Text(), *between, *([Text()] if between else [])]
            for kind, cells in block:
                out += [Wrapped(*cells[0][0])] if kind == "group" else self._row(kind, cells)
        return out

    def _row(self, kind: str, cells: list[Cell]) -> list[Text]:
        """A row's lines: the name folded to its column, each other cell's pieces one a line, the values
        right-aligned."""
        columns = self.cells(cells)
        dim = "dim" if kind == "step" else ""
        right = range(1, len(self.widths) - self.trend)  # the metric's name and the trend left-aligned
        stacks = [[(line, dim) for line in fold(columns[0][0][0], self.widths[0])]]
        stacks += [[(text, style or dim) for text, style in cell] for cell in columns[1:]]

        def aligned(at: int, width: int, text: str) -> str:
            return " " * bool(at) + (text.rjust(width) if at in right else text.ljust(width))

        return [Text.assemble(*((escape.text(aligned(at, width, text)), style)
                                for at, (width, stack) in enumerate(zip(self.widths, stacks, strict=True))
                                for text, style in [stack[line] if line < len(stack) else ("", "")]), no_wrap=True)
                for line in range(max(map(len, stacks)))]  # (no_wrap: a line the plan fits needs no wrapping)


def _cells(shown: Line, order: list[int] | None, name: str | None = None) -> list[Cell]:
    unit = f" [{shown.unit}]" if shown.unit else ""
    if name is None:
        name = ("  " if shown.step_context else "") + shown.titled(shown.unit)
    else:
        name += unit
    deltas = shown.deltas
    values = shown.values()
    texts = [shown.value(value, with_unit=False) for value in values]
    out: list[Cell] = [[(name, "")], [(texts[0], "")]]
    # the colour says what the mark says
    styles = [STYLE.get(banded(delta.verdict, delta.in_band), "") for delta in deltas]
    out += [[(value, ""), (change, style)]
            for value, change, style in zip(texts[1:], changes_with_marks(deltas, sep=""), styles, strict=True)]
    if order is not None:
        out.append([(shown.trend(order, values), "dim")])
    return out


def _headline_entries(report: DiffReport, order: list[int] | None) -> list[Entry]:
    comparison = report.comparison
    entries: list[Entry] = [("group", [[("headline", "bold cyan")]])]
    entries += [("row", _cells(item.line, order, item.label)) for item in headline(comparison)]
    trend: list[Cell] = [[("", "")]] if order is not None else []
    bound = report_bound_line(report)
    if bound is not None:
        entries += [("row", cells + trend) for cells in _bound_cells(bound)]
    tallies = [[(part, "") for part in text.split(" ", 1)] for text in tally_texts(comparison)]
    entries.append(("row", [[(TALLY_LABEL, "")], [("", "")], *tallies, *trend]))
    return entries


def _bound_cells(bound: BoundLine) -> list[list[Cell]]:
    """The "bound by" line as rows short enough not to widen the headline's columns: each side's
    bottleneck (a variant's shift in its change column: from the baseline, or, successive versions, from
    the one before, as the label says), the step over that bound, the next bottleneck and its time as a
    share of the bottleneck's (a row of its own: a share is not a change) and the speedup."""
    (base_name, base_gap, _), *variants = bound.short()
    names: list[Cell] = [[(BOUND_LABEL + (" (from the one before)" if bound.previous else ""), "")],
                         [(base_name, "")]]
    gaps: list[Cell] = [[("  step / its bound", "")], [(base_gap, "")]]
    for name, gap, moved in variants:
        names.append([(name, "")] + ([(moved, "yellow")] if moved else []))
        gaps.append([(gap, "")])
    parts = bound.next_parts()
    following: list[Cell] = [[(NEXT_LABEL, "")], *[[(name, "")] for name, _ in parts]]
    shares: list[Cell] = [[(NEXT_SHARE_LABEL, "")], *[[(share or "-", "")] for _, share in parts]]
    return [names, gaps, following, shares,
            [[(SPEEDUP_LABEL, "")], *[[(cell, "")] for cell in bound.speedup_cells()]]]


def _table_entries(report: DiffReport, order: list[int] | None) -> list[Entry]:
    entries: list[Entry] = []
    for entry in lines(report.comparison, report.view, hide_identical_text=True):
        if report.view.brief and not isinstance(entry, Heading) and entry.step_context:
            continue  # one screen: the per-sample change, its per-step context under --all
        if isinstance(entry, Heading):
            entries.append(("group", [[(group_title(entry.group), "bold cyan")]]))
        else:
            entries.append(("step" if entry.step_context else "row", _cells(entry, order)))
    return entries


def _plan(labels: list[str], entries: list[Entry], width: int, keep: list[int], trend: bool,
          least: int = MIN_NAME) -> Plan | None:
    """Inline when that leaves a wide metric column, else stacked (change under value); None when
    even that leaves it narrower than ``least``. ``keep``: the columns shown (``Plan``)."""
    shown = [labels[at] for at in keep]
    top, under = [len(label) for label in shown], [0] * len(shown)
    for kind, cells in entries:
        if kind != "group":
            for index, at in enumerate(keep):
                cell = cells[at + 1]
                top[index] = max(top[index], len(cell[0][0]))
                under[index] = max([under[index], *(len(text) for text, _ in cell[1:])])
    natural = max([len(METRIC)] + [len(cells[0][0][0]) for kind, cells in entries if kind != "group"])
    variants = len(keep) - 1 - trend
    split = [width for index, pair in enumerate(zip(top, under, strict=True))
             for width in (pair if 1 <= index <= variants else (max(pair),))]
    for inline, widths, needed in ((True, split, INLINE_NAME), (False, list(map(max, top, under)), least)):
        room = width - sum(widths) - len(widths)
        if room >= needed:
            heads = [head for index, label in enumerate(shown)
                     for head in ((label, "") if inline and 1 <= index <= variants else (label,))]
            return Plan(heads, [max(min(room, natural), 1), *widths], inline, keep, variants, trend)
    return None


def _one_variant(labels: list[str], entries: list[Entry], width: int, at: int) -> Plan:
    """The table of the baseline and one variant: as ``_plan``, or stacked however little room that
    leaves the metric column (nothing narrower exists)."""
    plan = _plan(labels, entries, width, [0, at], False) or _plan(labels, entries, width, [0, at], False, -width)
    assert plan is not None  # (any room is enough)
    return plan


def header(comparison: Comparison, labels: Labels) -> list[RenderableType]:
    """What was compared: the title, then the legend of the labels shortened (``Labels``), which
    every later sentence uses."""
    say = labels.say
    # before any change, and before the legend: the labels in full
    out: list[RenderableType] = [Wrapped(text, "bold red") for text in opening(comparison)]
    out.append(Wrapped(f"neuroncmp diff: {say(title(comparison))}", "bold"))
    out += [Wrapped("labels: " + "; ".join(labels.legend), "dim")] if labels.legend else []
    out.append(Wrapped(say(f"{batch_line(comparison)}; basis: {comparison.basis_reason}")))
    return out + [Wrapped(f"warning: {say(text)}", "bold yellow") for text in _whole(comparison)]  # questions the whole


def _whole(comparison: Comparison) -> list[str]:
    from ...comparison.comparability import whole_doubts

    return [w for w in whole_doubts(list(comparison.sides)) if w in comparison.warnings]


def warnings(comparison: Comparison, labels: Labels) -> list[RenderableType]:
    """The warnings under the headline: why lines are missing, then those not said under the title."""
    shown = set(_whole(comparison))
    return [Wrapped(labels.say(f"warning: {text}"), "yellow")
            for text in [*notes(comparison), *(w for w in later_warnings(comparison) if w not in shown)]]


class Body:
    """The headline and the table of a report, planned for its ``rows`` (the brief view: the first of
    them), with the ``labels`` given or its own (whole where they fit, else shortened), or in the
    columns of ``like``."""

    def __init__(self, report: DiffReport, width: int, rows: list[Entry], headline: list[Entry],
                 like: Body | None = None, labels: Labels | None = None) -> None:
        comparison = report.comparison
        self.comparison, self.width, self.headline, self.rows = comparison, width, headline, rows
        self.plans: list[Plan]
        self.labels: Labels
        if like is not None:
            self.plans, self.labels = like.plans, like.labels
            return
        entries = headline + rows
        trend = ["trend"] if len(comparison.variants) >= 2 else []
        names = [side.label for side in comparison.sides]
        tried = [labels] if labels is not None else [short_labels(names, limit) for limit in (MAX_LABEL, SHORT_LABEL)]
        for self.labels in tried:  # labels whole where they fit, else shortened, before a table per variant
            shown = self.labels.shown
            plan = _plan(shown + trend, entries, width, list(range(len(shown) + len(trend))), bool(trend))
            if plan is not None:
                self.plans = [plan]
                return
        self.labels = tried[0]
        self.plans = [_one_variant(self.labels.shown, entries, width, at) for at in range(1, len(names))]

    def draw(self) -> list[RenderableType]:
        """The headline, the warnings, then the table; or a table per variant when narrow."""
        found = warnings(self.comparison, self.labels)
        out: list[RenderableType] = []
        if len(self.plans) == 1:
            if not self.rows:  # the headline alone: then its warnings
                return out + self.plans[0].draw([self.headline], []) + ([Text(), *found] if found else [])
            return out + self.plans[0].draw([self.headline, self.rows], found)
        out += [*found, Text()] if found else []
        for index, plan in enumerate(self.plans):
            versus = f"{self.labels.shown[0]} vs {self.labels.shown[index + 1]}"
            out += [*([Text()] if index else []), Wrapped(versus, "bold")]
            out += plan.draw([self.headline, *([self.rows] if self.rows else [])], [])
        return out

    def heights(self) -> list[int]:
        """The lines each row of the table takes, summed over the tables that show it."""
        return [sum(plan.height(kind, cells, self.width) for plan in self.plans) for kind, cells in self.rows]

    def lines(self) -> int:
        """The lines ``draw`` writes."""
        return height(self.draw(), self.width)


def footer(report: DiffReport, summary: bool, labels: Labels) -> list[RenderableType]:
    same = sum(1 for row in report.view.rows if identical_text(row))
    said = brief_lines(report.comparison, report.view) if report.view.brief and not summary \
        else footer_lines(report.comparison, report.view)
    if summary:
        said[0] = f"headline only (--summary): {len(report.view.rows)} metric rows not shown"
    if same and not summary:
        said.append(f"{same} identical metadata rows (versions, indices) not shown")
    if len(report.comparison.variants) >= 2:
        said.append("trend: sparkline of baseline and variants in batch-size order (given order "
                    f"when a batch size is unknown); {FLAT * 3} where the row's whole range is inside its "
                    "noise band (its ups and downs are noise)")
    out: list[RenderableType] = [Wrapped(labels.say(note), "dim") for note in [*said, LEGEND]]
    return out + [Wrapped(labels.say(gate.line), "bold red" if gate.tripped else "green")
                  for gate in report.gates]


def findings(report: DiffReport, labels: Labels, summary: bool = False) -> list[RenderableType]:
    if not report.findings:
        return []
    out: list[RenderableType] = [Text(), Wrapped(findings_title(report.findings_of), "bold cyan")]
    shown = report.findings[:BRIEF_FINDINGS] if report.view.brief and not summary else report.findings
    out += [Hanging(f"{index}. ", labels.say(finding_line(finding))) for index, finding in enumerate(shown, 1)]
    if len(shown) < len(report.findings):
        out.append(Wrapped(f"{len(report.findings) - len(shown)} more findings: --all shows every one", "dim"))
    return out


BRIEF_LINES = 60    # the default diff: one screen, the largest changes in it, every other row counted
BRIEF_ROWS = 3      # ... but never fewer of the largest changes than this, where warnings fill the screen
BRIEF_FINDINGS = 2  # the findings ranked first (by impact) in it


def drawn(report: DiffReport, width: int = 100) -> list[RenderableType]:
    """The report for a terminal ``width`` wide; ``--bounds``: AWS's tables in place of the full one;
    a brief view (the terminal's default): as many of its largest changes as keep the report within
    ``BRIEF_LINES`` (at least ``BRIEF_ROWS`` of them), the headline, warnings, findings and gates always
    shown; its columns those of the rows shown, or of every row it may show where that is shorter. Lines
    are counted, not drawn."""
    summary = report.summary or report.bounds_only
    if report.view.brief:
        report = _beside_headline(report)
    order = trend_order(report.comparison) if len(report.comparison.variants) >= 2 else None
    headline = _headline_entries(report, order)
    full = Body(report, width, [] if summary else _table_entries(report, order), headline)
    if not report.view.brief or summary:
        return _drawn(report, full, summary)

    labels = full.labels

    def around(shown: int) -> int:  # the lines of all but the body: title, findings, footer
        chosen = report._replace(view=cut(report.view, shown))
        return height([*header(chosen.comparison, labels), Text(), *findings(chosen, labels), Text(),
                       *footer(chosen, False, labels)], width)

    heights = full.heights()
    base = Body(report, width, [], headline, like=full).lines() + len(full.plans)  # (a blank line before the rows)
    shown = 0
    while shown < len(heights) and around(0) + base + sum(heights[:shown + 1]) <= BRIEF_LINES:
        shown += 1
    while shown and around(shown) + base + sum(heights[:shown]) > BRIEF_LINES:  # its footer's count grew a line
        shown -= 1
    shown = max(shown, min(BRIEF_ROWS, len(heights)))
    own = Body(report, width, full.rows[:shown], headline, labels=labels)
    kept = Body(report, width, full.rows[:shown], headline, like=full)
    return _drawn(report._replace(view=cut(report.view, shown)), own if own.lines() <= kept.lines() else kept, False)


def _beside_headline(report: DiffReport) -> DiffReport:
    """A brief view without the rows the headline shows (on the screen already): what it leaves out
    of the rest is counted in its footer."""
    on_headline = {item.line.row.name for item in headline(report.comparison)}
    return report._replace(view=report.view._replace(
        rows=tuple(row for row in report.view.rows if row.name not in on_headline)))


def _drawn(report: DiffReport, body: Body, summary: bool) -> list[RenderableType]:
    labels = body.labels
    out = [*header(report.comparison, labels), Text(), *body.draw()]
    if report.bounds_only and (bound := report_bound_line(report)) is not None:
        out += [Text(), *bounds_view(labels, bound.bounds, report.versions, body.width, legend=False)]
    return out + findings(report, labels, summary) + [Text()] + footer(report, summary, labels)

"""Terminal rendering of a comparison (``neuroncmp diff`` in the ``term`` format; ``formats/term.py``
loads it only for that document): title, headline, warnings, the full table, footer.

The report is laid out as lines of (text, style) pieces with plain string padding
(``render/layout.py``); the CLI prints them plain or through rich for colour. Each variant cell
holds the value and, below it, the change with a verdict mark, so the table reads without
colour; colour (green better, red worse, yellow suspect, dim unchanged) only reinforces it.
Metric names and side labels wrap at ``_``, ``/`` and ``-`` boundaries, never inside a word; when
the columns cannot fit the width, the table is printed as one block per variant instead.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..choices import BETTER, SUSPECT, UNCHANGED, WORSE, Verdict
from ..comparison.view import cut
from .bounds_table import bounds_lines
from .captions import (
    batch_line,
    brief_lines,
    finding_line,
    findings_title,
    footer_lines,
    gate_lines,
    group_title,
    later_warnings,
    opening,
    title,
)
from .changes import FLAT, LEGEND, changes_with_marks
from .headline import (
    BOUND_LABEL,
    NEXT_LABEL,
    SPEEDUP_LABEL,
    TALLY_LABEL,
    BoundLine,
    headline,
    notes,
    report_bound_line,
    tally_texts,
)
from .layout import Line as Styled
from .layout import fold, hanging, words, wrapped
from .rows import Heading, Line, identical_text, lines, trend_order

if TYPE_CHECKING:  # types only
    from ..commands.documents import DiffReport
    from ..comparison.result import Comparison

STYLE: dict[Verdict | None, str] = {BETTER: "green", WORSE: "red", SUSPECT: "yellow", UNCHANGED: "dim"}
GAP = " "
MIN_NAME = 16       # narrowest metric column before falling back to one block per variant
INLINE_NAME = 32    # a metric column at least this wide: each change beside its value, one line a row
MAX_LABEL = 12      # widest a column may grow for one word of a side's label
TermCell = list[tuple[str, str]]  # one (text, style) piece per line of a cell
Entry = tuple[str, list[TermCell]]  # ("group" | "row" | "step", cells)


def _cells(shown: Line, order: list[int] | None, name: str | None = None) -> list[TermCell]:
    unit = f" [{shown.unit}]" if shown.unit else ""
    if name is None:
        name = ("  " if shown.step_context else "") + shown.titled(shown.unit)
    else:
        name += unit
    columns = shown.columns()  # read as columns: no Delta record made (0.5 ms of a cold diff)
    values = shown.values(columns)
    texts = shown.values_text(values)
    out: list[TermCell] = [[(name, "")], [(texts[0], "")]]
    out += [[(text, ""), (change, STYLE.get(verdict, ""))] for text, change, verdict
            in zip(texts[1:], changes_with_marks(columns, sep=""), columns.verdict, strict=True)]
    if order is not None:
        out.append([(shown.trend(order, values), "dim")])
    return out


def _headline_entries(report: DiffReport, order: list[int] | None) -> list[Entry]:
    comparison = report.comparison
    entries: list[Entry] = [("group", [[("headline", "bold cyan")]])]
    entries += [("row", _cells(item.line, order, item.label)) for item in headline(comparison)]
    bound = report_bound_line(report)
    if bound is not None:
        trend = [[("", "")]] if order is not None else []
        entries += [("row", cells + trend) for cells in _bound_cells(bound)]
    tallies = [[(part, "") for part in text.split(" ", 1)] for text in tally_texts(comparison)]
    entries.append(("row", [[(TALLY_LABEL, "")], [("", "")], *tallies]
                    + ([[("", "")]] if order is not None else [])))
    return entries


def _bound_cells(bound: BoundLine) -> list[list[TermCell]]:
    """The "bound by" line as rows short enough not to widen the headline's columns: each side's
    bottleneck (a variant's shift in its change column: from the baseline, or, successive versions, from
    the one before, as the label says), the step over that bound, the next bottleneck and the speedup."""
    (base_name, base_gap, _), *variants = bound.short()
    names: list[TermCell] = [[(BOUND_LABEL + (" (from the one before)" if bound.previous else ""), "")],
                             [(base_name, "")]]
    gaps: list[TermCell] = [[("  step / its bound", "")], [(base_gap, "")]]
    for name, gap, moved in variants:
        names.append([(name, "")] + ([(moved, "yellow")] if moved else []))
        gaps.append([(gap, "")])
    following: list[TermCell] = [[(NEXT_LABEL, "")]]
    following += [[(name, "")] + ([(share, "")] if share else []) for name, share in bound.next_parts()]
    return [names, gaps, following, [[(SPEEDUP_LABEL, "")], *[[(cell, "")] for cell in bound.speedup_cells()]]]


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


def short_labels(labels: list[str]) -> tuple[list[str], list[str]]:
    """Labels whose every word fits a column (``MAX_LABEL``): a longer word is cut with ``…``
    (``supercalifr…``), or ``v2`` when that would repeat another label; and the legend of those
    changed (``supercalifr… = supercalifragilistic``), so a label is never cut without saying so."""
    out: list[str] = []
    legend: list[str] = []
    for index, label in enumerate(labels):
        pieces = words(label, "\\-_ ")
        if max(len(word) for word in pieces) <= MAX_LABEL:
            out.append(label)
            continue
        short = "".join(w if len(w) <= MAX_LABEL else w[:MAX_LABEL - 1] + "\u2026" for w in pieces)
        if short in out or short in labels or len(short) > 2 * MAX_LABEL:
            short = f"v{index}"
        out.append(short)
        legend.append(f"{short} = {label}")
    return out, legend


def _measure(labels: list[str], entries: list[Entry]) -> tuple[list[int], list[int]]:
    """Per column, the widest first line of its cells (at least its label's longest word) and the
    widest line below it: what both layouts' widths are made of (``_widths``)."""
    top = [0] + [min(max(len(w) for w in words(label, "\\-_ ")), MAX_LABEL) for label in labels]
    under = [0] * len(top)
    for kind, cells in entries:
        if kind != "group":
            for i in range(1, len(cells)):
                cell = cells[i]
                if len(cell[0][0]) > top[i]:  # (comparisons, not max(): 2,000 cells a cold diff)
                    top[i] = len(cell[0][0])
                for line in range(1, len(cell)):
                    if len(cell[line][0]) > under[i]:
                        under[i] = len(cell[line][0])
    return top, under


def _widths(measured: tuple[list[int], list[int]], variants: int, inline: bool) -> list[int]:
    """Value columns as wide as their values and their labels' longest word. ``inline``: the
    widths of ``_inline``'s columns (each variant's value, then its change), from the same
    measure of the stacked cells, so both layouts are measured in one pass."""
    top, under = measured
    if not inline:
        return [max(pair) for pair in zip(top, under, strict=True)]
    changes = range(2, 2 + variants)  # a variant's change column: its lines below the first
    return [width for i, (first, low) in enumerate(zip(top, under, strict=True))
            for width in ((first, low) if i in changes else (max(first, low),))]


def _entry_lines(kind: str, cells: list[TermCell], widths: list[int], trend: bool) -> list[Styled]:
    if kind == "group":
        (text, style), = cells[0]
        return [[(part, style)] for part in fold(text, sum(widths) + len(GAP) * (len(widths) - 1), " ")]
    names = fold(cells[0][0][0], widths[0])
    plain = "dim" if kind == "step" else ""  # the style of a piece that has none
    height = max(len(names), *map(len, cells))
    left = len(cells) - 1 if trend else -1  # the trend column is left-aligned
    out: list[Styled] = []
    for n in range(height):
        name = names[n].ljust(widths[0]) if n < len(names) else " " * widths[0]
        line: Styled = [(name, plain)] if plain else []
        # Unstyled pieces side by side are one piece: plain text and colour write them alike, and
        # a cold diff's table has 4,400 pieces (its layout 2.0 -> 1.2 ms)
        run = [] if plain else [name]
        for i in range(1, len(cells)):
            cell = cells[i]
            text, style = cell[n] if n < len(cell) else _NOTHING
            text = GAP + (text.ljust(widths[i]) if i == left else text.rjust(widths[i]))
            style = style or plain
            if not style:
                run.append(text)
                continue
            if run:
                line.append(("".join(run), ""))
                run = []
            line.append((text, style))
        if run:
            line.append(("".join(run), ""))
        out.append(line)
    return out


_NOTHING = ("", "")  # a cell's place on the lines below its own


def _header_lines(labels: list[str], widths: list[int]) -> list[Styled]:
    folded = [fold(label, widths[i + 1], "-_ ") for i, label in enumerate(labels)]
    height = max(len(f) for f in folded)
    out = []
    for n in range(height):
        styled: Styled = [(("metric [unit]" if n == height - 1 else "").ljust(widths[0]), "bold")]
        for i, parts in enumerate(folded):
            offset = height - len(parts)  # bottom-align folded labels
            styled.append((GAP + (parts[n - offset] if n >= offset else "").rjust(widths[i + 1]), "bold"))
        out.append(styled)
    out.append([("─" * (sum(widths) + len(GAP) * (len(widths) - 1)), "dim")])
    return out


def _grid(labels: list[str], blocks: list[list[Entry]], widths: list[int], width: int, trend: bool,
          between: list[Styled] | None = None) -> list[Styled]:
    """Tables sharing one set of columns (the metric column takes what the values leave),
    separated by a blank line and ``between`` (the warnings, under the headline)."""
    longest = max((len(cells[0][0][0]) for block in blocks for kind, cells in block if kind != "group"), default=0)
    natural = max(longest, len("metric [unit]"))
    widths = [max(min(_room(widths, width), natural), min(natural, MIN_NAME)), *widths[1:]]
    out = _header_lines(labels, widths)
    for index, block in enumerate(blocks):
        if index:
            out += [[]] + (between + [[]] if between else [])
        for kind, cells in block:
            out += _entry_lines(kind, cells, widths, trend)
    return out


def _room(widths: list[int], width: int) -> int:
    """What the value columns and their gaps leave the metric column of a ``width`` line."""
    return width - sum(widths[1:]) - len(GAP) * (len(widths) - 1)


def _inline(labels: list[str], blocks: list[list[Entry]], variants: int) -> tuple[list[str], list[list[Entry]]]:
    """Each variant's change in a column of its own beside its value (one line per row)."""
    wide = [labels[0]] + [part for label in labels[1:1 + variants] for part in (label, "")] + labels[1 + variants:]
    return wide, [[(kind, cells if kind == "group" else _split(cells, variants)) for kind, cells in block]
                  for block in blocks]


def _split(cells: list[TermCell], variants: int) -> list[TermCell]:
    out = cells[:2]
    for cell in cells[2:2 + variants]:
        out += [cell[:1], cell[1:] or [("", "")]]
    return out + cells[2 + variants:]


def _layout(labels: list[str], blocks: list[list[Entry]], width: int, trend: bool,
            between: list[Styled] | None = None) -> list[Styled] | None:
    """Inline when it leaves a wide metric column, else stacked (change under value), else None."""
    measured = _measure(labels, [entry for block in blocks for entry in block])
    variants = len(labels) - 1 - trend
    inline = _widths(measured, variants, inline=True)
    if _room(inline, width) >= INLINE_NAME:
        return _grid(*_inline(labels, blocks, variants), inline, width, trend, between)
    stacked = _widths(measured, variants, inline=False)
    if _room(stacked, width) >= MIN_NAME:
        return _grid(labels, blocks, stacked, width, trend, between)
    return None


def _per_variant(report: DiffReport, summary: bool, width: int) -> list[Styled]:
    """The narrow layout: one block per variant (metric, baseline, variant, change)."""
    comparison = report.comparison
    out: list[Styled] = []
    shown = short_labels([s.label for s in comparison.sides])[0]
    blocks = [_headline_entries(report, None)] + ([] if summary else [_table_entries(report, None)])
    for index, side in enumerate(comparison.variants):
        keep = [0, index + 1]
        labels = [shown[i] for i in keep]
        narrowed = [[(kind, _pick(kind, cells, keep)) for kind, cells in block] for block in blocks]
        out += ([[]] if index else []) + [[(f"{comparison.baseline.label} vs {side.label}", "bold")]]
        out += _layout(labels, narrowed, width, False) or _narrowest(labels, narrowed, width)
    return out


def _narrowest(labels: list[str], blocks: list[list[Entry]], width: int) -> list[Styled]:
    """Stacked, however little room it leaves the metric column (nothing narrower exists)."""
    stacked = _widths(_measure(labels, [entry for block in blocks for entry in block]), len(labels) - 1, inline=False)
    return _grid(labels, blocks, stacked, width, False)


def _pick(kind: str, cells: list[TermCell], keep: list[int]) -> list[TermCell]:
    return cells if kind == "group" else [cells[0]] + [cells[i + 1] for i in keep]


def header(comparison: Comparison, width: int) -> list[Styled]:
    out: list[Styled] = []
    for text in opening(comparison):  # before anything is read as a change
        out += wrapped(text, "bold red", width)
    out += wrapped(f"neuroncmp diff: {title(comparison)}", "bold", width)
    out += wrapped(f"{batch_line(comparison)}; basis: {comparison.basis_reason}", "", width)
    for text in _whole(comparison):  # what questions the whole comparison: in the first lines
        out += wrapped(f"warning: {text}", "bold yellow", width)
    return out


def _whole(comparison: Comparison) -> list[str]:
    from ..comparison.comparability import whole_doubts

    return [w for w in whole_doubts(list(comparison.sides)) if w in comparison.warnings]


def warnings(comparison: Comparison, width: int) -> list[Styled]:
    out: list[Styled] = []
    shown = set(_whole(comparison))  # under the title already
    for text in [*notes(comparison), *(w for w in later_warnings(comparison) if w not in shown)]:
        out += wrapped(f"warning: {text}", "yellow", width)
    return out


def body(report: DiffReport, width: int, summary: bool) -> list[Styled]:
    """The headline, the warnings, then the full table; or one block per variant when narrow."""
    comparison = report.comparison
    order = trend_order(comparison) if len(comparison.variants) >= 2 else None
    shown, legend = short_labels([side.label for side in comparison.sides])
    labels = shown + (["trend"] if order is not None else [])
    after = wrapped("labels: " + "; ".join(legend), "dim", width) if legend else []
    blocks = [_headline_entries(report, order)]
    if not summary:
        blocks.append(_table_entries(report, order))
    found = warnings(comparison, width)
    trend = order is not None
    if not summary and not blocks[-1]:  # a brief view with no row to show: the headline, then its warnings
        blocks.pop()
        summary = True
    if summary and (table := _layout(labels, blocks, width, trend)) is not None:
        return table + after + ([[]] + found if found else [])
    if not summary and (table := _layout(labels, blocks, width, trend, found)) is not None:
        return table + after
    return (found + [[]] if found else []) + _per_variant(report, summary, width) + after


def footer(report: DiffReport, width: int, summary: bool) -> list[Styled]:
    out: list[Styled] = []
    same = sum(1 for row in report.view.rows if identical_text(row))
    notes_ = brief_lines(report.comparison, report.view) if report.view.brief and not summary \
        else footer_lines(report.comparison, report.view)
    if summary:
        notes_[0] = f"headline only (--summary): {len(report.view.rows)} metric rows not shown"
    if same and not summary:
        notes_.append(f"{same} identical metadata rows (versions, indices) not shown")
    if len(report.comparison.variants) >= 2:
        notes_.append("trend: sparkline of baseline and variants in batch-size order (given order "
                      f"when a batch size is unknown); {FLAT * 3} where the row's whole range is inside its "
                      "noise band (its ups and downs are noise)")
    for note in notes_ + [LEGEND]:
        out += wrapped(note, "dim", width)
    for gate in gate_lines(report.gates):
        out += wrapped(gate, "bold red" if gate.startswith("FAILED") else "green", width)
    return out


def findings(report: DiffReport, width: int, summary: bool = False) -> list[Styled]:
    if not report.findings:
        return []
    out: list[Styled] = [[]] + wrapped(findings_title(report.findings_of), "bold cyan", width)
    shown = report.findings[:BRIEF_FINDINGS] if report.view.brief and not summary else report.findings
    for index, finding in enumerate(shown, 1):
        out += hanging(f"{index}. ", finding_line(finding), "", width)
    if len(shown) < len(report.findings):
        out += wrapped(f"{len(report.findings) - len(shown)} more findings: --all shows every one", "dim", width)
    return out


BRIEF_LINES = 60    # the default diff: one screen, the largest changes in it, every other row counted
BRIEF_FINDINGS = 2  # the findings ranked first (by impact) in it


def styled_lines(report: DiffReport, width: int = 100, summary: bool = False) -> list[Styled]:
    """The report as styled lines (the CLI prints them plain or in colour); ``--bounds``: AWS's tables
    in place of the full one; a brief view (the terminal's default): as many of its rows as keep the
    report within ``BRIEF_LINES``, the headline, warnings, findings and gates always shown."""
    if not report.view.brief or summary or report.bounds_only:
        return _styled_lines(report, width, summary)
    view = report.view
    fewest = _styled_lines(report._replace(view=cut(view, 0)), width, False)
    low, high = 0, len(view.rows)
    while low < high:  # the most rows that fit (more rows, more lines)
        middle = (low + high + 1) // 2
        lines = _styled_lines(report._replace(view=cut(view, middle)), width, False)
        if len(lines) <= BRIEF_LINES:
            low, fewest = middle, lines
        else:
            high = middle - 1
    return fewest


def _styled_lines(report: DiffReport, width: int, summary: bool) -> list[Styled]:
    summary = summary or report.bounds_only
    out = header(report.comparison, width) + [[]] + body(report, width, summary)
    if report.bounds_only and (bound := report_bound_line(report)) is not None:
        out += [[]] + bounds_lines([s.label for s in report.comparison.sides], bound.bounds, report.versions, width)
    return out + findings(report, width, summary) + [[]] + footer(report, width, summary)

"""AWS's bounds tables (``analysis/gaps.py``) as plain rows: a column per side, then a change column per
variant; their layout, units and change cells: ``docs/bounds.md`` ("The gaps", the ``--bounds`` tables).
"""

from __future__ import annotations

from ..analysis import gaps
from ..analysis.bounds import Bound, Bounds, Missing
from ..escape import html, markdown
from ..units import format_value
from .markup import html_table, markdown_table

# (AWS's name, what it is) in the order of AWS's tables
LEVEL_TITLES = (("memory_bound", "DMA active"), ("memory_bound_ideal", "DMA bytes / DMA bandwidth"),
                ("memory_bound_ideal_no_reloads", "inputs, outputs, weights once"),
                ("compute_bound", "tensor engine active"), ("compute_bound_ideal_flops", "hardware FLOPs / peak"),
                ("compute_bound_ideal_useful_flops", "without transposes"))
Unit = tuple[str, float]


def _unit(found: tuple[Bounds, ...]) -> Unit:
    step = next((b.step for b in found if b.step), None)
    return ("ms", 1e3) if step is not None and step >= 0.1 else ("us", 1e6)


def _time(seconds: float, unit: Unit) -> str:
    value = seconds * unit[1]
    digits = 0 if abs(value) >= 100 else 1 if abs(value) >= 10 else 2
    return f"{value:,.{digits}f} {unit[0]}"


def _change(before: float | None, after: float | None, unit: Unit) -> str:
    if before is None or after is None:
        return "-"
    delta = after - before
    shown = _time(delta, unit)
    if not shown.split(" ")[0].strip("-0.,"):  # rounds to zero in the table's unit
        return "="
    if delta < 0:
        return f"{shown} ({before / after:.1f}x)" if after > 0 else shown
    return f"+{shown}"


class _Table:
    """The rows being built, the change column's pair, and the reasons behind each ``-`` (said once each)."""

    def __init__(self, labels: list[str], found: tuple[Bounds, ...], versions: bool) -> None:
        self.labels, self.found, self.unit = labels, found, _unit(found)
        # (before, after) per change column: each variant against the one before, or against the baseline
        self.pairs = [(at - 1 if versions else 0, at) for at in range(1, len(found))]
        self.change = [f"{labels[before]} -> {labels[after]}" for before, after in self.pairs]
        self.times = [gaps.timeline(b) for b in found]
        self.rows: list[list[str]] = []
        self.notes: dict[str, None] = {}

    def shown(self, value: object, text: str, label: str) -> str:
        if isinstance(value, Missing):
            self.notes.setdefault(f"{label}: {value.label}: {value.reason}")
            return "-"
        return text

    def timed(self, title: str, name: str, cells: list[str]) -> None:
        changes = [_change(self.times[before].get(name), self.times[after].get(name), self.unit)
                   for before, after in self.pairs]
        self.rows.append([title, *cells, *changes])

    def plain(self, title: str, cells: list[str]) -> None:
        self.rows.append([title, *cells, *[""] * len(self.change)])


def bounds_table(labels: list[str], found: tuple[Bounds, ...],
                 versions: bool = False) -> tuple[list[str], list[list[str]], list[str]]:
    """(header, rows, notes) of AWS's tables for these sides."""
    table = _Table(labels, found, versions)
    table.timed("total_time", "total_time", [_time(b.step, table.unit) if b.step else "-" for b in found])
    for at, (aws, _) in enumerate(LEVEL_TITLES):
        table.timed(aws, aws,
                    [_level(table, b.levels[at], label) for b, label in zip(found, labels, strict=True)])
    table.timed("perfect_pipeline", "perfect_pipeline",
                [_level(table, gaps.perfect_pipeline(b), label, True) for b, label in zip(found, labels, strict=True)])
    each = [gaps.gaps(b) for b in found]
    for at, (name, title, _, _, _, part_of) in enumerate(gaps.GAPS):
        table.timed(f"gap: {title} (% of step{f'; of {part_of}' if part_of else ''})", name,
                    [_gap(table, row[at], label) for row, label in zip(each, labels, strict=True)])
    _reading(table)
    return ["bound", *labels, *table.change], table.rows, list(table.notes)


def _level(table: _Table, level: Bound | Missing, label: str, named: bool = False) -> str:
    if isinstance(level, Missing):
        return table.shown(level, "", label)
    return _time(level.seconds, table.unit) + (f" ({gaps.short_name(level.name)})" if named else "")


def _gap(table: _Table, gap: gaps.Gap | Missing, label: str) -> str:
    if isinstance(gap, Missing):
        return table.shown(gap, "", label)
    share = f"{gap.share:.1%}" if gap.share is not None else "-"
    part = f"; {gap.part:.1%}" if gap.part is not None else ""
    return f"{_time(gap.seconds, table.unit)} ({share}{part})"


def _reading(table: _Table) -> None:
    """The bottleneck, next bottleneck, speedup, achieved rates and peaks, one row each."""
    found, labels = table.found, table.labels
    tops = [gaps.short_name(b.bottleneck.name) if b.bottleneck else "-" for b in found]
    table.rows.append(["bottleneck", *tops, *(f"{tops[before]} -> {tops[after]}" if tops[before] != tops[after]
                                              else "=" for before, after in table.pairs)])
    table.plain("next bottleneck (% of its time)",
                [f"{gaps.short_name(n.bound.name)} {n.share:.0%}" if (n := gaps.next_bottleneck(b)) else "-"
                 for b in found])
    table.plain("speedup if ideal (bn_speedup; then)",
                [_speedup(table, gaps.speedup(b), label, b.step) for b, label in zip(found, labels, strict=True)])
    table.notes.setdefault(gaps.ASSUMES)
    for at in range(2):
        rates = [gaps.achieved(b)[at] for b in found]
        table.plain(f"{rates[0].label} (% of peak)",
                    [_rate(table, r, label) for r, label in zip(rates, labels, strict=True)])
    peaks = [b.peaks for b in found]
    table.plain("LNC", [str(p.lnc) if p else "-" for p in peaks])
    table.plain("ideal times per", [p.basis if p else "-" for p in peaks])
    table.plain("peak FLOP/s", [format_value(p.peak_flops, "FLOP/s") if p else "-" for p in peaks])
    table.plain("DMA bandwidth", [format_value(p.dma_bandwidth, "B/s") if p and p.dma_bandwidth else "-"
                                  for p in peaks])
    table.plain("HBM bandwidth", [format_value(p.hbm_bandwidth, "B/s") if p else "-" for p in peaks])


def _speedup(table: _Table, found: gaps.Speedup | Missing, label: str, step: float | None) -> str:
    if isinstance(found, Missing):
        return table.shown(found, "", label)
    if not found.reachable and step:
        table.notes.setdefault(f"{label}: speedup if ideal: {found.why_not(step)}")
    return found.cell + (f" ({gaps.short_name(found.then.name)})" if found.reachable else "")


def _rate(table: _Table, rate: gaps.Rate | Missing, label: str) -> str:
    if isinstance(rate, Missing):
        return table.shown(rate, "", label)
    of_peak = f" ({rate.of_peak:.0%})" if rate.of_peak is not None else ""
    return format_value(rate.value, rate.unit) + of_peak


def peak_notes(labels: list[str], found: tuple[Bounds, ...]) -> list[str]:
    """Where each side's peaks came from, each text once (with the sides it holds for, when not all)."""
    said: dict[str, list[str]] = {}
    for label, b in zip(labels, found, strict=True):
        for text in b.peaks.sources if b.peaks else ():
            said.setdefault(text, []).append(label)
    return [f"{text} [{', '.join(who)}]" if len(who) < len(labels) else text for text, who in said.items()]


TITLE = "Bounds and gaps (AWS's method: neuron-nki-profile-querying, performance-bounds.md)"
LEGEND = "; ".join(f"{aws}: {what}" for aws, what in LEVEL_TITLES) + "; perfect_pipeline: the busiest engine or DMA"


def bounds_markdown(labels: list[str], found: tuple[Bounds, ...], versions: bool) -> list[str]:
    """The table in Markdown, its notes as a list below."""
    header, rows, notes = bounds_table(labels, found, versions)
    out = [f"### {markdown(TITLE)}", "", markdown(LEGEND), "", *markdown_table(header, rows, range(1, len(header)))]
    return out + [""] + [f"- {markdown(text)}" for text in [*peak_notes(labels, found), *notes]]


def bounds_html(labels: list[str], found: tuple[Bounds, ...], versions: bool) -> list[str]:
    """The table in HTML, its notes below."""
    header, rows, notes = bounds_table(labels, found, versions)
    return [f"<h4>{html(TITLE)}</h4>", f'<p class="foot">{html(LEGEND)}</p>', html_table(header, rows),
            *(f'<p class="foot">{html(text)}</p>' for text in [*peak_notes(labels, found), *notes])]

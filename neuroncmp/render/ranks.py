"""``neuroncmp ranks`` in every format: the sentences (unlike ranks first, then each outlier and what
accounts for it), the per-rank rows, the spreads and, with a baseline run, the changes; written as
Markdown, JSON and CSV here and as rich tables by ``terminal/ranks.py``.

JSON and CSV (schema ``neuroncmp.ranks/1``) hold base units (seconds, fractions); the tables human ones.
"""

from __future__ import annotations

from typing import Any

from ..analysis.rank_runs import GateOutcome, RunsComparison, StatChange
from ..analysis.ranks import (
    CAUSE_SHARE,
    COLLECTIVES,
    IDLE,
    PARTS,
    Z_LIMIT,
    Outlier,
    RankRow,
    RanksAnalysis,
    Spread,
    relative_range,
)
from ..commands.ranks import RanksReport
from ..escape import html, markdown
from ..units import SECOND, counted, format_value, pick_scale
from . import tidy
from .changes import relative_text
from .json_out import dumps
from .markup import html_table, markdown_table
from .ops import seconds, signed

SCHEMA = "neuroncmp.ranks/1"
NOT_COMPUTED = "-"
STEP_NAME = "step"
ENGINES = tuple(name for name in PARTS if name != "dma_active_time")


def _share(part: float, whole: float) -> str:
    return f"{part / whole * 100:.0f}%" if whole else NOT_COMPUTED


def _against(value: float, median: float) -> str:
    return relative_text(value / median - 1) if median else NOT_COMPUTED


def opening(analysis: RanksAnalysis) -> list[str]:
    """What the set is, the unlike ranks, then one sentence per outlier."""
    count, unlike = len(analysis.rows), len(analysis.unlike)
    set_of = f"{count + unlike} ranks ({count} of one step, {unlike} unlike)" if unlike else \
        f"{count} ranks of one step"
    said = [f"{set_of} (told apart by {analysis.how}); "
            f"{counted(len(analysis.outliers), 'outlier')}"]
    said += [f"{row.id.name} {why}" for row, why in analysis.unlike]
    said += [outlier_sentence(o, analysis) for o in analysis.outliers]
    return said


def outlier_sentence(outlier: Outlier, analysis: RanksAnalysis) -> str:
    name, parts = outlier.row.id.name, []
    step = analysis.spreads["step"]
    if "slow step" in outlier.kinds:
        parts.append(f"{name} has a slow step: {signed(outlier.step_excess)} "
                     f"({_against(step.median + outlier.step_excess, step.median)}) over the median step "
                     f"{seconds(step.median)} (z {outlier.z['step']:.1f})")
        if outlier.collectives_delta is not None and outlier.outside_excess is not None:
            parts.append(f"collectives {signed(outlier.collectives_delta)} "
                         f"({_share(outlier.collectives_delta, outlier.step_excess)}), outside them "
                         f"{signed(outlier.outside_excess)} ({_share(outlier.outside_excess, outlier.step_excess)})")
    if "late" in outlier.kinds and outlier.outside_excess is not None:
        parts.append(f"{name} is late, the others wait for it: its time outside collectives is "
                     f"{signed(outlier.outside_excess)} over the median ({_share(outlier.outside_excess, step.median)} "
                     f"of the median step; z {outlier.z['outside collectives']:.1f}), "
                     f"its collectives {signed(outlier.collectives_delta)} against theirs")
    parts.append(f"what accounts for it: {breakdown(outlier)}")
    parts.append(f"cause: {cause_text(outlier.cause)}")
    return "; ".join(parts)


def breakdown(outlier: Outlier) -> str:
    """The parts outside collectives against their medians, largest first, and the idle rest."""
    whole = outlier.outside_excess if outlier.outside_excess is not None else outlier.step_excess
    shown = [f"{part} {signed(delta)} ({_share(delta, whole)})" for part, delta in outlier.parts if delta > 0][:3]
    if outlier.idle is not None and outlier.idle > 0:
        shown.append(f"idle or unattributed {signed(outlier.idle)} ({_share(outlier.idle, whole)})")
    if "slow step" in outlier.kinds and outlier.cause == COLLECTIVES:
        return f"collectives {signed(outlier.collectives_delta)} of its {signed(outlier.step_excess)}"
    return ", ".join(shown) or "no part above its median"


def cause_text(cause: str) -> str:
    if cause == COLLECTIVES:
        return "waiting in collectives (a synchronous collective ends together on every rank: time in it over " \
               "the others' is waiting for a later peer)"
    if cause == IDLE:
        return f"idle (no engine or DMA accounts for {CAUSE_SHARE:.0%} of it)"
    return cause


def _busiest(row: RankRow) -> str:
    engines = [(name, value) for name in ENGINES if (value := row.parts.get(name)) is not None]
    if not engines or not row.step:
        return NOT_COMPUTED
    name, value = max(engines, key=lambda item: item[1])
    return f"{PARTS[name].split()[0]} {_points(value / row.step)}"


def _points(fraction: float | None) -> str:
    return NOT_COMPUTED if fraction is None else f"{fraction * 100:.1f}"


def _in(value: float | None, scale: tuple[float, str]) -> str:
    return NOT_COMPUTED if value is None else format_value(value, SECOND, scale, with_unit=False)


def table(analysis: RanksAnalysis) -> tuple[list[str], list[list[str]]]:
    """The per-rank table: its head (each time column in one unit, chosen from its median) and rows."""
    step = analysis.spreads.get(STEP_NAME)
    cc = analysis.spreads.get(COLLECTIVES)
    step_scale = pick_scale(step.median if step else 1.0, SECOND)
    cc_scale = pick_scale(cc.median if cc else 1.0, SECOND)
    head = ["rank", f"step {step_scale[1]}", "vs median", "MFU %", "HFU %", "MBU %", "engine %",
            "DMA %", f"CC {cc_scale[1]}", "CC %", "outlier"]
    flagged = {o.row.id.key: o for o in analysis.outliers}
    rows = []
    for row in analysis.rows:
        outlier = flagged.get(row.id.key)
        dma = row.parts.get("dma_active_time")
        rows.append([row.id.name, _in(row.step, step_scale),
                     _against(row.step, step.median) if step and row.step is not None else NOT_COMPUTED,
                     _points(row.mfu), _points(row.hfu), _points(row.mbu), _busiest(row),
                     _points(dma / row.step) if dma is not None and row.step else NOT_COMPUTED,
                     _in(row.collectives, cc_scale), _points(row.share),
                     "" if outlier is None else ", ".join(outlier.kinds)])
    return head, rows


def spread_line(spread: Spread) -> str:
    ratio = spread.max_over_median
    return (f"{spread.name}: median {seconds(spread.median)}, p90 {seconds(spread.p90)}, max {seconds(spread.max)} "
            f"(max/median {'-' if ratio is None else f'{ratio:.3f}'}), robust sigma {seconds(spread.sigma)}")


def collectives_line(analysis: RanksAnalysis) -> str:
    """The collectives whose time varies most across ranks: per operation where the inputs have it
    (Explorer's CcOp), and the summary's collective metrics."""
    lead = "collectives varying most across ranks: " + (_ranges(analysis.operations) if analysis.operations else
                                                        "per operation: not computed (per-operation times are in "
                                                        "Explorer's CcOp table; these inputs have none)")
    return f"{lead}; totals: {_ranges(analysis.collectives) or 'not computed (no collective time in the profiles)'}"


def _ranges(spreads: tuple[Spread, ...]) -> str:
    varying = [f"{s.name} {seconds(s.min)} to {seconds(s.max)} ({relative_range(s) * 100:.1f}% of its median)"
               for s in spreads if s.max > s.min]
    same = [s.name for s in spreads if s.max == s.min]
    return "; ".join([*varying, *([f"{', '.join(same)} the same on every rank"] if same else [])])


def rule_line(analysis: RanksAnalysis) -> str:
    return (f"outlier rule: above the ranks' median by more than {Z_LIMIT:g} robust sigmas (1.4826 x the median "
            f"absolute deviation) and outside the time noise band ({analysis.band}); tested on the step (slow "
            "step) and on the time outside collectives (late: the rank the others wait for); collectives = "
            "cc_op_active_time, else cc_op_time")


def change_cells(change: StatChange) -> list[str]:
    relative = change.relative
    return [change.quantity, change.stat, seconds(change.baseline), seconds(change.variant),
            signed(change.variant - change.baseline), NOT_COMPUTED if relative is None else relative_text(relative),
            change.verdict]


CHANGE_COLUMNS = ("quantity", "stat", "baseline", "run", "change", "%", "verdict")


def runs_lines(runs: RunsComparison, gates: tuple[GateOutcome, ...]) -> list[str]:
    """The baseline run and each run's outliers, then the gates (the table is drawn by the format)."""
    base, run = runs.baseline, runs.variant
    lines = [f"baseline run: {len(base.rows)} ranks; this run: {len(run.rows)} ranks; verdicts by the time "
             f"noise band ({runs.band}); rank-to-rank noise (robust sigma of the step): baseline "
             f"{seconds(_sigma(base))}, this run {seconds(_sigma(run))}",
             f"outliers: baseline {_outliers(base)}; this run {_outliers(run)}"]
    lines += [gate_line(outcome) for outcome in gates]
    return lines


def _sigma(analysis: RanksAnalysis) -> float | None:
    step = analysis.spreads.get("step")
    return None if step is None else step.sigma


def _outliers(analysis: RanksAnalysis) -> str:
    return ", ".join(f"{o.row.id.name} ({', '.join(o.kinds)}: {o.cause})" for o in analysis.outliers) or "none"


def gate_line(outcome: GateOutcome) -> str:
    change, gate = outcome.change, outcome.gate
    if change is None or change.relative is None:
        return f"gate {gate.text}: not judged ({gate.quantity} not computed in both runs)"
    state = "TRIPPED" if outcome.tripped else "passed"
    return (f"gate {gate.text}: {gate.quantity} {gate.stat} {seconds(change.baseline)} -> {seconds(change.variant)} "
            f"({relative_text(change.relative)}): {state}")


def records(report: RanksReport) -> list[dict[str, Any]]:
    """Tidy rows in base units: one per rank, its outlier kinds and cause."""
    analysis = report.analysis
    flagged = {o.row.id.key: o for o in analysis.outliers}
    unlike = {row.id.key: why for row, why in analysis.unlike}
    rows = [*analysis.rows, *(row for row, _ in analysis.unlike)]
    return [_record(row, flagged.get(row.id.key), unlike.get(row.id.key)) for row in rows]


def _record(row: RankRow, outlier: Outlier | None, unlike: str | None) -> dict[str, Any]:
    return {"rank": row.id.rank, "name": row.id.name, "identified_by": row.id.how, "label": row.label,
            "step_s": row.step, "collectives_s": row.collectives, "collectives_from": row.collectives_from,
            "outside_collectives_s": row.outside, "collective_share": row.share, "mfu": row.mfu, "hfu": row.hfu,
            "mbu": row.mbu, **{f"{name}_s": row.parts.get(name) for name in PARTS},
            "outlier": ",".join(outlier.kinds) if outlier else "", "cause": outlier.cause if outlier else "",
            "step_excess_s": outlier.step_excess if outlier else None, "unlike": unlike or ""}


def _spread(spread: Spread) -> dict[str, Any]:
    return {"count": spread.count, "median_s": spread.median, "p90_s": spread.p90, "max_s": spread.max,
            "min_s": spread.min, "max_over_median": spread.max_over_median, "robust_sigma_s": spread.sigma}


def _outlier(outlier: Outlier) -> dict[str, Any]:
    return {"name": outlier.row.id.name, "rank": outlier.row.id.rank, "kinds": list(outlier.kinds),
            "cause": outlier.cause, "step_excess_s": outlier.step_excess,
            "outside_collectives_excess_s": outlier.outside_excess, "collectives_delta_s": outlier.collectives_delta,
            "parts_s": dict(outlier.parts), "idle_s": outlier.idle, "z": dict(outlier.z)}


def _analysis(analysis: RanksAnalysis) -> dict[str, Any]:
    return {"identified_by": analysis.how, "noise_band": str(analysis.band), "z_limit": Z_LIMIT,
            "spreads": {name: _spread(s) for name, s in analysis.spreads.items()},
            "outliers": [_outlier(o) for o in analysis.outliers],
            "unlike": [{"name": row.id.name, "why": why} for row, why in analysis.unlike],
            "collectives": {s.name: _spread(s) for s in analysis.collectives},
            "collective_operations": {s.name: _spread(s) for s in analysis.operations}, "notes": list(analysis.notes)}


def json_text(report: RanksReport) -> str:
    data: dict[str, Any] = {"schema": SCHEMA, **_analysis(report.analysis), "ranks": records(report)}
    if report.runs is not None:
        data["baseline"] = {**_analysis(report.runs.baseline),
                            "ranks": records(RanksReport(report.runs.baseline))}
        data["changes"] = [{"quantity": c.quantity, "stat": c.stat, "baseline_s": c.baseline, "run_s": c.variant,
                            "relative_change": c.relative, "verdict": c.verdict} for c in report.runs.changes]
        data["gates"] = [{"gate": g.gate.text, "tripped": g.tripped} for g in report.gates]
    return dumps(data, indent=2) + "\n"


CSV_FIELDS = ("schema", "run", "rank", "name", "identified_by", "label", "step_s", "collectives_s",
              "collectives_from", "outside_collectives_s", "collective_share", "mfu", "hfu", "mbu",
              *(f"{name}_s" for name in PARTS), "outlier", "cause", "step_excess_s", "unlike")


def csv_text(report: RanksReport) -> str:
    runs = [("baseline", RanksReport(report.runs.baseline))] if report.runs is not None else []
    return tidy.csv_text(CSV_FIELDS, ({"schema": SCHEMA, "run": run, **row}
                                      for run, shown in [*runs, ("run", report)] for row in records(shown)))


def markdown_text(report: RanksReport) -> str:
    analysis, out = report.analysis, ["# Ranks", ""]
    out += [f"- {markdown(line)}" for line in opening(analysis)]
    head, rows = table(analysis)
    out += ["", *markdown_table(head, rows), ""]
    out += [f"- {markdown(line)}" for line in tail_lines(analysis)]
    if report.runs is not None:
        out += ["", "## Against the baseline run", "",
                *markdown_table(CHANGE_COLUMNS, [change_cells(c) for c in report.runs.changes]), "",
                *(f"- {markdown(line)}" for line in runs_lines(report.runs, report.gates))]
    return "\n".join(out) + "\n"


def tail_lines(analysis: RanksAnalysis) -> list[str]:
    """After the table: the spreads, the collectives that vary most, the rule and the notes."""
    return [*(spread_line(s) for s in analysis.spreads.values()), collectives_line(analysis), rule_line(analysis),
            *analysis.notes]


def html_text(report: RanksReport) -> str:
    analysis = report.analysis
    head, rows = table(analysis)
    parts = ['<!doctype html><html><head><meta charset="utf-8"><title>neuroncmp ranks</title></head><body>',
             "<h1>Ranks</h1>", *(f"<p>{html(line)}</p>" for line in opening(analysis)), html_table(head, rows),
             "<ul>", *(f"<li>{html(line)}</li>" for line in tail_lines(analysis)), "</ul>"]
    if report.runs is not None:
        parts += ["<h2>Against the baseline run</h2>",
                  html_table(CHANGE_COLUMNS, [change_cells(c) for c in report.runs.changes]),
                  "<ul>", *(f"<li>{html(line)}</li>" for line in runs_lines(report.runs, report.gates)), "</ul>"]
    return "\n".join([*parts, "</body></html>"]) + "\n"

"""``neuroncmp diff``: load -> compare -> select a view -> check gates -> render."""

from __future__ import annotations

from typing import Any

import click

from ..choices import SORTS, Basis, Order, Sort
from ..errors import GateTripped, UsageError
from .app import BoundaryCommand
from .options import (
    all_option,
    baseline_option,
    basis_option,
    fail_on_option,
    format_in_option,
    order_option,
    output_options,
    pairs,
    peak_options,
    store_option,
    terminal_options,
    threshold_option,
    where_option,
)


@click.command(cls=BoundaryCommand)
@click.argument("files", nargs=-1, required=True, type=click.Path())
@baseline_option
@click.option("--group", "groups", multiple=True, metavar="GROUP", help="Only these catalog groups.")
@click.option("--metric", "globs", multiple=True, metavar="GLOB", help="Only metrics matching GLOB.")
@click.option("--only-changed", is_flag=True, help="Hide rows inside the noise band (counted).")
@all_option
@click.option("--sort", type=click.Choice(SORTS), default="group", show_default=True,
              help="group: catalog order; change: biggest change first, measured in noise bands; name.")
@order_option
@click.option("--summary", "--headline", "summary", is_flag=True,
              help="Only the headline (the key numbers per variant), not the full table.")
@click.option("--bounds", "bounds_only", is_flag=True,
              help="AWS's bounds and gaps per side (memory, compute, pipeline) with each change, not the table.")
@click.option("--versions", is_flag=True,
              help="The variants are successive versions, in the order given: each is also judged "
                   "against the one before (implies --order given).")
@peak_options
@basis_option
@threshold_option("N%|Npp|AMOUNT", "Noise band or absolute floor, per kind or metric glob: '5%', 'time=2%', "
                                   "'fraction=1pp', 'spill_*=0.5%', 'bytes=1MiB', 'time=1us'.")
@output_options("diff")
@fail_on_option("RULE", "Exit 3 if RULE trips, e.g. 'mfu_estimated_percent<-2pp', 'total_time/sample>+5%'.")
@click.option("--allow-incomparable", is_flag=True,
              help="Judge --fail-on gates on runs of different workloads (refused otherwise, exit 2).")
@format_in_option
@terminal_options
@click.option("--baseline-history", is_flag=True,
              help="Compare one new FILE with the recent runs of its series in the store.")
@click.option("--history-runs", type=click.IntRange(5), default=20, show_default=True, metavar="N",
              help="With --baseline-history: how many recent runs form the baseline.")
@where_option
@store_option
def diff(files: tuple[str, ...], baseline: str | None, groups: tuple[str, ...], globs: tuple[str, ...],
         only_changed: bool, all_rows: bool, sort: Sort, order: Order, summary: bool, bounds_only: bool,
         versions: bool,
         peak_flops: float | None, hbm_bandwidth: float | None, dma_bandwidth: float | None, basis: Basis,
         bands: tuple[str, ...],
         fmt: str | None, output: str | None, rules: tuple[str, ...], allow_incomparable: bool,
         format_in: str | None, no_color: bool,
         width: int | None, baseline_history: bool, history_runs: int, where: tuple[str, ...],
         store_path: str) -> None:
    """Compare a baseline against variants: FILES are profiles, multi-section exports or run folders."""
    from ..commands.diff import DiffOptions, diff_report, history_diff_report
    from .output import check_output, choose, emit, notes, warn

    renderer = choose("diff", fmt, output)
    check_output(output, files, store=store_path if baseline_history else None)
    options = DiffOptions(baseline=baseline, basis=basis, thresholds=bands, order=order, groups=groups,
                          metrics=globs, only_changed=only_changed, sort=sort, rules=rules, summary=summary,
                          peak_flops=peak_flops, hbm_bandwidth=hbm_bandwidth, dma_bandwidth=dma_bandwidth,
                          versions=versions, bounds_only=bounds_only, allow_incomparable=allow_incomparable,
                          brief=_brief(renderer.name, all_rows or output is not None,
                                       summary or bounds_only or only_changed, groups + globs, sort))
    if baseline_history:
        report = history_diff_report(_store(files, baseline, store_path), files[0], options, runs=history_runs,
                                     where=pairs(where, "--where"))
    else:
        from ..ingest import load_set

        profiles, said = load_set(files, format_in)
        notes(said)
        report = diff_report(profiles, options)
    if renderer.kind == "table":  # rows only: the warnings and gate outcomes go to standard error
        warn(report.comparison.warnings)
        for gate in report.gates:
            click.echo(gate.line, err=True)
    emit(renderer, "diff", report, output, no_color, width)
    if any(gate.tripped for gate in report.gates):
        raise GateTripped("a --fail-on gate tripped")


def _brief(fmt: str, all_rows: bool, chosen: bool, filters: tuple[str, ...], sort: Sort) -> bool:
    """The terminal's default: one screen (``DiffOptions.brief``), unless ``--all`` (or ``-o``: a file keeps
    every row) or rows chosen otherwise (--summary, --bounds-only, --only-changed, --group, --metric, --sort)."""
    return fmt == "term" and not (all_rows or chosen or filters or sort != "group")


def _store(files: tuple[str, ...], baseline: str | None, store_path: str) -> Any:
    """``--baseline-history``: the store holding the recent runs of one FILE's series."""
    from ..store import Store

    if len(files) != 1 or baseline:
        raise UsageError("--baseline-history compares one FILE (and takes no --baseline)")
    return Store(store_path)

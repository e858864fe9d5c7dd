"""``neuroncmp sweep``: a batch-size sweep read as a whole: pick the batch size, say what limits it."""

from __future__ import annotations

from typing import Any

import click

from ..errors import MissingDependencyError, UsageError
from .app import BoundaryCommand
from .options import Number, format_in_option, output_options, peak_options, terminal_options


def _bytes(text: str | None) -> float | None:
    """``16GiB`` -> bytes (a bare number is GiB)."""
    if text is None:
        return None
    from ..arguments import override
    from ..units import BYTE, parse_display

    parsed = parse_display(text if any(c.isalpha() for c in text) else f"{text} GiB")
    if parsed is None or parsed[1] != BYTE or isinstance(parsed[0], str):
        raise UsageError(f"--hbm-per-core {text!r}: expected a size such as 16GiB")
    try:
        return override("hbm_per_core", parsed[0], "--hbm-per-core")
    except UsageError as exc:
        raise UsageError(f"--hbm-per-core {text!r}: {str(exc).split(': ', 1)[-1]}") from None


@click.command(cls=BoundaryCommand)
@click.argument("files", nargs=-1, required=True, type=click.Path())
@click.option("--price-per-hour", type=Number(1e6, " USD"), default=None, metavar="USD",
              help="Instance price per hour, for the cost per million samples (no price is assumed).")
@click.option("--hbm-per-core", metavar="SIZE", default=None,
              help="Device memory one NeuronCore has (default: the instance family's, e.g. 16GiB on trn1).")
@peak_options
@click.option("--charts", "charts_dir", type=click.Path(file_okay=False), default=None, metavar="DIR",
              help="Also write throughput.png, roofline.png and memory.png into DIR (needs the plot extra).")
@output_options("sweep")
@format_in_option
@terminal_options
def sweep(files: tuple[str, ...], price_per_hour: float | None, hbm_per_core: str | None,
          peak_flops: float | None, hbm_bandwidth: float | None, dma_bandwidth: float | None,
          charts_dir: str | None,
          fmt: str | None,
          output: str | None,
          format_in: str | None, no_color: bool, width: int | None) -> None:
    """Analyse a batch-size sweep: FILES are profiles or run folders (one profile per batch size).

    Prints the sweep table, the step-time fit, the knee, the roofline, the memory forecast, a
    recommended batch size and the findings ranked by estimated impact."""
    from ..commands.sweep import SweepOptions, sweep_report
    from ..ingest import load_set
    from .output import check_outputs, choose, emit, notes

    renderer = choose("sweep", fmt, output)
    pngs = _chart_paths(charts_dir)
    check_outputs([*([("-o", output)] if output is not None else []),
                   *(("--charts", str(png)) for png in pngs)], files)
    options = SweepOptions(price_per_hour, _bytes(hbm_per_core), peak_flops, hbm_bandwidth, dma_bandwidth)
    profiles, said = load_set(files, format_in)
    notes(said)
    result = sweep_report(profiles, options)
    charts = _charts(pngs, result)  # every chart drawn before any file is written: none half-made
    emit(renderer, "sweep", result, output, no_color, width)
    if charts:
        from ..atomic import write_atomic

        for path, data in charts.items():
            write_atomic(path, data)


def _chart_paths(charts_dir: str | None) -> list[Any]:
    """The files ``--charts DIR`` writes (checked with ``-o`` before anything is read)."""
    if not charts_dir:
        return []
    from pathlib import Path

    from ..render import charts

    if not charts.available():
        raise MissingDependencyError("--charts needs matplotlib: pip install 'neuroncmp[plot]'")
    return [Path(charts_dir) / f"{name}.png" for name in charts.FIGURES]


def _charts(paths: list[Any], result: Any) -> dict[Any, bytes]:
    if not paths:
        return {}
    from ..render import charts

    return {path: charts.png(build(result)) for path, build in zip(paths, charts.FIGURES.values(), strict=True)}

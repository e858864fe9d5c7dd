"""``neuroncmp sweep``: a batch-size sweep read as a whole: pick the batch size, say what limits it."""

from __future__ import annotations

import click

from .app import cli
from .options import format_in_option, no_color_option, output_options, width_option


def _bytes(text: str | None) -> float | None:
    """``16GiB`` -> bytes (a bare number is GiB)."""
    if text is None:
        return None
    from ..errors import UsageError
    from ..units import BYTE, parse_display

    parsed = parse_display(text if any(c.isalpha() for c in text) else f"{text} GiB")
    if parsed is None or parsed[1] != BYTE or parsed[0] <= 0:
        raise UsageError(f"--hbm-per-core {text!r}: expected a size such as 16GiB")
    return float(parsed[0])


@cli.command()
@click.argument("files", nargs=-1, required=True, type=click.Path())
@click.option("--price-per-hour", type=click.FloatRange(min=0, min_open=True), default=None, metavar="USD",
              help="Instance price per hour, for the cost per million samples (no price is assumed).")
@click.option("--hbm-per-core", metavar="SIZE", default=None,
              help="Device memory one NeuronCore has (default: the instance family's, e.g. 16GiB on trn1).")
@click.option("--peak-tflops", type=click.FloatRange(min=0, min_open=True), default=None,
              help="Peak dense BF16 TFLOP/s of one core (default: implied by the profile's MFU, else the table's).")
@click.option("--hbm-gbps", type=click.FloatRange(min=0, min_open=True), default=None,
              help="HBM bandwidth of one core in GB/s (default: peak / the profile's ridge, else the table's).")
@click.option("--charts", "charts_dir", type=click.Path(file_okay=False), default=None, metavar="DIR",
              help="Also write throughput.png, roofline.png and memory.png into DIR (needs the plot extra).")
@output_options("sweep")
@format_in_option
@no_color_option
@width_option
def sweep(files: tuple[str, ...], price_per_hour: float | None, hbm_per_core: str | None,
          peak_tflops: float | None, hbm_gbps: float | None, charts_dir: str | None, fmt: str | None,
          output: str | None,
          format_in: str | None, no_color: bool, width: int | None) -> None:
    """Analyse a batch-size sweep: FILES are profiles or run folders (one profile per batch size).

    Prints the sweep table, the step-time fit, the knee, the roofline, the memory forecast, a
    recommended batch size and the findings ranked by estimated impact."""
    from ..analysis.sweep import sweep as analyse
    from ..ingest import load_set
    from .output import check_output, choose, emit, notes

    renderer = choose("sweep", fmt, output)
    check_output(output, files)
    hbm = _bytes(hbm_per_core)
    if charts_dir:
        from ..errors import MissingDependencyError
        from ..render.charts import available

        if not available():
            raise MissingDependencyError("--charts needs matplotlib: pip install 'neuroncmp[plot]'")
    profiles, said = load_set(files, format_in)
    notes(said)
    result = analyse(profiles, price_per_hour=price_per_hour, hbm_per_core=hbm,
                     peak_flops=peak_tflops * 1e12 if peak_tflops else None,
                     hbm_bandwidth=hbm_gbps * 1e9 if hbm_gbps else None)
    emit(renderer, "sweep", result, output, no_color, width)
    if charts_dir:
        from pathlib import Path

        from ..atomic import write_atomic
        from ..render import charts  # noqa: F811

        for name, build in charts.FIGURES.items():
            write_atomic(Path(charts_dir) / f"{name}.png", charts.png(build(result)))

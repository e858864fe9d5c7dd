"""Options shared by several commands, as reusable decorators (sqlite-utils' habit)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

from ..choices import LISTING_FORMATS


class FormatChoice(click.Choice):  # type: ignore[type-arg]  # Choice is generic in click 8.2; str choices
    """``--format`` choices read from the renderer registry only when needed (not for ``--help``)."""

    def __init__(self, document: str) -> None:
        self.document = document
        self.case_sensitive = True

    @property
    def choices(self) -> tuple[str, ...]:  # type: ignore[override]  # lazy: read when used
        from ..render.registry import names

        return tuple(names(self.document))

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        """Check one name (importing only its module), not the whole list."""
        from ..errors import UsageError
        from ..render.registry import by_name

        try:
            by_name(value, self.document)
        except UsageError as exc:
            self.fail(str(exc), param, ctx)
        return value


format_in_option = click.option(
    "--format-in", "format_in", metavar="NAME", default=None,
    help="Force the input parser (see 'neuroncmp formats'); default: by suffix and content.")
no_color_option = click.option("--no-color", is_flag=True, help="Plain text, no colour.")
width_option = click.option("--width", type=click.IntRange(40, 400), default=None,
                            help="Terminal width in columns (default: the terminal's).")


F = TypeVar("F", bound=Callable[..., Any])


def output_options(document: str) -> Callable[[F], F]:
    """``--format`` and ``-o FILE`` for a command rendering ``document``."""
    def decorate(func: F) -> F:
        # not dir_okay=False: a directory is refused by atomic.target_of with exit 1, as docs/limits.md says
        func = click.option("-o", "--output", type=click.Path(), default=None,
                            help="Write to FILE (atomically) instead of the terminal.")(func)
        return click.option("--format", "fmt", type=FormatChoice(document), default=None,
                            help="Output format (default: term, or from -o's extension).")(func)
    return decorate


def listing_options(func: F) -> F:
    """``--format term|json``, ``-o FILE``, ``--width`` and ``--no-color`` for a command that
    prints a listing of its own (``formats``, ``store ls``, ``store check``): the options every
    report command has, so the vocabulary is one across commands."""
    func = width_option(func)
    func = no_color_option(func)
    func = click.option("-o", "--output", type=click.Path(), default=None,
                        help="Write to FILE (atomically) instead of the terminal.")(func)
    return click.option("--format", "fmt", type=click.Choice(LISTING_FORMATS), default=None,
                        help="Output format (default: term, or json from -o FILE.json).")(func)


class Number(click.ParamType[float, Any]):
    """A finite number above 0 (or from 0, ``zero_ok``) and at most ``high`` (``arguments``):
    click's ``FloatRange`` lets NaN through every bound and takes infinities."""

    name = "number"

    def __init__(self, high: float, unit: str = "", zero_ok: bool = False) -> None:
        self.high, self.unit, self.zero_ok = high, unit, zero_ok

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        from ..arguments import fraction_floor, number
        from ..errors import UsageError

        option = param.opts[0] if param is not None and param.opts else "value"
        try:
            parsed = value if isinstance(value, float) else float(str(value).strip())
        except ValueError:
            self.fail(f"{value!r}: expected a number", param, ctx)
        try:
            if self.zero_ok:
                return fraction_floor(option, parsed, self.high)
            return number(option, parsed, 0.0, self.high, self.unit)
        except UsageError as exc:
            self.fail(f"{value!r}: {str(exc).split(': ', 1)[-1]}", param, ctx)


def peak_options(func: F) -> F:
    """``--peak-tflops``, ``--hbm-gbps`` and ``--dma-gbps``: the hardware numbers the bounds divide by, for
    ``sweep``, ``diff`` and ``show`` alike (default: what each profile states or implies, else the table's;
    ``analysis/peaks.py``). Given as the command line's units; ``peak_values`` turns them to base units."""
    func = click.option("--dma-gbps", type=Number(1e6, " GB/s"), default=None,
                        help="DMA bandwidth of one core in GB/s, for DMA bytes (default: the profile's "
                             "dma_ddr_bandwidth, else 435 a physical core).")(func)
    func = click.option("--hbm-gbps", type=Number(1e6, " GB/s"), default=None,
                        help="HBM bandwidth of one core in GB/s, for HBM bytes (default: peak / the "
                             "profile's ridge or what MBU implies, else the table's).")(func)
    return click.option("--peak-tflops", type=Number(1e6, " TFLOP/s"), default=None,
                        help="Peak dense BF16 TFLOP/s of one core (default: the profiler header's, else "
                             "implied by HFU or MFU, else the table's).")(func)


def peak_values(peak_tflops: float | None, hbm_gbps: float | None,
                dma_gbps: float | None) -> tuple[float | None, float | None, float | None]:
    """``peak_options``' values in base units: (FLOP/s, HBM bytes/s, DMA bytes/s)."""
    return (peak_tflops * 1e12 if peak_tflops else None, hbm_gbps * 1e9 if hbm_gbps else None,
            dma_gbps * 1e9 if dma_gbps else None)

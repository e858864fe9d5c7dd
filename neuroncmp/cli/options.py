"""Every option two or more commands take, declared once as a reusable decorator: the flag, its type
and default are the same wherever it appears, and its help too unless the command says what it does
with it (``-o``, ``--threshold``). An option only one command takes is declared beside that command
(``tests/test_cli_commands.py`` checks that no flag is declared twice).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

import click

from ..arguments import TEXT_WIDTHS
from ..choices import AUTO, BASES, ENGINE_NAMES, LISTING_FORMATS, ORDERS
from ..errors import UsageError


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
width_option = click.option("--width", type=click.IntRange(*TEXT_WIDTHS), default=None,
                            help="Terminal width in columns (default: the terminal's).")


F = TypeVar("F", bound=Callable[..., Any])


def terminal_options(func: F) -> F:
    """``--no-color`` and ``--width``: how the terminal draws what a command prints."""
    return no_color_option(width_option(func))


def _format_option(choices: click.ParamType[Any, Any], default_help: str) -> Callable[[F], F]:
    return click.option("--format", "fmt", type=choices, default=None, help=f"Output format (default: {default_help}).")


def _output_option(help: str, metavar: str | None = None, dest: str = "output", required: bool = False,
                   type: click.ParamType[Any, Any] | None = None) -> Callable[[F], F]:
    """``-o``: the file a report is written to (atomically), or the folder a command writes."""
    # a file: not dir_okay=False, a directory is refused by atomic.target_of with exit 1, as docs/limits.md says
    return click.option("-o", "--output", dest, metavar=metavar, required=required, type=type or click.Path(),
                        default=None, help=help)


def output_options(document: str) -> Callable[[F], F]:
    """``--format`` and ``-o FILE`` for a command rendering ``document``."""
    def decorate(func: F) -> F:
        func = _output_option("Write to FILE (atomically) instead of the terminal.")(func)
        return _format_option(FormatChoice(document), "term, or from -o's extension")(func)
    return decorate


def output_folder_option(help: str, dest: str = "output",
                         type: click.ParamType[Any, Any] | None = None) -> Callable[[F], F]:
    """``-o DIR``, required: the folder ``convert`` and ``report`` write."""
    return _output_option(help, "DIR", dest, required=True, type=type)


def listing_options(func: F) -> F:
    """``--format term|json``, ``-o FILE``, ``--width`` and ``--no-color`` for a command that
    prints a listing of its own (``formats``, ``store ls``, ``store check``): the options every
    report command has, so the vocabulary is one across commands."""
    func = terminal_options(func)
    func = _output_option("Write to FILE (atomically) instead of the terminal.")(func)
    return _format_option(click.Choice(LISTING_FORMATS), "term, or json from -o FILE.json")(func)


def _baseline(metavar: str, help: str, **kwargs: Any) -> Callable[[F], F]:
    """``--baseline``: what a run is compared against (a side's label, or another run's files)."""
    return click.option("--baseline", "baseline", metavar=metavar, help=help, **kwargs)


# The sides of a comparison (``diff``, ``ops``).
baseline_option = _baseline("LABEL", "Label of the baseline (diff also takes a section title; default: the first "
                                     "profile).")
# The baseline run of ``ranks``: its per-rank files.
baseline_run_option = _baseline("PATH", "A baseline run's per-rank files or folder (repeat for several): compare "
                                        "the two runs' distributions.", multiple=True, type=click.Path())


def fail_on_option(metavar: str, help: str) -> Callable[[F], F]:
    """``--fail-on``: gates a command judges (its rules, ``metavar``, differ per command); exit 3 on a trip."""
    return click.option("--fail-on", "rules", multiple=True, metavar=metavar, help=help)
basis_option = click.option(
    "--basis", type=click.Choice(BASES), default=AUTO, show_default=True,
    help="Extensive values (times, bytes, FLOPs) per step or per sample; auto: per sample when batch "
         "sizes differ.")
order_option = click.option(
    "--order", type=click.Choice(ORDERS), default="batch", show_default=True,
    help="Variants by batch size (when all are known) or in the order given.")


def all_option(func: F) -> F:
    """``--all``: the terminal's whole report, where its default fits one screen (``diff``, ``ops``,
    ``history``)."""
    return click.option("--all", "all_rows", is_flag=True,
                        help="Everything in the terminal: every row (diff: every finding and note too; ops: "
                             "every operator; history: every point), where its default fits one screen.")(func)


def threshold_option(kinds: str, help: str) -> Callable[[F], F]:
    """``--threshold``: noise bands of the ``kinds`` a command judges (``N%|Npp|AMOUNT``)."""
    return click.option("--threshold", "bands", multiple=True, metavar=f"[KEY=]{kinds}", help=help)


class Number(click.ParamType[float, Any]):
    """A finite number above 0 (or from 0, ``zero_ok``) and at most ``high`` (``arguments``):
    click's ``FloatRange`` lets NaN through every bound and takes infinities."""

    name = "number"

    def __init__(self, high: float, unit: str = "", zero_ok: bool = False) -> None:
        self.high, self.unit, self.zero_ok = high, unit, zero_ok

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        option = param.opts[0] if param is not None and param.opts else "value"
        try:
            parsed = value if isinstance(value, float) else float(str(value).strip())
        except ValueError:
            self.fail(f"{value!r}: expected a number", param, ctx)
        try:
            return self.checked(option, parsed)
        except UsageError as exc:
            self.fail(f"{value!r}: {str(exc).split(': ', 1)[-1]}", param, ctx)

    def checked(self, option: str, parsed: float) -> float:
        from ..arguments import fraction_floor, number

        return fraction_floor(option, parsed, self.high) if self.zero_ok else \
            number(option, parsed, 0.0, self.high, self.unit)


class Override(Number):
    """A hardware number the user gives for the bounds (``arguments.OVERRIDES[name]``: the same range
    as the library's argument), in the option's unit: ``scale`` base units each (1e12 for TFLOP/s).
    The command receives it in base units."""

    def __init__(self, name: str, scale: float, unit: str) -> None:
        super().__init__(0.0, unit)
        self.override, self.scale = name, scale

    def checked(self, option: str, parsed: float) -> float:
        from ..arguments import override

        return override(self.override, parsed, option, self.scale, self.unit) * self.scale


def peak_options(func: F) -> F:
    """``--peak-tflops``, ``--hbm-gbps`` and ``--dma-gbps``: the hardware numbers the bounds divide by, for
    ``sweep``, ``diff`` and ``show`` alike (default: what each profile states or implies, else the table's;
    ``analysis/peaks.py``). Given as the command line's units, received in base units: ``peak_flops``
    (FLOP/s), ``hbm_bandwidth`` and ``dma_bandwidth`` (bytes/s)."""
    func = click.option("--dma-gbps", "dma_bandwidth", type=Override("dma_bandwidth", 1e9, " GB/s"), default=None,
                        help="DMA bandwidth of one core in GB/s, for DMA bytes (default: the profile's "
                             "dma_ddr_bandwidth, else 435 a physical core).")(func)
    func = click.option("--hbm-gbps", "hbm_bandwidth", type=Override("hbm_bandwidth", 1e9, " GB/s"), default=None,
                        help="HBM bandwidth of one core in GB/s, for HBM bytes (default: peak / the "
                             "profile's ridge or what MBU implies, else the table's).")(func)
    return click.option("--peak-tflops", "peak_flops", type=Override("peak_flops", 1e12, " TFLOP/s"), default=None,
                        help="Peak dense BF16 TFLOP/s of one core (default: the profiler header's, else "
                             "implied by HFU or MFU, else the table's).")(func)


# The store (``store``, ``history``, ``regressions``, ``report``, ``diff --baseline-history``).
store_option = click.option(
    "--store", "store_path", metavar="PATH", envvar="NEURONCMP_STORE", default=".neuroncmp",
    show_default=True, help="The store folder (or set NEURONCMP_STORE).")
where_option = click.option(
    "--where", "where", multiple=True, metavar="KEY=VALUE",
    help="Only runs with this tag (repeatable: all keys must match, any value of a repeated key).")

series_by_option = click.option(
    "--series-by", "series_by", metavar="KEY,KEY", default=None,
    help="Form series by these tags only (e.g. model,batch_size); default: the store's setting "
         "('neuroncmp store series-by'), else every tag.")


_ENGINE_OPTIONS = (
    click.option("--engine", type=click.Choice(ENGINE_NAMES), envvar="NEURONCMP_ENGINE",
                 default="duckdb", show_default=True,
                 help="Query engine (or set NEURONCMP_ENGINE); spark needs the spark extra and Java 17."),
    click.option("--spark-master", metavar="URL", default=None,
                 help="Spark master (default: SPARK_MASTER, else local[*]); SPARK_REMOTE for Spark Connect."),
    click.option("--conf", "spark_conf", multiple=True, metavar="KEY=VALUE",
                 help="A Spark setting (repeatable), over spark-defaults.conf."),
)


def engine_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """``--engine``, ``--spark-master`` and ``--conf``, given to the command as one ``engine``."""
    @functools.wraps(command)
    def wrapper(*args: Any, engine: str, spark_master: str | None, spark_conf: tuple[str, ...],
                **kwargs: Any) -> Any:
        from ..store.engines import choose

        conf = {k: v[-1] for k, v in pairs(spark_conf, "--conf").items()}
        return command(*args, engine=choose(engine, master=spark_master, conf=conf), **kwargs)
    for option in reversed(_ENGINE_OPTIONS):
        wrapper = option(wrapper)
    return wrapper


def pairs(texts: tuple[str, ...], option: str) -> dict[str, list[str]]:
    """``("model=llama", "bs=32")`` -> ``{"model": ["llama"], "bs": ["32"]}``; a text without
    ``=`` or with an empty key is a usage error."""
    out: dict[str, list[str]] = {}
    for text in texts:
        key, sep, value = text.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"{option} {text!r}: expected KEY=VALUE")
        out.setdefault(key.strip(), []).append(value.strip())
    return out


def since_option(changes: str) -> Callable[[F], F]:
    """``--since``: only changes whose best estimate of the first new run is later (``regressions``,
    ``report``)."""
    return click.option("--since", metavar="ISO-TIME", default=None,
                        help="Only changes whose best estimate of the first new run (at run) is later than "
                             f"this{changes}.")

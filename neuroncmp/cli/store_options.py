"""Options of the store's commands (``store``, ``history``, ``regressions``)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import click

from ..choices import ENGINE_NAMES

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
    from ..errors import UsageError

    out: dict[str, list[str]] = {}
    for text in texts:
        key, sep, value = text.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"{option} {text!r}: expected KEY=VALUE")
        out.setdefault(key.strip(), []).append(value.strip())
    return out

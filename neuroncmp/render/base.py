"""The renderer interface: one small class per output format, found by the registry. What a format
declares and the documents it may render: ``docs/code.md`` ("Adding an output format")."""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module
from typing import TYPE_CHECKING, Any, ClassVar, Generic, NamedTuple, TypeVar

if TYPE_CHECKING:  # types only: the registry (metrics, formats, the store's commands) loads no analysis
    from ..commands.documents import (
        DiffReport as DiffReport,  # renderers import it here (see __getattr__)
    )
    from ..store.reading import Run
    from ..store.trends import History, Regressions


def __getattr__(name: str) -> Any:
    """``DiffReport`` lives in ``commands/documents.py``; renderers import it from here. It loads on
    first use so that a store command, which never renders a comparison, loads no comparison code."""
    if name == "DiffReport":
        from ..commands.documents import DiffReport

        return DiffReport
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


Found = TypeVar("Found")


class HistoryReport(NamedTuple):
    """``neuroncmp history``: a store's ``History`` of one metric, the last ``last`` points shown."""

    history: History
    last: int | None = None


class RegressionsReport(NamedTuple):
    """``neuroncmp regressions``: a store's ``Regressions`` and where the store is."""

    regressions: Regressions
    store: str


class FormatsReport(NamedTuple):
    """``neuroncmp formats``: the input formats (the parsers) and the output formats (the renderers)."""

    parsers: tuple[Any, ...]
    renderers: tuple[Any, ...]


class StoreRunsReport(NamedTuple):
    """``neuroncmp store ls``: the runs and the keys that form their series."""

    runs: tuple[Run, ...]
    series_by: tuple[str, ...]


class StoreReport(NamedTuple, Generic[Found]):
    """What a store command did or found, and the store: ``store add`` (an ``AddReport``), ``store check``
    (a ``CheckReport``), ``store compact`` (a ``CompactReport``), ``store series-by`` (the keys the
    series are formed by; empty: every tag)."""

    report: Found
    store: str


class Renderer:
    """Base class of the output formats."""

    name: ClassVar[str]
    extensions: ClassVar[tuple[str, ...]] = ()
    kind: ClassVar[str] = "text"   # or "table", "image" (docs/code.md)
    description: ClassVar[str] = ""
    order: ClassVar[int] = 50  # position in --format choices and listings
    aliases: ClassVar[tuple[str, ...]] = ()  # other names --format accepts
    draws: ClassVar[bool] = False  # drawn by rich on a terminal (``drawn``), colour and width by its rules

    def render(self, document: str, value: Any, width: int = 100) -> str:
        """``value`` as ``document`` (``"diff"``, ...) in this format (bytes for ``kind = "image"``)."""
        return getattr(self, document)(value, width)  # type: ignore[no-any-return]  # a document method, by name

    def drawn(self, document: str, value: Any, width: int = 100) -> list[Any] | None:
        """rich renderables for a terminal ``width`` wide, for formats drawn by rich (else None)."""
        return None

    def supports(self, document: str) -> bool:
        """Whether this format has the method that renders ``document`` (e.g. ``"diff"``)."""
        return getattr(type(self), document, None) is not getattr(Renderer, document, None)


def delegate(module: str, function: str, *fields: str) -> Callable[[Renderer, Any, int], Any]:
    """A document method handing the value (or its ``fields``) to ``render/{module}.py``'s ``function``,
    imported when first used: a format loads no document's code it does not render."""
    def method(self: Renderer, value: Any, width: int = 100) -> Any:
        given = [getattr(value, field) for field in fields] if fields else [value]
        return getattr(import_module(f"{__package__}.{module}"), function)(*given)

    return method

"""Comparison: baseline against variants, with noise bands, statistics, comparability and gates.

``differ.compare`` builds an immutable ``result.Comparison``; ``view.select`` picks and orders
the rows to show; ``gates.evaluate`` checks ``--fail-on`` rules and returns their outcome;
``sides`` groups captures and picks the baseline; ``bands`` holds the noise bands; ``stats`` the
median and permutation test; ``comparability`` the warnings that runs may not be comparable.
"""

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .differ import compare
    from .result import Cell, Comparison, Delta, Row, Side
    from .view import View, select

_HOMES = {"compare": "differ", "Cell": "result", "Comparison": "result", "Delta": "result", "Row": "result",
          "Side": "result", "View": "view", "select": "view"}


def __getattr__(name: str) -> Any:
    """The public names on first use (PEP 562): reading ``comparison.result``'s records does not
    import the differ and, through it, ingest."""
    if name in _HOMES:
        return getattr(import_module(f".{_HOMES[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["compare", "Comparison", "Side", "Row", "Cell", "Delta", "View", "select"]

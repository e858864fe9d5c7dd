"""AWS's bounds tables (``render/bounds_table.py``) in the terminal: the title, what each bound is, the
table (continued below when too wide: ``tables``), and where each number's peaks came from."""

from __future__ import annotations

from rich.console import RenderableType

from ...analysis.bounds import Bounds
from ..bounds_table import LEGEND, TITLE, bounds_table, peak_notes
from . import piece, tables
from .labels import Labels


def bounds_view(labels: Labels, found: tuple[Bounds, ...], versions: bool, width: int,
                legend: bool = True) -> list[RenderableType]:
    """The table, its notes below; the sides under ``labels``, those shortened named in their legend
    (here, unless the report said it above: ``legend=False``)."""
    header, rows, notes = bounds_table(labels.shown, found, versions)
    out: list[RenderableType] = [piece(TITLE, "bold underline"), piece(LEGEND, "dim")]
    out += [piece("labels: " + "; ".join(labels.legend), "dim")] if legend and labels.legend else []
    out += tables(header, rows, range(1, len(header)), width)
    return out + [piece(f"note: {labels.say(text)}", "dim") for text in [*peak_notes(labels.shown, found), *notes]]

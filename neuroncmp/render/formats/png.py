"""PNG charts (the ``plot`` extra): ``history`` as one panel per series, for ``-o FILE.png``."""

from __future__ import annotations

from ..base import Renderer, delegate


class Png(Renderer):
    name, extensions, order, kind = "png", (".png",), 60, "image"
    description = "a chart (needs the plot extra; with -o FILE.png)"

    history = delegate("store_plot", "history_png", "history")  # matplotlib loads there only


RENDERER = Png()

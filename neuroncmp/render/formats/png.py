"""PNG charts (the ``plot`` extra): ``history`` as one panel per series, for ``-o FILE.png``."""

from __future__ import annotations

from ..base import HistoryReport, Renderer


class Png(Renderer):
    name, extensions, order, kind = "png", (".png",), 60, "image"
    description = "a chart (needs the plot extra; with -o FILE.png)"

    def history(self, report: HistoryReport, width: int = 100) -> bytes:  # an image: bytes
        from ..store_plot import history_png  # matplotlib loads here only

        return history_png(report.history)


RENDERER = Png()

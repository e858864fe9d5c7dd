"""Tidy CSV: one row per metric x variant x basis, base units, the same numbers as every output."""

from __future__ import annotations

from ..base import DiffReport, Renderer, delegate
from ..headline import report_bound_line
from ..tidy import FIELDS, bound_records, csv_text, records


class Csv(Renderer):
    name, extensions, order, kind = "csv", (".csv",), 40, "table"
    description = "tidy table, one row per metric x variant x basis, base units"

    def diff(self, report: DiffReport, width: int = 100) -> str:
        bound = report_bound_line(report)
        extra = bound_records(report.comparison, bound) if bound is not None else []
        return csv_text(FIELDS, [*records(report.comparison, report.view.rows, report.gates), *extra])

    ranks = delegate("ranks", "csv_text")
    ops = delegate("ops", "csv_text")


RENDERER = Csv()

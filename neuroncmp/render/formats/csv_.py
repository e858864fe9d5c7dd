"""Tidy CSV: one row per metric x variant x basis, base units, the same numbers as every output."""

from __future__ import annotations

import csv
import io
from typing import Any

from ...escape import csv_cell
from ..base import DiffReport, Renderer
from ..headline import report_bound_line
from ..tidy import FIELDS, bound_records, records


class Csv(Renderer):
    name, extensions, order, kind = "csv", (".csv",), 40, "table"
    description = "tidy table, one row per metric x variant x basis, base units"

    def diff(self, report: DiffReport, width: int = 100) -> str:
        out = io.StringIO()
        writer = csv.DictWriter(out, fieldnames=FIELDS, lineterminator="\n")
        writer.writeheader()
        bound = report_bound_line(report)
        extra = bound_records(report.comparison, bound) if bound is not None else []
        for record in [*records(report.comparison, report.view.rows, report.gates), *extra]:
            writer.writerow({k: csv_cell(v) for k, v in record.items()})
        return out.getvalue()

    def ranks(self, report: Any, width: int = 100) -> str:
        """``neuroncmp ranks``: the ranks of one step (render/ranks.py)."""
        from ..ranks import csv_text

        return csv_text(report)

    def ops(self, report: Any, width: int = 100) -> str:
        """``neuroncmp ops``: the operator-level comparison (render/ops.py)."""
        from ..ops import csv_text

        return csv_text(report)


RENDERER = Csv()

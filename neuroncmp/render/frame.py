"""pandas DataFrame of a comparison: pandas is imported only here."""

from __future__ import annotations

from typing import Any

from .base import DiffReport
from .records import FIELDS, records


def to_frame(report: DiffReport) -> Any:
    """Tidy: one row per metric x variant x basis of the report's view."""
    import pandas as pd

    return pd.DataFrame.from_records(records(report.comparison, report.view.rows, report.gates),
                                     columns=list(FIELDS))

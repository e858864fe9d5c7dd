"""Tidy CSV: one row per metric x variant x basis, base units, the same numbers as every output."""

from __future__ import annotations

import csv
import io

from ..comparison import Comparison
from .records import FIELDS, records


def render(comparison: Comparison) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=FIELDS, lineterminator="\n")
    writer.writeheader()
    for record in records(comparison):
        writer.writerow({k: ("" if v is None else v) for k, v in record.items()})
    return out.getvalue()

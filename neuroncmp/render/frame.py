"""pandas DataFrame of a comparison (``Comparison.to_frame()``): pandas is imported only here."""

from __future__ import annotations

from typing import Any

from ..comparison import Comparison
from .records import FIELDS, records


def to_frame(comparison: Comparison) -> Any:
    import pandas as pd

    return pd.DataFrame.from_records(records(comparison), columns=list(FIELDS))

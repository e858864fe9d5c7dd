"""neuroncmp: compare AWS Neuron (Trainium) profiles, baseline against variants, unit-aware.

    import neuroncmp as nc
    baseline, b32 = nc.load("baseline.json")[0], nc.load("b32.json")[0]
    b32.metrics["mfu_estimated_percent"].quantity      # <Quantity(0.2039, 'fraction')>

The core imports no pint, pandas or rich: they load only where used.
"""

from __future__ import annotations

__version__ = "0.1.0"

from .catalog import MetricSpec, lookup
from .errors import (MissingDependencyError, NeuroncmpError, ParseError, RuleError,
                     UnknownFormatError)
from .loader import load, load_many
from .model import Anomaly, MemoryRow, Metric, Profile, Skipped, Source

__all__ = [
    "__version__", "load", "load_many", "Profile", "Metric", "MemoryRow", "Anomaly", "Skipped",
    "Source", "MetricSpec", "lookup", "NeuroncmpError", "ParseError",
    "UnknownFormatError", "MissingDependencyError", "RuleError",
]

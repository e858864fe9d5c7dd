"""neuroncmp: compare AWS Neuron (Trainium) profiles, baseline against variants, unit-aware.

    import neuroncmp as nc
    baseline, b32 = nc.load("baseline.json")[0], nc.load("b32.json")[0]
    b32.metrics["mfu_estimated_percent"].quantity      # <Quantity(0.2039, 'fraction')>
    nc.compare(baseline, b32).to_frame()               # pandas, one row per metric x variant

The pipeline, one package per stage: ``ingest`` (files -> ``Profile``), ``model`` / ``catalog`` /
``units`` (the normalized, unit-aware model), ``comparison`` (and ``analysis``: pure computations
on profiles), ``render`` (results -> text, documents, frames), ``cli`` and ``api`` on top.

The public names load on first use (PEP 562), so ``neuroncmp --help`` pays for none of them;
the core imports no pint, pandas or rich: they load only where used.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

_EXPORTS = {
    "load": "api", "load_many": "api", "compare": "api", "Comparison": "api",
    "Profile": "model", "Metric": "model", "MemoryRow": "model", "Anomaly": "model",
    "Skipped": "model", "Source": "model", "MetricSpec": "catalog", "lookup": "catalog",
    "NeuroncmpError": "errors", "ParseError": "errors", "InputError": "errors",
    "UsageError": "errors", "UnknownFormatError": "errors", "MissingDependencyError": "errors",
    "RuleError": "errors", "Store": "store",
}
__all__ = [
    "__version__", "load", "load_many", "compare", "Comparison", "Profile", "Metric", "MemoryRow",
    "Anomaly", "Skipped", "Source", "MetricSpec", "lookup", "NeuroncmpError", "ParseError",
    "InputError", "UsageError", "UnknownFormatError", "MissingDependencyError", "RuleError", "Store",
]

if TYPE_CHECKING:
    from .api import Comparison, compare, load, load_many
    from .catalog import MetricSpec, lookup
    from .errors import (InputError, MissingDependencyError, NeuroncmpError, ParseError, RuleError,
                         UnknownFormatError, UsageError)
    from .model import Anomaly, MemoryRow, Metric, Profile, Skipped, Source
    from .store import Store


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'neuroncmp' has no attribute {name!r}")
    value = getattr(import_module(f".{_EXPORTS[name]}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)

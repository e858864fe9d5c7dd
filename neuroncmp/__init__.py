"""neuroncmp: compare AWS Neuron (Trainium) profiles, baseline against variants, unit-aware.

    import neuroncmp as nc
    baseline, b32 = nc.load("baseline.json")[0], nc.load("b32.json")[0]
    b32.metrics["mfu_estimated_percent"].quantity      # <Quantity(0.2039, 'fraction')>
    nc.compare(baseline, b32).to_frame()               # pandas, one row per metric x variant

The pipeline, one package per stage: ``ingest`` (files -> ``Profile``), ``model`` / ``catalog`` /
``units`` (the normalized, unit-aware model), ``comparison`` (and ``analysis``: pure computations
on profiles), ``render`` (results -> text, documents, frames), ``cli`` and ``api`` on top.

The public names load on first use (PEP 562), so ``neuroncmp --help`` pays for none of them;
the core imports no pint, pandas, matplotlib or rich: they load only where used. ``nc.ureg`` is
the package's one pint registry (built on first use).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

_EXPORTS = {
    "load": "api", "load_many": "api", "compare": "api", "sweep": "api", "ops": "api", "Ops": "api",
    "ranks": "api", "Ranks": "api", "Comparison": "api",
    "Sweep": "api", "Profile": "api", "use_pint_pandas": "api", "Finding": "api",
    "examples": "", "Metric": "model", "MemoryRow": "model", "Anomaly": "model",
    "Skipped": "model", "Source": "model", "MetricSpec": "catalog", "lookup": "catalog",
    "NeuroncmpError": "errors", "ParseError": "errors", "InputError": "errors",
    "UsageError": "errors", "UnknownFormatError": "errors", "MissingDependencyError": "errors",
    "RuleError": "errors", "Store": "store",
}
__all__ = [
    "__version__", "load", "load_many", "compare", "sweep", "ops", "Ops", "ranks", "Ranks", "Comparison", "Sweep",
    "Finding", "examples",
    "ureg", "use_pint_pandas", "Profile", "Metric", "MemoryRow",
    "Anomaly", "Skipped", "Source", "MetricSpec", "lookup", "NeuroncmpError", "ParseError",
    "InputError", "UsageError", "UnknownFormatError", "MissingDependencyError", "RuleError", "Store",
]

if TYPE_CHECKING:
    from . import examples
    from .api import (
        Comparison,
        Finding,
        Profile,
        Sweep,
        compare,
        load,
        load_many,
        sweep,
        use_pint_pandas,
    )
    from .api.ops import Ops, ops  # from its module: mypy reads api.ops as the module beside the function
    from .api.ranks import Ranks, ranks
    from .catalog import MetricSpec, lookup
    from .errors import (
        InputError,
        MissingDependencyError,
        NeuroncmpError,
        ParseError,
        RuleError,
        UnknownFormatError,
        UsageError,
    )
    from .model import Anomaly, MemoryRow, Metric, Skipped, Source
    from .store import Store


def __getattr__(name: str) -> Any:
    if name == "ureg":  # the package's one pint registry, built (and pint imported) on first use
        from .units import registry

        return registry()
    if name not in _EXPORTS:
        raise AttributeError(f"module 'neuroncmp' has no attribute {name!r}")
    module = import_module(f".{_EXPORTS[name] or name}", __name__)
    value = module if not _EXPORTS[name] else getattr(module, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)

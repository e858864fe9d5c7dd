"""The Python API: ``load``, ``compare``, ``sweep``, ``ops``, ``ranks``, with results that show
themselves (docs/python.md). Every function accepts profiles, paths (files, run folders, Explorer
folders) and lists of either.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..arguments import optional_text, shown, texts
from ..arguments import path as path_arg
from ..choices import AUTO, Basis, Order, Sort
from ..commands.diff import DiffOptions, diff_report
from ..commands.sweep import SweepOptions, sweep_report
from ..comparison.bands import Bands
from ..errors import UsageError
from ..ingest import load as _load
from ..ingest import load_many as _load_many
from ..ingest.batch_sizes import infer_batch_sizes
from ..model import Profile as _Profile
from .ops import Ops, ops
from .ranks import Ranks, ranks
from .results import Comparison, Finding, Profile, Sweep, as_subclass, showing_findings

Input = _Profile | str | Path | Iterable["Input"]

__all__ = ["load", "load_many", "compare", "sweep", "ops", "Ops", "ranks", "Ranks", "Profile", "Comparison", "Sweep",
           "Finding", "use_pint_pandas"]


def load(path: str | Path, format: str | None = None) -> list[Profile]:
    """Every profile in ``path`` (a file, a run folder or an Explorer folder), checked and labelled;
    ``format`` forces a parser (``neuroncmp formats`` lists them)."""
    return [Profile.of(p) for p in _load(path_arg("path", path), optional_text("format", format))]


def load_many(paths: Iterable[str | Path], format: str | None = None) -> list[Profile]:
    """Profiles of several paths, in order; batch sizes inferred across the whole set."""
    if isinstance(paths, (str, Path)):  # one path
        paths = [paths]
    elif isinstance(paths, (bytes, Mapping)) or not isinstance(paths, Iterable):
        raise UsageError(f"{shown('paths', paths)}: expected a list of paths")
    checked = [path_arg(f"paths[{i}]", p) for i, p in enumerate(paths)]
    return [Profile.of(p) for p in _load_many(checked, optional_text("format", format))]


def profiles_of(*inputs: Input) -> list[Profile]:
    """Profiles from profiles, paths and (nested) lists of either, in order; anything else is a
    ``UsageError`` naming its place (``inputs[0][1]=None``). Batch sizes are inferred across the
    paths loaded here; the caller's own profiles stay untouched."""
    loaded: list[Profile] = []
    out = _gathered(inputs, "inputs", loaded)
    inferred = dict(zip(map(id, loaded), infer_batch_sizes(loaded)))  # the copies with a batch size inferred
    return [inferred.get(id(profile), profile) for profile in out]


def _gathered(items: Iterable[Any], where: str, loaded: list[Profile]) -> list[Profile]:
    out: list[Profile] = []
    for at, item in enumerate(items):
        place = f"{where}[{at}]"
        if isinstance(item, _Profile):
            out.append(Profile.of(item))
        elif isinstance(item, (str, Path)):
            found = load(path_arg(place, item))
            out += found
            loaded += found
        elif isinstance(item, Iterable) and not isinstance(item, (bytes, Mapping)):
            out += _gathered(item, place, loaded)
        else:
            raise UsageError(f"{shown(place, item)}: expected a profile, a path (str or Path) or a "
                             f"list of them, found {type(item).__name__}")
    return out


def compare(*inputs: Input, baseline: str | None = None, basis: Basis = AUTO,
            thresholds: Bands | Iterable[str] = (), order: Order = "batch", groups: Iterable[str] = (),
            metrics: Iterable[str] = (), only_changed: bool = False, sort: Sort = "group",
            peak_flops: float | None = None, hbm_bandwidth: float | None = None,
            dma_bandwidth: float | None = None, versions: bool = False) -> Comparison:
    """Compare the baseline (the first label, or ``baseline``: a label or section title) against
    every other label: ``neuroncmp diff``, with its options under their ``DiffOptions`` names.

    ``thresholds`` are noise bands (``"time=2%"``, ``"bytes=1MiB"``); ``order``: variants by
    ``batch`` size or as ``given``; ``groups``, ``metrics``, ``only_changed`` and ``sort`` choose
    the rows shown (the result always holds every row; ``.select(...)`` shows others).
    ``peak_flops``, ``hbm_bandwidth``, ``dma_bandwidth``: the bounds' peaks per NeuronCore in base units
    (FLOP/s, bytes/s; ``--peak-tflops``, ``--hbm-gbps``, ``--dma-gbps``); ``versions``: the variants are
    successive versions in the order given, each judged against the one before (``--versions``).
    """
    options = DiffOptions(  # checked before any path is read
        baseline=baseline, basis=basis, order=order, only_changed=only_changed, sort=sort, findings=False,
        thresholds=thresholds if isinstance(thresholds, Bands) else texts("thresholds", thresholds),
        groups=texts("groups", groups), metrics=texts("metrics", metrics), peak_flops=peak_flops,
        hbm_bandwidth=hbm_bandwidth, dma_bandwidth=dma_bandwidth, versions=versions)
    report = diff_report(profiles_of(*inputs), options)
    made: Comparison = as_subclass(report.comparison, Comparison)
    return replace(made, view=report.view, options=replace(options, versions=report.versions))


def sweep(*inputs: Input, price_per_hour: float | None = None, hbm_per_core: float | None = None,
          peak_flops: float | None = None, hbm_bandwidth: float | None = None,
          dma_bandwidth: float | None = None) -> Sweep:
    """Analyse a batch-size sweep: the table, models, recommendation and ranked findings.

    Hardware overrides are per NeuronCore in base units (bytes, FLOP/s, bytes/s); ``price_per_hour``
    (USD) adds the cost per million samples."""
    options = SweepOptions(price_per_hour, hbm_per_core, peak_flops, hbm_bandwidth,  # before any path is read
                           dma_bandwidth)
    result: Sweep = showing_findings(as_subclass(sweep_report(profiles_of(*inputs), options), Sweep))
    return result


def use_pint_pandas() -> Any:
    """Point pint-pandas at neuroncmp's unit registry, so ``Sweep.to_frame(units="pint")`` works.

    pint-pandas keeps one registry per process (``pint_pandas.PintType.ureg``); this changes it, which
    is why neuroncmp never does so on its own. Returns the registry (``nc.ureg``)."""
    import pint_pandas

    from ..units import registry

    pint_pandas.PintType.ureg = registry()
    return registry()

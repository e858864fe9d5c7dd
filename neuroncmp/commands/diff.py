"""``diff`` as one library call: ``diff_report(profiles, DiffOptions(...))`` compares, selects the rows
to show, checks the gates and finds what the sweep of the sides says; the CLI renders the result and
the Python API wraps it."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from .. import arguments
from ..analysis.findings.base import Finding
from ..analysis.side_bounds import overrides
from ..choices import AUTO, BASES, ORDERS, SORTS, Basis, Order, Sort, check
from ..comparison.bands import Bands
from ..comparison.result import Comparison
from ..comparison.sides import ProfileInput, flatten
from ..comparison.view import View, select
from ..ingest.failures import Failed, failures_of
from ..model import Profile
from .documents import DiffReport
from .ranks import refuse_ranks

if TYPE_CHECKING:  # gates load only when --fail-on is used, the store only for a history baseline
    from ..comparison.gates import GateResult, Rule
    from ..store import Store


@dataclass(frozen=True, slots=True)
class DiffOptions:
    """Every option of a diff, checked when made (``UsageError`` naming the argument and, for a
    choice, every value it takes). ``thresholds`` are noise bands (``"time=2%"``, or ``Bands``);
    ``rules`` are ``--fail-on`` gates (``"mfu_estimated_percent<-2pp"``); ``groups``, ``metrics``
    (globs), ``only_changed`` and ``sort`` choose the rows shown; ``summary``: the headline only;
    ``findings``: also what the sweep analysis of the sides finds; ``allow_incomparable``: gates judge
    runs of different workloads too (refused otherwise)."""

    baseline: str | None = None
    basis: Basis = AUTO
    thresholds: tuple[str, ...] | Bands = ()
    order: Order = "batch"
    groups: tuple[str, ...] = ()
    metrics: tuple[str, ...] = ()
    only_changed: bool = False
    sort: Sort = "group"
    rules: tuple[str, ...] = ()
    summary: bool = False
    findings: bool = True
    peak_flops: float | None = None      # FLOP/s, bytes/s: the bounds' peaks (None: each profile's own)
    hbm_bandwidth: float | None = None
    dma_bandwidth: float | None = None
    versions: bool = False               # the variants are successive versions, in the order given
    bounds_only: bool = False            # show AWS's bounds and gaps per side, not the table
    allow_incomparable: bool = False     # judge gates on runs of different workloads all the same
    brief: bool = False                  # the changed rows, largest first, cut to one screen by the terminal
    bands: Bands = field(init=False, repr=False, compare=False)        # thresholds, parsed once
    gates: tuple[Rule, ...] = field(init=False, repr=False, compare=False)  # rules, parsed once

    def __post_init__(self) -> None:
        # the checks in the order the options are read, the rules first: they fail before anything else
        fixed = object.__setattr__
        fixed(self, "rules", arguments.texts("rules", self.rules))
        fixed(self, "gates", _parsed(self.rules))
        arguments.optional_text("baseline", self.baseline)
        if isinstance(self.thresholds, Bands):
            fixed(self, "bands", self.thresholds)
        else:
            fixed(self, "thresholds", arguments.texts("thresholds", self.thresholds))
            fixed(self, "bands", Bands(self.thresholds))
        fixed(self, "basis", check("basis", self.basis, BASES))
        fixed(self, "order", check("order", self.order, ORDERS))
        fixed(self, "groups", arguments.texts("groups", self.groups))
        fixed(self, "metrics", arguments.texts("metrics", self.metrics))
        arguments.flag("only_changed", self.only_changed)
        fixed(self, "sort", check("sort", self.sort, SORTS))
        for flag in ("summary", "findings", "versions", "bounds_only", "allow_incomparable", "brief"):
            arguments.flag(flag, getattr(self, flag))
        given = overrides(None, None, self.peak_flops, self.hbm_bandwidth, self.dma_bandwidth)
        for peak in ("peak_flops", "hbm_bandwidth", "dma_bandwidth"):
            fixed(self, peak, getattr(given, peak))


def _parsed(rules: tuple[str, ...]) -> tuple[Rule, ...]:
    if not rules:
        return ()
    from ..comparison.gates import parse_rule

    return tuple(parse_rule(text) for text in rules)


def diff_report(profiles: Iterable[ProfileInput], options: DiffOptions) -> DiffReport:
    """Compare ``profiles`` (the baseline first, or the one ``options.baseline`` names) and report it."""
    from ..comparison.differ import compare

    profiles = list(profiles)
    refuse_ranks(flatten(profiles), "diff compares runs")
    versions = options.versions or _versioned(profiles)
    if versions and not options.versions:  # the manifest numbers them: in that order
        profiles.sort(key=lambda p: p.params["version"] if isinstance(p, Profile) else 0)
    comparison = compare(*profiles, baseline=options.baseline, basis=options.basis,
                         thresholds=options.bands, order="given" if versions else options.order)
    return report_of(comparison, replace(options, versions=versions))


def _versioned(profiles: list[ProfileInput]) -> bool:
    """Whether every profile states a ``version`` number (a run folder's manifest: ``params.version``)."""
    return bool(profiles) and all(isinstance(p, Profile) and type(p.params.get("version")) is int
                                  for p in profiles)


def history_diff_report(store: Store, path: str | Path, options: DiffOptions, *, runs: int,
                        where: Mapping[str, str | Iterable[str]] | None = None) -> DiffReport:
    """One profile file against the last ``runs`` runs of its series in ``store`` (``--baseline-history``),
    reported as ``diff_report`` reports."""
    from ..errors import UsageError

    if options.baseline is not None:
        raise UsageError("--baseline-history compares one FILE (and takes no --baseline)")
    if isinstance(options.thresholds, Bands):
        raise UsageError("thresholds: a history baseline takes them as text ('time=2%'), to combine "
                         "them with the bands measured from the history")
    comparison = store.diff_history(path, runs=runs, where=where, basis=options.basis,
                                    thresholds=options.thresholds)
    return report_of(comparison, options)


def report_of(comparison: Comparison, options: DiffOptions, view: View | None = None) -> DiffReport:
    """A comparison made elsewhere (``compare``, the store's history baseline, the API's result),
    reported: the gates checked, the rows selected (or ``view``), the findings found, and warnings
    added of what the comparison's inputs and its sides' bounds put in doubt."""
    from ..analysis.side_bounds import Overrides, basis_doubts, bounds_for

    failed = failures_of(profile for side in comparison.sides for profile in side.profiles)
    gates = _evaluated(comparison, options.gates, options.allow_incomparable)
    if view is None:
        view = select(comparison, groups=options.groups, metrics=options.metrics,
                      only_changed=options.only_changed, sort=options.sort, brief=options.brief)
    findings, alone = _findings(comparison, failed.entries) if options.findings else ((), ())
    bounds = bounds_for(comparison.sides, Overrides(options.peak_flops, options.hbm_bandwidth,
                                                    dma_bandwidth=options.dma_bandwidth))
    # each batch size its run folders' capture could not profile (``b64: out of device memory at
    # capture``) and each capture record left unread; then the sides pooling several ranks or cores
    said = (*(f"{f.axis_text()} (not in this comparison)" for f in failed.entries), *failed.notes,
            *_pooled_cores(comparison))
    said += tuple(w for w in basis_doubts(comparison.sides, bounds) if w not in comparison.warnings + said)
    comparison = replace(comparison, warnings=comparison.warnings + said) if said else comparison
    return DiffReport(comparison, view, gates, options.summary, findings, bounds,
                      options.versions, options.bounds_only, alone)


def _pooled_cores(comparison: Comparison) -> list[str]:
    """A warning for each side whose captures come from different ranks or cores (pooled as repeated
    captures of one side, they may instead be the ranks of one step)."""
    from ..errors import UsageError
    from ..ingest.ranks import identify

    said = []
    for side in comparison.sides:
        if len(side.profiles) < 2:
            continue
        try:
            places = identify(side.profiles)
        except UsageError:  # no rule tells them apart: repeated captures of one place
            continue
        said.append(f"{side.label} pools {len(places)} captures from different ranks or cores "
                    f"({', '.join(p.name for p in places[:4])}{', ...' if len(places) > 4 else ''}): if they are "
                    "the ranks of one step rather than repeated captures, compare them with 'neuroncmp ranks'")
    return said


def _evaluated(comparison: Comparison, rules: tuple[Rule, ...], allow_incomparable: bool) -> tuple[GateResult, ...]:
    """The gates' outcomes; runs of different workloads are refused (a usage error, exit 2) unless
    ``allow_incomparable``: a gate must not pass or fail a change that is no change of one workload."""
    if not rules:
        return ()
    if comparison.not_comparable and not allow_incomparable:
        from ..errors import UsageError

        why = "; ".join(comparison.not_comparable.values())
        raise UsageError(f"--fail-on: not comparable: {why}; gates judge changes of one workload, so they "
                         "refuse these runs (add --allow-incomparable to judge them all the same)")
    from ..comparison.gates import evaluate

    return evaluate(comparison, rules)


def _findings(comparison: Comparison, failed: tuple[Failed, ...]) -> tuple[tuple[Finding, ...], tuple[str, ...]]:
    from ..analysis.sweep import findings_for

    return findings_for(comparison.sides, failed)

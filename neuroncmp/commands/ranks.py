"""``ranks`` as one library call: ``ranks_report(paths, RanksOptions(...))`` loads one profile per rank
of a distributed step, tells the ranks apart (``ingest.ranks``: the rule, refusing guesses), finds
the outliers and why (``analysis.ranks``) and, with a baseline run, compares the two runs'
distributions (``analysis.rank_runs``); the CLI renders the result."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from .. import arguments
from ..errors import UsageError

if TYPE_CHECKING:  # the analysis loads when the command runs
    from ..analysis.rank_runs import GateOutcome, RunsComparison, TailGate
    from ..analysis.ranks import RanksAnalysis
    from ..comparison.bands import Band
    from ..ingest.ranks import RankId
    from ..model import Profile


@dataclass(frozen=True, slots=True)
class RanksOptions:
    """Every option of ``ranks``, checked when made: ``baseline`` the files or folder of a baseline
    run (empty: one run alone), ``thresholds`` noise bands for times (as for diff), ``rules`` tail
    gates (``p90>+5%``; they need a baseline), ``format_in`` the input format."""

    baseline: tuple[str, ...] | str | Path = ()
    thresholds: tuple[str, ...] = ()
    rules: tuple[str, ...] = ()
    format_in: str | None = None
    band: Band = field(init=False, repr=False, compare=False)
    gates: tuple[TailGate, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        from ..analysis.rank_runs import parse_gate
        from ..comparison.bands import Bands

        fixed = object.__setattr__
        fixed(self, "baseline", arguments.texts("baseline", [str(p) if isinstance(p, Path) else p
                                                             for p in _paths(self.baseline)]))
        fixed(self, "thresholds", arguments.texts("thresholds", self.thresholds))
        fixed(self, "band", Bands(self.thresholds).for_kind("time"))
        fixed(self, "rules", arguments.texts("rules", self.rules))
        fixed(self, "gates", tuple(parse_gate(rule) for rule in self.rules))
        arguments.optional_text("format_in", self.format_in)


class RanksReport(NamedTuple):
    """What a ``ranks`` renderer shows: the run's ranks, the comparison with a baseline run (if
    any), the gates' outcomes, and what the inputs were read as."""

    analysis: RanksAnalysis
    runs: RunsComparison | None = None
    gates: tuple[GateOutcome, ...] = ()
    notes: tuple[str, ...] = ()

    @property
    def tripped(self) -> bool:
        return any(outcome.tripped for outcome in self.gates)

    def __repr__(self) -> str:
        return f"<RanksReport {len(self.analysis.rows)} ranks, {len(self.analysis.outliers)} outliers>"


def ranks_report(paths: Iterable[str | Path], options: RanksOptions) -> RanksReport:
    """The step across the ranks in ``paths`` (files or folders), against ``options.baseline``'s."""
    from ..ingest import load_set

    _gated(options, bool(options.baseline))  # before anything is read
    profiles, said = load_set(paths, options.format_in)
    baseline: list[Profile] = []
    if options.baseline:
        baseline, more = load_set(_paths(options.baseline), options.format_in)
        said += [f"baseline run: {note}" for note in more]
    return profiles_report(profiles, options, tuple(said), baseline)


def refuse_ranks(profiles: Sequence[Profile], why: str) -> None:
    """Profiles of several ranks of one step are neither variants nor repeated captures of one side
    (``diff``, ``sweep``): a ``UsageError`` pointing to ``ranks`` when the names or a manifest state
    two or more ranks (``ingest.ranks.stated_ranks``); ``why`` says what the refusing command compares."""
    from ..ingest.ranks import stated_ranks

    ranks = stated_ranks(profiles)
    if ranks is None:
        return
    names = ", ".join(dict.fromkeys(rank.name for rank in ranks[:4])) + (", ..." if len(ranks) > 4 else "")
    raise UsageError(f"these profiles are {len(ranks)} ranks of a distributed step ({names}; told apart by "
                     f"{ranks[0].how}), not variants or repeated captures of one run: {why}; compare the ranks "
                     "with 'neuroncmp ranks FILES', and two runs of them with 'neuroncmp ranks FILES --baseline "
                     "BASELINE_FILES'")


def _gated(options: RanksOptions, has_baseline: bool) -> None:
    if options.gates and not has_baseline:
        raise UsageError("--fail-on judges a run against a baseline run: add --baseline FILES")


def _paths(given: tuple[str, ...] | str | Path) -> tuple[str | Path, ...]:
    return (given,) if isinstance(given, (str, Path)) else given


def profiles_report(profiles: Sequence[Profile], options: RanksOptions, notes: tuple[str, ...] = (),
                    baseline: Sequence[Profile] = ()) -> RanksReport:
    """``ranks_report`` of profiles already loaded (one per rank; ``baseline``: the baseline run's)."""
    _gated(options, bool(baseline or options.baseline))
    analysis = _analysed(profiles, options.band)
    if not baseline:
        return RanksReport(analysis, notes=notes)
    from ..analysis.rank_runs import compare_runs, judge

    runs = compare_runs(_analysed(baseline, options.band), analysis, options.band)
    return RanksReport(analysis, runs, judge(runs, options.gates), notes)


def _analysed(profiles: Sequence[Profile], band: Band) -> RanksAnalysis:
    from ..analysis.ranks import analyse
    from ..ingest.ranks import identify

    if len(profiles) < 2:
        raise UsageError(f"ranks compares the ranks of one step: give two or more profiles, one per rank "
                         f"(got {len(profiles)})")
    ids = identify(profiles)
    return analyse(ids, profiles, band, ids[0].how, _operations(ids, profiles))


def _operations(ids: Sequence[RankId], profiles: Sequence[Profile]) -> dict[tuple[int | str, ...], dict[str, float]]:
    """Each rank's collective operations where its input has them (an Explorer folder's CcOp table)."""
    from ..ingest.formats.explorer_parquet import collective_ops

    found = {}
    for rank, profile in zip(ids, profiles, strict=True):
        if profile.source.path and (ops := collective_ops(profile.source.path)) is not None:
            found[rank.key] = ops
    return found

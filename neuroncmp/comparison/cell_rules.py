"""The comparison's rules, one cell at a time (``cell``), and what a row shares while it is built
(``RowContext`` for the whole comparison, ``Facts`` for one row)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any, NamedTuple

from .. import stats
from ..catalog import HIGHER, MetricSpec
from ..choices import (
    ABSENT,
    ADDED,
    BETTER,
    CONTEXT,
    NEUTRAL,
    REMOVED,
    SAMPLE,
    STEP,
    SUSPECT,
    UNCHANGED,
    WORSE,
    ShownBasis,
    Verdict,
)
from ..model import Metric
from ..per_sample import per_sample_all
from .bands import Band, Bands
from .result import ALPHA, Cell, Delta, Row, Side

# One variant capture against at least this many baseline captures (a history baseline) is tested
# too: the permutation test of 1 against N has N + 1 splits, so p can go below ALPHA = 0.05.
SINGLE_AGAINST = 20


Captures = tuple[Mapping[str, Metric], ...]  # one side's value sets (``Profile.values.all``), one per capture


class RowContext(NamedTuple):
    """What every row of one comparison shares."""

    sides: list[Side]
    captures: list[Captures]
    suspects: list[dict[str, str]]
    bands: Bands
    step_context: bool  # per-step values are context beside the per-sample comparison
    unlike_eval: frozenset[int]  # sides whose eval set differs in size from the baseline's
    unscored: frozenset[int]     # sides whose memory is not scored: another batch size, an unlike memory table


class Facts(NamedTuple):
    """What every cell of one row shares, worked out once per row (not once per variant): the
    metric, its band, the baseline in each basis, and which rules of the verdict apply."""

    name: str
    spec: MetricSpec
    band: Band
    step: list[Any]           # the baseline's captures
    sample: list[Any] | None  # per sample: extensive metrics with a known baseline batch size
    spread: tuple[float, float] | None
    doubt: str | None      # why the baseline's value cannot be trusted
    eval_pass: bool        # an eval-pass timing: not scored against an eval set of another size
    grows: bool            # grows with the batch: not scored across batch sizes or unlike memory tables


def cell(facts: Facts, shared: RowContext, index: int) -> Cell:
    name, spec, band, base = facts.name, facts.spec, facts.band, facts.step
    side = shared.sides[index]
    values = [metric.value for capture in shared.captures[index] if (metric := capture.get(name)) is not None]
    doubt = facts.doubt or shared.suspects[index].get(name)
    step = delta_of(spec, band, STEP, base, values)
    sample = None
    if facts.sample is not None and side.batch_size:
        sample = delta_of(spec, band, SAMPLE, facts.sample, per_sample_all(values, side.batch_size))
        if shared.step_context:
            step = _marked(step, CONTEXT)
    if doubt is not None:
        step, sample = _marked(step, SUSPECT), _marked(sample, SUSPECT) if sample is not None else None
    elif ((facts.eval_pass and index in shared.unlike_eval)  # shown, not compared, whatever the metric's
          or (facts.grows and index in shared.unscored)):  # direction (a warning or the caption says why)
        step = _marked(step, CONTEXT)
    return Cell(side.label, step, sample, len(base), len(values), facts.spread, spread_of(values), doubt)


def batches_differ(baseline: Side, side: Side) -> bool:
    return None not in (baseline.batch_size, side.batch_size) and baseline.batch_size != side.batch_size


SAID: tuple[Verdict, ...] = (ADDED, REMOVED, ABSENT)  # say what the inputs hold: kept whatever else is said


def _marked(delta: Delta, verdict: Verdict) -> Delta:
    """``delta`` with ``verdict`` (context: shown without a verdict; suspect: built on a flagged
    value) in place of its own unless that says what the inputs hold (``SAID``); its change is kept."""
    return delta if delta.verdict in SAID else delta._replace(verdict=verdict)


def spread_of(values: list[Any]) -> tuple[float, float] | None:
    if len(values) < 2:
        return None
    numbers = [v for v in values if isinstance(v, (int, float))]
    return stats.spread(numbers) if len(numbers) > 1 else None


def central_of(values: list[Any]) -> Any:
    if not values:
        return None
    if len(values) == 1:
        return values[0]
    if all(isinstance(v, (int, float)) for v in values):
        return stats.median(values)
    texts = {str(v) for v in values}
    return texts.pop() if len(texts) == 1 else "mixed: " + ", ".join(sorted(texts))


def delta_of(spec: MetricSpec, band: Band, basis: ShownBasis, base: list[Any], var: list[Any]) -> Delta:
    b, v = central_of(base), central_of(var)
    if b is None or v is None:
        verdict: Verdict = ABSENT if b is None and v is None else ADDED if b is None else REMOVED
        return Delta(basis, b, v, None, None, None, None, verdict)
    if not (isinstance(b, (int, float)) and isinstance(v, (int, float))):  # a text: not scored
        return Delta(basis, b, v, None, None, None, None, NEUTRAL, None, b == v)
    if b != b or v != v:  # NaN
        return Delta(basis, b, v, None, None, None, None, NEUTRAL)
    delta = v - b
    relative = delta / b if b else None
    ratio = v / b if b else None
    points = delta * 100 if spec.kind == "fraction" else None
    p_value = None
    if (len(base) > 1 and len(var) > 1) or (len(var) == 1 and len(base) >= SINGLE_AGAINST):
        p_value = stats.permutation_p_value([float(x) for x in base], [float(x) for x in var], 1)
    in_band = band.inside(b, v)
    verdict = _verdict(spec, in_band, b, v, p_value)
    return Delta(basis, b, v, delta, relative, points, ratio, verdict, p_value, in_band)


def _verdict(spec: MetricSpec, in_band: bool, b: float, v: float, p_value: float | None) -> Verdict:
    if not spec.scored:  # no better direction: no verdict, inside the band or beyond it
        return NEUTRAL
    if in_band or (p_value is not None and p_value >= ALPHA):
        return UNCHANGED
    return BETTER if (v > b) == (spec.direction == HIGHER) else WORSE


def withheld(row: Row, variants: frozenset[int]) -> Row:
    """``row`` with the verdicts of ``variants`` (indexes of ``row.variants``) withheld: context, their
    changes shown, none judged; suspect, new and gone stay, as they say what the inputs hold, not how
    the runs compare."""
    def held(delta: Delta) -> Delta:
        return delta if delta.verdict in (SUSPECT, *SAID) else delta._replace(verdict=CONTEXT)

    cells = tuple(each._replace(step=held(each.step), sample=None if each.sample is None else held(each.sample))
                  if index in variants else each for index, each in enumerate(row.cells))
    return replace(row, cells=cells)

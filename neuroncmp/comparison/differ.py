"""``compare()``: baseline against variants, metric by metric, with verdicts from the catalog. Pure: no
printing, no CLI objects, no view state. Repeated captures and verdicts: docs/judging.md; the basis:
docs/commands/diff.md (``--basis``)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from itertools import chain
from typing import Any

from .. import arguments
from ..catalog import GROWS_WITH_BATCH, MetricSpec, derived_specs, group_rank, lookup
from ..choices import (
    AUTO,
    BASES,
    ORDERS,
    SAMPLE,
    STEP,
    Basis,
    Order,
    ShownBasis,
    check,
)
from ..model import FrozenDict
from ..per_sample import per_sample_all
from . import value_sources
from .bands import Band, Bands
from .cell_rules import (
    Captures,
    Facts,
    RowContext,
    batches_differ,
    cell,
    spread_of,
    withheld,
)
from .comparability import NOT_COMPARABLE, not_comparable, unlike_eval_sets, unlike_memory, warnings_for
from .result import ALPHA, Comparison, Row, Side, suspects
from .shares import denominator_only
from .sides import ProfileInput, arrange, flatten

# Timings of the evaluation pass: not like for like when the eval sets differ in size.
EVAL_PASS_METRICS = frozenset({"eval_samples_per_second", "eval_steps_per_second", "eval_runtime"})


def compare(*profiles: ProfileInput, baseline: str | None = None, basis: Basis = AUTO,
            thresholds: Bands | Iterable[str] = (), order: Order = "batch") -> Comparison:
    """Compare the baseline against each variant.

    ``profiles``: profiles, or iterables of them (a ``load()`` result); those sharing a label
    are repeated captures of one side. The baseline is the first label, or ``baseline`` (a
    label or section title). ``basis``: ``auto`` (per sample when batch sizes differ, with
    per-step values as context), ``step`` or ``sample``. ``thresholds``: the noise bands, as
    ``Bands`` or ``--threshold`` strings such as ``"time=2%"``. ``order``: variants by batch size
    (``batch``, when every batch size is known) or as given (``given``).
    """
    basis, order, bands = options(baseline, basis, thresholds, order)
    sides = arrange(flatten(profiles), baseline, order)
    chosen, reason = _basis(sides, basis)
    context = basis == AUTO and chosen == SAMPLE
    captures = [tuple(p.values.all for p in side.profiles) for side in sides]
    only_in = _only_in(sides, captures)
    doubts = [{**formulas, **suspects(side)} for side, formulas in zip(sides, value_sources.formula_doubts(sides))]
    rows = _rows(sides, captures, bands, doubts, context, unlike_eval_sets(sides), unlike_memory(sides))
    rows, shares = denominator_only(rows)  # a share that fell only as its total grew: not better
    unlike = not_comparable(sides)  # decided before any delta is read: its verdicts are withheld
    if unlike:
        rows = tuple(withheld(row, frozenset(index - 1 for index in unlike)) for row in rows)
    warnings = [*(f"{NOT_COMPARABLE}: {why}" for why in unlike.values()), *warnings_for(sides, only_in, chosen),
                *value_sources.formula_warnings(sides), *value_sources.unavailable_warnings(sides),
                *([] if unlike else shares)]
    return Comparison(sides[0], tuple(sides[1:]), rows, chosen, reason, basis, bands,
                      tuple(warnings), only_in, _captures_note(sides),
                      FrozenDict({sides[index].label: why for index, why in unlike.items()}))


def options(baseline: Any, basis: Any, thresholds: Any, order: Any) -> tuple[Basis, Order, Bands]:
    """The checked options of ``compare`` (``UsageError`` naming the argument): the API calls it
    before loading anything, ``compare`` again."""
    arguments.optional_text("baseline", baseline)
    bands = thresholds if isinstance(thresholds, Bands) else Bands(arguments.texts("thresholds", thresholds))
    return check("basis", basis, BASES), check("order", order, ORDERS), bands


def _basis(sides: list[Side], requested: Basis) -> tuple[ShownBasis, str]:
    sizes = [side.batch_size for side in sides]
    differ = len(set(sizes) - {None}) > 1
    memory = "; memory not scored (it grows with the batch)" if differ else ""
    if requested == STEP:
        return STEP, f"per step (as requested){memory}"
    if requested == SAMPLE:
        return SAMPLE, f"per sample for extensive metrics (as requested){memory}"
    if None in sizes:
        unknown = ", ".join(side.label for side in sides if side.batch_size is None)
        return STEP, f"per step (batch size unknown for {unknown}){memory}"
    if differ:
        return SAMPLE, f"per sample for extensive metrics, per step below them (batch sizes differ){memory}"
    return STEP, "per step (batch sizes equal)"


def _rows(sides: list[Side], captures: list[Captures], bands: Bands, doubts: list[dict[str, str]],
          step_context: bool, unlike_eval: frozenset[int], unlike_memory: frozenset[int]) -> tuple[Row, ...]:
    names = dict.fromkeys(chain.from_iterable(values for side_captures in captures for values in side_captures))
    unscored = frozenset(i for i, side in enumerate(sides) if batches_differ(sides[0], side)) | unlike_memory
    shared = RowContext(sides, captures, doubts, bands, step_context, unlike_eval, unscored)
    rows = [_row(name, shared) for name in names]
    return tuple(sorted(rows, key=lambda r: group_rank(r.spec.group)))  # stable: keeps input order


def _row(name: str, shared: RowContext) -> Row:
    """The row of metric ``name``: a cell per variant (``cell``)."""
    spec = lookup(name)
    baseline = [metric for values in shared.captures[0] if (metric := values.get(name)) is not None]
    unit = (baseline[0] if baseline else next(metric for side in shared.captures for values in side
                                               if (metric := values.get(name)) is not None)).unit
    facts = _facts(name, spec, shared.bands.band(spec), [m.value for m in baseline], shared)
    cells = tuple(cell(facts, shared, index) for index in range(1, len(shared.sides)))
    return Row(name, spec, unit, facts.band, cells)


def _facts(name: str, spec: MetricSpec, band: Band, step: list[Any], shared: RowContext) -> Facts:
    batch = shared.sides[0].batch_size
    sample = per_sample_all(step, batch) if spec.extensive and batch else None
    return Facts(name, spec, band, step, sample,
                 spread_of(step), shared.suspects[0].get(name), name in EVAL_PASS_METRICS,
                 spec.group in GROWS_WITH_BATCH)


def _only_in(sides: list[Side], captures: list[Captures]) -> Mapping[str, tuple[str, ...]]:
    """Metrics some sides lack (derived ones follow their inputs, which are listed already)."""
    derived = {spec.name for spec in derived_specs()}  # and the values not available: said apart
    derived |= {name for side in sides for profile in side.profiles for name in profile.values.unavailable}
    having = [dict.fromkeys(chain(*side_captures)).keys() for side_captures in captures]
    return FrozenDict({name: tuple(side.label for side, have in zip(sides, having, strict=True) if name in have)
                       for name in dict.fromkeys(chain.from_iterable(having))
                       if any(name not in have for have in having) and name not in derived})


def _captures_note(sides: list[Side]) -> str:
    counts = [len(side.profiles) for side in sides]
    if max(counts) == 1:
        return "one capture per side: values compared as read, no spread or significance test"
    detail = ", ".join(f"{side.label} x{len(side.profiles)}" for side in sides)
    return f"repeated captures ({detail}): medians compared, permutation test at p < {ALPHA}"

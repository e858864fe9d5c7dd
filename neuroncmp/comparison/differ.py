"""``compare()``: baseline against variants, metric by metric, with verdicts from the catalog.

Pure: no printing, no CLI objects, no view state. Profiles sharing a label are repeated
captures of one side: their median is compared, with the spread and a permutation test; a
single capture gets no statistics. Extensive metrics (times, bytes, FLOPs, counts) are also
compared per sample when batch sizes are known.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from itertools import chain
from operator import attrgetter
from typing import Any, cast

from .. import arguments, stats
from ..catalog import GROWS_WITH_BATCH, HIGHER, MetricSpec, derived_specs, group_rank, lookup
from ..choices import (
    ABSENT,
    ADDED,
    AUTO,
    BASES,
    BETTER,
    CONTEXT,
    NEUTRAL,
    ORDERS,
    REMOVED,
    SAMPLE,
    STEP,
    SUSPECT,
    UNCHANGED,
    WORSE,
    Basis,
    Order,
    ShownBasis,
    Verdict,
    check,
)
from ..model import Metric
from ..per_sample import per_sample, per_sample_all
from ..records import FrozenDict, NamedTuple
from .bands import Band, Bands
from .comparability import unlike_eval_sets, unlike_memory, warnings_for
from .result import ALPHA, Cell, Comparison, Delta, Deltas, Row, Side
from .sides import ProfileInput, arrange, flatten

# One variant capture against at least this many baseline captures (a history baseline) is tested
# too: the permutation test of 1 against N has N + 1 splits, so p can go below ALPHA = 0.05.
SINGLE_AGAINST = 20
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
    captures = [tuple(p.values.all for p in side.profiles) for side in sides]  # read once: rows and only_in share it
    only_in = _only_in(sides, captures)
    rows = _rows(sides, captures, bands, [suspects(side) for side in sides], context, unlike_eval_sets(sides),
                 unlike_memory(sides))
    return Comparison(sides[0], tuple(sides[1:]), rows, chosen, reason, basis, bands,
                      tuple(warnings_for(sides, only_in, chosen)), only_in, _captures_note(sides))


def options(baseline: Any, basis: Any, thresholds: Any, order: Any) -> tuple[Basis, Order, Bands]:
    """The checked options of ``compare`` (``UsageError`` naming the argument): the API calls it
    before loading anything, ``compare`` again."""
    arguments.optional_text("baseline", baseline)
    bands = thresholds if isinstance(thresholds, Bands) else Bands(arguments.texts("thresholds", thresholds))
    return check("basis", basis, BASES), check("order", order, ORDERS), bands


def suspects(side: Side) -> dict[str, str]:
    """Metric -> why its value on this side cannot be trusted (its anomalies, or an input's)."""
    found: dict[str, str] = {}
    for profile in side.profiles:
        for anomaly in profile.anomalies:
            if anomaly.metric:
                found.setdefault(anomaly.metric, f"{side.label}: {anomaly.code} ({anomaly.message})")
    if not found:
        return found  # nothing to inherit (every side of a clean sweep: no walk over the derived metrics)
    for spec in derived_specs():  # a derived value inherits its inputs' doubts
        reason = next((found[name] for name in spec.inputs if name in found), None)
        if reason is not None:
            found.setdefault(spec.name, reason)
    return found


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


Captures = tuple[Mapping[str, Metric], ...]  # one side's value sets (``Profile.values.all``), one per capture


class _Context(NamedTuple):
    """What every row of one comparison shares."""

    sides: list[Side]
    captures: list[Captures]
    singles: list[Mapping[str, Metric] | None]  # a side's one value set, or None for repeated captures
    suspects: list[dict[str, str]]
    bands: Bands
    step_context: bool  # per-step values are context beside the per-sample comparison
    unlike_eval: frozenset[int]  # sides whose eval set differs in size from the baseline's
    unscored: frozenset[int]     # sides whose memory is not scored: another batch size, an unlike memory table
    batches: list[int | None]    # the variants' batch sizes
    labels: tuple[str, ...]      # the variants' labels
    doubted: dict[str, dict[int, str]]  # metric -> side index -> why its value cannot be trusted
    values: dict[str, list[Any]]  # metric -> each variant's value (``_MISSING``, ``_SEVERAL``: see there)
    batched: frozenset[int]      # sides with a batch size
    ones: tuple[int, ...]        # a 1 per variant (captures), and a None per variant: a row's usual columns
    nones: tuple[None, ...]
    none: list[None]             # a None per variant, for the columns while they are built (never changed)


def _rows(sides: list[Side], captures: list[Captures], bands: Bands,
          doubts: list[dict[str, str]], step_context: bool, unlike_eval: frozenset[int],
          unlike_memory: frozenset[int] = frozenset()) -> tuple[Row, ...]:
    names = dict.fromkeys(chain.from_iterable(values for side_captures in captures for values in side_captures))
    singles = [values[0] if len(values) == 1 else None for values in captures]
    unscored = frozenset(i for i, side in enumerate(sides) if _batches_differ(sides[0], side)) | unlike_memory
    shared = _Context(sides, captures, singles, doubts, bands, step_context, unlike_eval, unscored,
                      [side.batch_size for side in sides[1:]], tuple(side.label for side in sides[1:]),
                      _by_metric(doubts), _values_by_metric(names, singles),
                      frozenset(i for i, side in enumerate(sides) if side.batch_size), (1,) * (len(sides) - 1),
                      (None,) * (len(sides) - 1), [None] * (len(sides) - 1))
    rows = [_row(name, shared) for name in names]
    return tuple(sorted(rows, key=lambda r: group_rank(r.spec.group)))  # stable: keeps input order


class _Scale(NamedTuple):
    """The baseline of one row in one basis (per step or per sample)."""

    basis: ShownBasis
    values: list[Any]     # the baseline's captures
    central: Any          # their median, or the one value
    plain: bool           # ``central`` is one plain number (int or float, not NaN): the row's fast path
    fraction: bool        # changes also in percentage points


class _Facts(NamedTuple):
    """What every cell of one row shares, worked out once per row (not once per variant): the
    metric, its band, the baseline in each basis, and which rules of the verdict apply."""

    name: str
    spec: MetricSpec
    band: Band
    step: _Scale
    sample: _Scale | None  # extensive metrics with a known baseline batch size
    spread: tuple[float, float] | None
    doubt: str | None      # why the baseline's value cannot be trusted
    eval_pass: bool        # an eval-pass timing: not scored against an eval set of another size
    grows: bool            # grows with the batch: not scored across batch sizes or unlike memory tables
    verdicts: tuple[Verdict, Verdict]  # of a change beyond the band: up, down


def _row(name: str, shared: _Context) -> Row:
    spec = lookup(name)
    baseline = [metric for values in shared.captures[0] if (metric := values.get(name)) is not None]
    unit = (baseline[0] if baseline else next(metric for side in shared.captures for values in side
                                               if (metric := values.get(name)) is not None)).unit
    band = shared.bands.band(spec)
    facts = _facts(name, spec, band, [m.value for m in baseline], shared)
    if facts.step.plain:
        return _plain_row(facts, shared, unit, _odd, _computed)
    if type(facts.step.central) is str and len(facts.step.values) == 1 and facts.sample is None:
        return _plain_row(facts, shared, unit, _not_texts, _text_columns)
    if facts.step.central is None and len(facts.step.values) <= 1:  # a metric the baseline lacks (or its None)
        return _plain_row(facts, shared, unit, _not_single, _added_columns)
    return _general_row(facts, shared, unit)


def _facts(name: str, spec: MetricSpec, band: Band, step: list[Any], shared: _Context) -> _Facts:
    batch = shared.sides[0].batch_size
    sample = per_sample_all(step, batch) if spec.extensive and batch else None
    up: Verdict = (BETTER if spec.direction == HIGHER else WORSE) if spec.scored else NEUTRAL
    down: Verdict = (WORSE if spec.direction == HIGHER else BETTER) if spec.scored else NEUTRAL
    return _Facts(name, spec, band, _scale(STEP, step, band, spec),
                  _scale(SAMPLE, sample, band, spec) if sample is not None else None, _spread(step),
                  shared.suspects[0].get(name), name in EVAL_PASS_METRICS, spec.group in GROWS_WITH_BATCH, (up, down))


def _scale(basis: ShownBasis, values: list[Any], band: Band, spec: MetricSpec) -> _Scale:
    central = _central(values)
    plain = len(values) == 1 and (type(central) is float or type(central) is int) and central == central
    return _Scale(basis, values, central, plain, spec.kind == "fraction")


def _general_row(facts: _Facts, shared: _Context, unit: str) -> Row:
    """The row with every cell by the general rules (``_cell``): repeated captures, a baseline that
    is not one plain number (a text, NaN, a missing value)."""
    cells = tuple(_cell(facts, shared, index) for index in range(1, len(shared.sides)))
    return Row.of_cells(facts.name, facts.spec, unit, facts.band, cells)


Columns = list[list[Any]]  # a basis' columns while a row is built: ``Delta``'s fields from ``variant`` on
Computed = Callable[[_Facts, _Context, list[Any], list[int], list[str | None] | None], tuple[Columns, Columns | None]]


def _plain_row(facts: _Facts, shared: _Context, unit: str, odd_ones: Callable[[list[Any]], list[int]],
               computed: Computed) -> Row:
    """The row of a baseline of one plain number (or one text), as columns: each field of every
    variant's deltas in a list comprehension (``computed``), with ``_cell``'s verdicts (its rules decided
    once per row). The variants that are not of the baseline's kind (``odd_ones``) are patched in after
    (``_patched``). Columns, not a record per cell: 500 variants, 68,500 cells, about 200 -> 55 ms, a
    fifth of the objects for the collector."""
    name, n = facts.name, len(shared.sides) - 1
    values = shared.values[name]
    every = values.count(_MISSING) == n  # no variant has the metric (42 of 137 rows, 500 variants)
    odd = list(range(n)) if every else odd_ones(values)
    doubts = _doubts(facts, shared)
    if odd:
        step, sample, n_variant, spreads = _patched(facts, shared, values, odd, every, doubts, computed)
    else:  # the usual row
        (step, sample), n_variant, spreads = computed(facts, shared, values, odd, doubts), shared.ones, shared.nones
    return Row(name, facts.spec, unit, facts.band, shared.labels, _deltas(facts.step, step, shared),
               _deltas(facts.sample, sample, shared) if facts.sample and sample else None, len(facts.step.values),
               n_variant, facts.spread, spreads, shared.nones if doubts is None else tuple(doubts[1:]))


def _patched(facts: _Facts, shared: _Context, values: list[Any], odd: list[int], every: bool,
             doubts: list[str | None] | None, computed: Computed
             ) -> tuple[Columns, Columns | None, tuple[int, ...], tuple[tuple[float, float] | None, ...]]:
    """The columns of a row with ``odd`` variants, and its capture counts and spreads: a variant lacking
    the metric takes the row's removed deltas (``every``: none has it, nothing to compute), any other
    (a text, NaN, repeated captures) ``_cell``'s."""
    n = len(values)
    missing = odd if every else [i for i in odd if values[i] is _MISSING]
    removed = _removed(facts, shared, n) if missing else None
    if every:
        step, sample = cast("tuple[Columns, Columns | None]", removed)
    else:  # the columns may share a list (a column of None) or be ``values``: copied to be patched
        step, sample = computed(facts, shared, values, odd, doubts)
        step = [list(column) for column in step]
        sample = None if sample is None else [list(column) for column in sample]
        for i in missing:
            _patch_from(step, sample, removed, i)
    n_variant: list[int] = [1] * n
    spreads: list[tuple[float, float] | None] = [None] * n
    for i in missing:
        n_variant[i] = 0
    for i in [] if every else odd:
        if values[i] is not _MISSING:  # not one plain number: the general rules
            cell = _cell(facts, shared, i + 1)
            _patch(step, i, cell.step)
            if sample is not None:
                _patch(sample, i, cell.sample)
            n_variant[i], spreads[i] = cell.n_variant, cell.spread_variant
    return step, sample, tuple(n_variant), tuple(spreads)


_MISSING = object()  # the value of a metric a variant lacks: a value no metric has
_SEVERAL = object()  # the value of a variant of repeated captures (the general rules take it)
_NUMBERS = frozenset({int, float})


def _odd(values: list[Any]) -> list[int]:
    """The indexes of ``values`` that are not one plain number (an int or float, not NaN). All
    numbers and a sum that is not NaN (the usual row) answers without a look at each."""
    if set(map(type, values)) <= _NUMBERS:
        try:
            total = sum(values)
        except OverflowError:  # an integer beyond a float's range
            total = math.nan
        if total == total:
            return []
    return [i for i, v in enumerate(values) if not ((type(v) is float or type(v) is int) and v == v)]


def _computed(facts: _Facts, shared: _Context, values: list[Any], odd: list[int], doubts: list[str | None] | None
              ) -> tuple[Columns, Columns | None]:
    """The per-step and per-sample columns of a plain row; the ``odd`` variants (not one plain number
    each) computed with the baseline standing in for their values, to be replaced."""
    numbers = values
    if odd:
        numbers = list(values)
        for i in odd:
            numbers[i] = facts.step.central
    step = _plain_columns(facts.step, facts.band, numbers, shared.none, *_step_rules(facts, shared, doubts))
    return step, None if facts.sample is None else _sample_columns(facts, shared, numbers, doubts)


def _not_texts(values: list[Any]) -> list[int]:
    return [i for i, v in enumerate(values) if type(v) is not str]


def _text_columns(facts: _Facts, shared: _Context, values: list[Any], odd: list[int], doubts: list[str | None] | None
                  ) -> tuple[Columns, Columns | None]:
    """``_delta``'s fields of each text against the baseline's one text (no per-sample basis):
    unchanged or neutral, and the rules' suspect or context instead."""
    b, n = facts.step.central, len(values)
    verdict: list[Any] = [UNCHANGED if v == b else NEUTRAL for v in values]
    judged = _step_rules(facts, shared, doubts)[0]
    if judged is not None:
        verdict = [rule or verdict for rule, verdict in zip(judged, verdict, strict=True)]
    none = shared.none
    return [values, none, none, none, none, verdict, none, [False] * n], None  # shared lists: copied to patch


def _not_single(values: list[Any]) -> list[int]:
    return [i for i, v in enumerate(values) if v is _MISSING or v is _SEVERAL]


def _added_columns(facts: _Facts, shared: _Context, values: list[Any], odd: list[int],
                   doubts: list[str | None] | None) -> tuple[Columns, Columns | None]:
    """``_delta``'s fields of each value against a baseline without one: added, or absent (None on
    both sides), whatever else the rules say; per sample where a side has a batch size."""
    none, n = shared.none, len(values)
    added: Verdict = ADDED
    step = [values, none, none, none, none, [ABSENT if v is None else added for v in values], none, [False] * n]
    if facts.sample is None:
        return step, None
    per_samples = [per_sample(v, batch) if batch else None for v, batch in zip(values, shared.batches, strict=True)]
    verdicts = [None if not batch else ABSENT if v is None else added
                for v, batch in zip(per_samples, shared.batches, strict=True)]
    return step, [per_samples, none, none, none, none, verdicts, none, [False] * n]


def _removed(facts: _Facts, shared: _Context, n: int) -> tuple[Columns, Columns | None]:
    """The columns of a row no variant has: ``_cell``'s removed (or absent) deltas for each."""
    step = _delta(facts.spec, facts.band, STEP, facts.step.values, facts.step.central, [])
    columns = [[item] * n for item in step[2:]]
    if facts.sample is None:
        return columns, None
    sample = _delta(facts.spec, facts.band, SAMPLE, facts.sample.values, facts.sample.central, [])
    sample_columns = [[item] * n for item in sample[2:]]
    for i, batch in enumerate(shared.batches):
        if not batch:
            _patch(sample_columns, i, None)
    return columns, sample_columns



def _plain_columns(scale: _Scale, band: Band, numbers: list[Any], none: list[None], judged: list[Verdict | None] | None,
                   verdicts: list[tuple[Verdict, Verdict]] | tuple[Verdict, Verdict]) -> Columns:
    """``_delta``'s fields of each of ``numbers`` against the scale's one plain number. ``judged``:
    per variant, the verdict the row's rules give instead (suspect, context), or None for none at
    all; ``verdicts``: of a change beyond the band, up and down (per variant when ``judged`` is given)."""
    b = scale.central
    deltas = [v - b for v in numbers]
    relative = [d / b for d in deltas] if b else none
    ratio = [v / b for v in numbers] if b else none
    points = [d * 100 for d in deltas] if scale.fraction else none
    in_band = band.inside_all(b, numbers)
    verdict: list[Any]  # Verdicts: mypy reads a nested conditional of literals as str
    if judged is None:
        up, down = cast("tuple[Verdict, Verdict]", verdicts)
        verdict = [UNCHANGED if inside else up if v > b else down for inside, v in zip(in_band, numbers, strict=True)]
    else:
        verdict = [rule or (UNCHANGED if inside else pair[0] if v > b else pair[1])
                   for rule, pair, inside, v in zip(judged, verdicts, in_band, numbers, strict=True)]
    return [numbers, deltas, relative, points, ratio, verdict, none, in_band]  # shared lists: copied to patch


_NONE: frozenset[int] = frozenset()


def _step_rules(facts: _Facts, shared: _Context, doubts: list[str | None] | None
                ) -> tuple[list[Verdict | None] | None, list[tuple[Verdict, Verdict]] | tuple[Verdict, Verdict]]:
    """``_cell``'s rules of the per-step verdicts, per variant: suspect, context (an eval-pass timing
    against an eval set of another size; per-step context beside a per-sample row), unscored (memory
    across batch sizes); (None, the row's verdicts) when no rule applies to any variant."""
    verdicts = facts.verdicts
    context = shared.unlike_eval if facts.eval_pass else _NONE  # sides whose per-step delta is context
    if shared.step_context and facts.sample is not None:
        context = context | shared.batched
    unscored = shared.unscored if facts.grows else _NONE
    if not context and not unscored and doubts is None:
        return None, verdicts
    doubts = doubts or [None] * len(shared.sides)
    unscored_verdicts = (_UNSCORED[verdicts[0]], _UNSCORED[verdicts[1]])
    variants = range(1, len(shared.sides))
    judged: list[Any] = [SUSPECT if doubts[i] is not None else CONTEXT if i in context else None for i in variants]
    return (judged,
            [unscored_verdicts if i in unscored else verdicts for i in variants])


def _sample_columns(facts: _Facts, shared: _Context, numbers: list[Any], doubts: list[str | None] | None) -> Columns:
    """The per-sample columns of a plain row: each value over its side's batch size; a variant
    without a batch size has none (None in every column)."""
    scale = cast(_Scale, facts.sample)
    batches = shared.batches
    batched = len(shared.batched) == len(shared.sides)  # every side has a batch size
    per_sample = [v / batch for v, batch in zip(numbers, batches, strict=True)] if batched else \
        [v / batch if batch else scale.central for v, batch in zip(numbers, batches, strict=True)]
    judged: list[Verdict | None] | None = None
    if doubts is not None:
        judged = [SUSPECT if doubt is not None else None for doubt in doubts[1:]]
    columns = _plain_columns(scale, facts.band, per_sample, shared.none, judged,
                             facts.verdicts if judged is None else [facts.verdicts] * len(numbers))
    if not batched:
        columns = [list(column) for column in columns]  # not ``shared.none``
        for i, batch in enumerate(batches):
            if not batch:
                _patch(columns, i, None)
    return columns


def _patch_from(step: Columns, sample: Columns | None, source: tuple[Columns, Columns | None] | None,
                index: int) -> None:
    """Variant ``index``'s entries in both bases replaced by those of ``source``'s."""
    source_step, source_sample = cast("tuple[Columns, Columns | None]", source)
    for column, items in zip(step, source_step, strict=True):
        column[index] = items[index]
    if sample is not None and source_sample is not None:
        for column, items in zip(sample, source_sample, strict=True):
            column[index] = items[index]


def _patch(columns: Columns, index: int, delta: Delta | None) -> None:
    """Variant ``index``'s entries replaced by ``delta``'s fields (None: no value in this basis)."""
    for column, item in zip(columns, _NO_DELTA if delta is None else delta[2:], strict=True):
        column[index] = item


_NO_DELTA = (None, None, None, None, None, None, None, False)  # a variant's entries in a basis it has no value in


def _deltas(scale: _Scale, columns: Columns, shared: _Context) -> Deltas:
    """The record of a basis' columns; a column of None is the comparison's one tuple of None (each
    tuple of 500 entries is one more for the garbage collector to walk: 7 of 20 ms in compare)."""
    none, nones = shared.none, shared.nones
    return tuple.__new__(Deltas, (scale.basis, scale.central,  # no NamedTuple.__new__ frame
                                  *[nones if column is none else tuple(column) for column in columns]))


def _doubts(facts: _Facts, shared: _Context) -> list[str | None] | None:
    """Per side: why its value of the row's metric (or the baseline's) cannot be trusted; None: no side's doubted."""
    if facts.doubt is not None:
        return [facts.doubt] * len(shared.sides)
    doubted = shared.doubted.get(facts.name)
    return None if doubted is None else [doubted.get(i) for i in range(len(shared.sides))]


def _values_by_metric(names: Iterable[str], singles: list[Mapping[str, Metric] | None]) -> dict[str, list[Any]]:
    """Metric -> each variant's value, read variant by variant: each value set once, in order (a
    row reading its metric from every variant's set in turn was 12 ms of 500 variants' 137 rows)."""
    variants = singles[1:]
    n = len(variants)
    table = {name: [_MISSING] * n for name in names}
    same = _same_names(variants)
    if same is not None:  # a sweep of one format: the values transposed at once (500 variants: 6 -> 2 ms)
        rows = [list(map(_VALUE, values.values())) for values in cast("list[Mapping[str, Metric]]", variants)]
        table.update(zip(same, map(list, zip(*rows, strict=True)), strict=True))
        return table
    for index, values in enumerate(variants):
        if values is None:
            for column in table.values():
                column[index] = _SEVERAL
            continue
        for name, metric in values.items():
            table[name][index] = metric.value
    return table


_VALUE = attrgetter("value")


def _same_names(variants: list[Mapping[str, Metric] | None]) -> list[str] | None:
    """The names of every variant's one value set, when they are the same names in the same order."""
    first = variants[0] if variants else None
    if first is None:
        return None
    names = list(first)
    return names if all(values is not None and list(values) == names for values in variants) else None


def _by_metric(suspects: list[dict[str, str]]) -> dict[str, dict[int, str]]:
    """The sides' doubts by metric: metric -> side index -> why (a row asks for its own only)."""
    found: dict[str, dict[int, str]] = {}
    for index, doubts in enumerate(suspects):
        for name, reason in doubts.items():
            found.setdefault(name, {})[index] = reason
    return found


# ``_unscored`` of the verdicts beyond the band
_UNSCORED: dict[Verdict, Verdict] = {BETTER: CONTEXT, WORSE: CONTEXT, NEUTRAL: NEUTRAL}


def _cell(facts: _Facts, shared: _Context, index: int) -> Cell:
    name, spec, band, base = facts.name, facts.spec, facts.band, facts.step
    side = shared.sides[index]
    values = [metric.value for capture in shared.captures[index] if (metric := capture.get(name)) is not None]
    doubt = facts.doubt or shared.suspects[index].get(name)
    step = _delta(spec, band, STEP, base.values, base.central, values)
    sample = None
    if facts.sample is not None and side.batch_size:
        sample = _delta(spec, band, SAMPLE, facts.sample.values, facts.sample.central,
                        per_sample_all(values, side.batch_size))
        if shared.step_context:
            step = _context(step)
    if doubt is not None:
        step, sample = _suspect(step), _suspect(sample) if sample is not None else None
    elif facts.eval_pass and index in shared.unlike_eval:  # shown, not scored (a warning says why)
        step = _context(step)
    elif facts.grows and index in shared.unscored:  # a caption or warning says why
        step = _unscored(step)
    return Cell(side.label, step, sample, len(base.values), len(values), facts.spread, _spread(values), doubt)


def _batches_differ(baseline: Side, side: Side) -> bool:
    return None not in (baseline.batch_size, side.batch_size) and baseline.batch_size != side.batch_size


def _unscored(delta: Delta) -> Delta:
    """A change shown without its better/worse verdict; within the noise band it stays unchanged."""
    return _judged(delta, CONTEXT) if delta.verdict in (BETTER, WORSE) else delta


def _context(delta: Delta) -> Delta:
    return delta if delta.verdict in (ADDED, REMOVED, ABSENT) else _judged(delta, CONTEXT)


def _suspect(delta: Delta) -> Delta:
    """A delta built on a flagged value: its change is kept, its verdict is "suspect"."""
    if delta.verdict in (ADDED, REMOVED, ABSENT):
        return delta
    return _judged(delta, SUSPECT)


_VERDICT = Delta._fields.index("verdict")


def _judged(delta: Delta, verdict: str) -> Delta:
    """``delta._replace(verdict=verdict)`` without its keyword machinery (a 500-variant diff
    replaces 30,000 verdicts: ``_replace`` was a tenth of the comparison's time)."""
    return Delta._make((*delta[:_VERDICT], verdict, *delta[_VERDICT + 1:]))


def _spread(values: list[Any]) -> tuple[float, float] | None:
    if len(values) < 2:
        return None
    numbers = [v for v in values if isinstance(v, (int, float))]
    return stats.spread(numbers) if len(numbers) > 1 else None


def _central(values: list[Any]) -> Any:
    if not values:
        return None
    if len(values) == 1:
        return values[0]
    if all(isinstance(v, (int, float)) for v in values):
        return stats.median(values)
    texts = {str(v) for v in values}
    return texts.pop() if len(texts) == 1 else "mixed: " + ", ".join(sorted(texts))


def _delta(spec: MetricSpec, band: Band, basis: ShownBasis, base: list[Any], b: Any, var: list[Any]) -> Delta:
    v = var[0] if len(var) == 1 else _central(var)  # one capture, the usual case: no call
    if b is None or v is None:
        verdict: Verdict = ABSENT if b is None and v is None else ADDED if b is None else REMOVED
        return Delta(basis, b, v, None, None, None, None, verdict)
    if not (isinstance(b, (int, float)) and isinstance(v, (int, float))):
        return Delta(basis, b, v, None, None, None, None, UNCHANGED if b == v else NEUTRAL)
    if b != b or v != v:  # NaN
        return Delta(basis, b, v, None, None, None, None, NEUTRAL)
    delta = v - b
    relative = delta / b if b else None
    ratio = v / b if b else None
    points = delta * 100 if spec.kind == "fraction" else None
    p_value = None
    if (len(base) > 1 and len(var) > 1) or (len(var) == 1 and len(base) >= SINGLE_AGAINST):
        p_value = stats.permutation_p_value([float(x) for x in base], [float(x) for x in var], 1)
    in_band = band.inside(b, v)  # inside_band's rule, without its extra call per cell
    verdict = _verdict(spec, in_band, b, v, p_value)
    return Delta(basis, b, v, delta, relative, points, ratio, verdict, p_value, in_band)


def inside_band(band: Band, b: float, v: float, points: float | None = None) -> bool:
    """Whether ``b`` -> ``v`` is noise (``Band.inside``: the one place bands are applied);
    ``points`` is accepted for callers that computed it, and not needed."""
    return band.inside(b, v)


def _verdict(spec: MetricSpec, in_band: bool, b: float, v: float, p_value: float | None) -> Verdict:
    if in_band or (p_value is not None and p_value >= ALPHA):
        return UNCHANGED
    if not spec.scored:
        return NEUTRAL
    return BETTER if (v > b) == (spec.direction == HIGHER) else WORSE


def _only_in(sides: list[Side], captures: list[Captures]) -> Mapping[str, tuple[str, ...]]:
    """Metrics some sides lack (derived ones follow their inputs, which are listed already)."""
    derived = {spec.name for spec in derived_specs()}
    having = [side_captures[0].keys() if len(side_captures) == 1 else dict.fromkeys(chain(*side_captures)).keys()
              for side_captures in captures]
    everywhere = set(having[0]).intersection(*having[1:])  # most names: no look side by side
    return FrozenDict({name: tuple(side.label for side, have in zip(sides, having, strict=True) if name in have)
                       for name in dict.fromkeys(chain.from_iterable(having))
                       if name not in everywhere and name not in derived})


def _captures_note(sides: list[Side]) -> str:
    counts = [len(side.profiles) for side in sides]
    if max(counts) == 1:
        return "one capture per side: values compared as read, no spread or significance test"
    detail = ", ".join(f"{side.label} x{len(side.profiles)}" for side in sides)
    return f"repeated captures ({detail}): medians compared, permutation test at p < {ALPHA}"

"""A row of the comparison as columns: each field of every variant's deltas in a list comprehension,
with the verdicts ``cell_rules.cell`` gives (its rules decided once per row), the variants not of
the baseline's kind patched in from ``cell``. Columns, not a record per cell: 500 variants, 68,500
cells, about 200 -> 55 ms, a fifth of the objects for the collector.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any, cast

from ..choices import ABSENT, ADDED, CONTEXT, NEUTRAL, SAMPLE, STEP, SUSPECT, UNCHANGED, Verdict
from ..per_sample import per_sample
from .bands import Band
from .cell_rules import MISSING, SEVERAL, UNSCORED, Facts, RowContext, Scale, cell, delta_of
from .result import Delta, Deltas, Row


def row(facts: Facts, shared: RowContext, unit: str) -> Row | None:
    """The row as columns when its baseline is one plain number, one text, or no value (with the
    variants not of its kind patched in by ``cell``); None: the general rules make it cell by cell."""
    if facts.step.plain:
        return _plain_row(facts, shared, unit, _odd, _computed)
    if type(facts.step.central) is str and len(facts.step.values) == 1 and facts.sample is None:
        return _plain_row(facts, shared, unit, _not_texts, _text_columns)
    if facts.step.central is None and len(facts.step.values) <= 1:  # a metric the baseline lacks (or its None)
        return _plain_row(facts, shared, unit, _not_single, _added_columns)
    return None


Values = Sequence[Any]  # each variant's value of a row's metric (``RowContext.values``)
Columns = Sequence[Sequence[Any]]  # a basis' columns while a row is built: ``Delta``'s fields from ``variant`` on
Patchable = list[list[Any]]  # columns copied to have some variants' entries replaced
Computed = Callable[[Facts, RowContext, Values, list[int], list[str | None] | None], tuple[Columns, Columns | None]]


def _plain_row(facts: Facts, shared: RowContext, unit: str, odd_ones: Callable[[Values], list[int]],
               computed: Computed) -> Row:
    """The row of a baseline of one plain number (or one text), as columns: each field of every
    variant's deltas in a list comprehension (``computed``), with ``cell``'s verdicts (its rules decided
    once per row). The variants that are not of the baseline's kind (``odd_ones``) are patched in after
    (``_patched``)."""
    name, n = facts.name, len(shared.sides) - 1
    values = shared.values[name]
    every = values.count(MISSING) == n  # no variant has the metric (42 of 137 rows, 500 variants)
    odd = list(range(n)) if every else odd_ones(values)
    doubts = _doubts(facts, shared)
    step: Columns
    sample: Columns | None
    if odd:
        step, sample, n_variant, spreads = _patched(facts, shared, values, odd, every, doubts, computed)
    else:  # the usual row
        (step, sample), n_variant, spreads = computed(facts, shared, values, odd, doubts), shared.ones, shared.nones
    return Row(name, facts.spec, unit, facts.band, shared.labels, _deltas(facts.step, step, shared),
               _deltas(facts.sample, sample, shared) if facts.sample and sample else None, len(facts.step.values),
               n_variant, facts.spread, spreads, shared.nones if doubts is None else tuple(doubts[1:]))


def _patched(facts: Facts, shared: RowContext, values: Values, odd: list[int], every: bool,
             doubts: list[str | None] | None, computed: Computed
             ) -> tuple[Columns, Columns | None, tuple[int, ...], tuple[tuple[float, float] | None, ...]]:
    """The columns of a row with ``odd`` variants, and its capture counts and spreads: a variant lacking
    the metric takes the row's removed deltas (``every``: none has it, nothing to compute), any other
    (a text, NaN, repeated captures) ``cell``'s."""
    n = len(values)
    missing = odd if every else [i for i in odd if values[i] is MISSING]
    removed = _removed(facts, shared, n) if missing else None
    step: Patchable
    sample: Patchable | None
    if every:
        step, sample = cast("tuple[Patchable, Patchable | None]", removed)
    else:  # the columns may share a list (a column of None) or be ``values``: copied to be patched
        computed_step, computed_sample = computed(facts, shared, values, odd, doubts)
        step = [list(column) for column in computed_step]
        sample = None if computed_sample is None else [list(column) for column in computed_sample]
        for i in missing:
            _patch_from(step, sample, removed, i)
    n_variant: list[int] = [1] * n
    spreads: list[tuple[float, float] | None] = [None] * n
    for i in missing:
        n_variant[i] = 0
    for i in [] if every else odd:
        if values[i] is not MISSING:  # not one plain number: the general rules
            general = cell(facts, shared, i + 1)
            _patch(step, i, general.step)
            if sample is not None:
                _patch(sample, i, general.sample)
            n_variant[i], spreads[i] = general.n_variant, general.spread_variant
    return step, sample, tuple(n_variant), tuple(spreads)


_NUMBERS = frozenset({int, float})


def _odd(values: Values) -> list[int]:
    """The indexes of ``values`` that are not one plain number (an int or float, not NaN). All
    numbers and a sum that is not NaN (the usual row) answers without a look at each."""
    if set(map(type, values)) <= _NUMBERS:
        try:
            total: float = sum(values)
        except OverflowError:  # an integer beyond a float's range
            total = math.nan
        if total == total:
            return []
    return [i for i, v in enumerate(values) if not ((type(v) is float or type(v) is int) and v == v)]


def _computed(facts: Facts, shared: RowContext, values: Values, odd: list[int], doubts: list[str | None] | None
              ) -> tuple[Columns, Columns | None]:
    """The per-step and per-sample columns of a plain row; the ``odd`` variants (not one plain number
    each) computed with the baseline standing in for their values, to be replaced."""
    numbers = values
    if odd:
        stand_ins = list(values)
        for i in odd:
            stand_ins[i] = facts.step.central
        numbers = stand_ins
    step = _plain_columns(facts.step, facts.band, numbers, shared.none, *_step_rules(facts, shared, doubts))
    return step, None if facts.sample is None else _sample_columns(facts, shared, numbers, doubts)


def _not_texts(values: Values) -> list[int]:
    return [i for i, v in enumerate(values) if type(v) is not str]


def _text_columns(facts: Facts, shared: RowContext, values: Values, odd: list[int], doubts: list[str | None] | None
                  ) -> tuple[Columns, Columns | None]:
    """``delta_of``'s fields of each text against the baseline's one text (no per-sample basis):
    unchanged or neutral, and the rules' suspect or context instead."""
    b, n = facts.step.central, len(values)
    verdict: list[Any] = [UNCHANGED if v == b else NEUTRAL for v in values]
    judged = _step_rules(facts, shared, doubts)[0]
    if judged is not None:
        verdict = [rule or verdict for rule, verdict in zip(judged, verdict, strict=True)]
    none = shared.none
    return [values, none, none, none, none, verdict, none, [False] * n], None  # shared lists: copied to patch


def _not_single(values: Values) -> list[int]:
    return [i for i, v in enumerate(values) if v is MISSING or v is SEVERAL]


def _added_columns(facts: Facts, shared: RowContext, values: Values, odd: list[int],
                   doubts: list[str | None] | None) -> tuple[Columns, Columns | None]:
    """``delta_of``'s fields of each value against a baseline without one: added, or absent (None on
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


def _removed(facts: Facts, shared: RowContext, n: int) -> tuple[Patchable, Patchable | None]:
    """The columns of a row no variant has: ``cell``'s removed (or absent) deltas for each."""
    step = delta_of(facts.spec, facts.band, STEP, facts.step.values, facts.step.central, [])
    none = shared.none  # never patched: a column of None is the comparison's one (42 rows of 500 variants)
    columns = [none if item is None else [item] * n for item in step[2:]]
    if facts.sample is None:
        return columns, None
    sample = delta_of(facts.spec, facts.band, SAMPLE, facts.sample.values, facts.sample.central, [])
    sample_columns = [[item] * n for item in sample[2:]]
    for i, batch in enumerate(shared.batches):
        if not batch:
            _patch(sample_columns, i, None)
    return columns, sample_columns



def _plain_columns(scale: Scale, band: Band, numbers: Values, none: list[None], judged: list[Verdict | None] | None,
                   verdicts: list[tuple[Verdict, Verdict]] | tuple[Verdict, Verdict]) -> Columns:
    """``delta_of``'s fields of each of ``numbers`` against the scale's one plain number. ``judged``:
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
    elif None not in judged:  # the rules give every verdict (per-step context beside a per-sample row)
        verdict = judged
    else:
        verdict = [rule or (UNCHANGED if inside else pair[0] if v > b else pair[1])
                   for rule, pair, inside, v in zip(judged, verdicts, in_band, numbers, strict=True)]
    return [numbers, deltas, relative, points, ratio, verdict, none, in_band]  # shared lists: copied to patch


_NONE: frozenset[int] = frozenset()


def _step_rules(facts: Facts, shared: RowContext, doubts: list[str | None] | None
                ) -> tuple[list[Verdict | None] | None, list[tuple[Verdict, Verdict]] | tuple[Verdict, Verdict]]:
    """``cell``'s rules of the per-step verdicts, per variant: suspect, context (an eval-pass timing
    against an eval set of another size; per-step context beside a per-sample row), unscored (memory
    across batch sizes); (None, the row's verdicts) when no rule applies to any variant."""
    verdicts = facts.verdicts
    context = shared.unlike_eval if facts.eval_pass else _NONE  # sides whose per-step delta is context
    if shared.step_context and facts.sample is not None:
        context = context | shared.batched
    unscored = shared.unscored if facts.grows else _NONE
    if not context and not unscored and doubts is None:
        return None, verdicts
    n = len(shared.sides) - 1
    variants = range(1, n + 1)
    judged: list[Any]
    if doubts is None and len(context) - (0 in context) == n:  # every variant (500 variants: 55 rows, 4 ms)
        return [CONTEXT] * n, verdicts  # every verdict is the rules': no band verdict is read
    if doubts is None:
        judged = [CONTEXT if i in context else None for i in variants]
    else:
        judged = [SUSPECT if doubts[i] is not None else CONTEXT if i in context else None for i in variants]
    if not unscored or None not in judged:
        return judged, [verdicts] * n
    unscored_verdicts = (UNSCORED[verdicts[0]], UNSCORED[verdicts[1]])
    return judged, [unscored_verdicts if i in unscored else verdicts for i in variants]


def _sample_columns(facts: Facts, shared: RowContext, numbers: Values, doubts: list[str | None] | None) -> Columns:
    """The per-sample columns of a plain row: each value over its side's batch size; a variant
    without a batch size has none (None in every column)."""
    scale = cast(Scale, facts.sample)
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
        patched = [list(column) for column in columns]  # not ``shared.none``
        for i, batch in enumerate(batches):
            if not batch:
                _patch(patched, i, None)
        return patched
    return columns


def _patch_from(step: Patchable, sample: Patchable | None, source: tuple[Patchable, Patchable | None] | None,
                index: int) -> None:
    """Variant ``index``'s entries in both bases replaced by those of ``source``'s."""
    source_step, source_sample = cast("tuple[Patchable, Patchable | None]", source)
    for column, items in zip(step, source_step, strict=True):
        column[index] = items[index]
    if sample is not None and source_sample is not None:
        for column, items in zip(sample, source_sample, strict=True):
            column[index] = items[index]


def _patch(columns: Patchable, index: int, delta: Delta | None) -> None:
    """Variant ``index``'s entries replaced by ``delta``'s fields (None: no value in this basis)."""
    for column, item in zip(columns, _NO_DELTA if delta is None else delta[2:], strict=True):
        column[index] = item


_NO_DELTA = (None, None, None, None, None, None, None, False)  # a variant's entries in a basis it has no value in


def _deltas(scale: Scale, columns: Columns, shared: RowContext) -> Deltas:
    """The record of a basis' columns; a column of None is the comparison's one tuple of None (each
    tuple of 500 entries is one more for the garbage collector to walk: 7 of 20 ms in compare)."""
    none, nones = shared.none, shared.nones
    return tuple.__new__(Deltas, (scale.basis, scale.central,  # no NamedTuple.__new__ frame
                                  *[nones if column is none else tuple(column) for column in columns]))


def _doubts(facts: Facts, shared: RowContext) -> list[str | None] | None:
    """Per side: why its value of the row's metric (or the baseline's) cannot be trusted; None: no side's doubted."""
    if facts.doubt is not None:
        return [facts.doubt] * len(shared.sides)
    doubted = shared.doubted.get(facts.name)
    return None if doubted is None else [doubted.get(i) for i in range(len(shared.sides))]

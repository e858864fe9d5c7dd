"""``compare()``: baseline against variants, metric by metric, with verdicts from the catalog.

Pure: no printing, no CLI objects, no view state. Profiles sharing a label are repeated
captures of one side: their median is compared, with the spread and a permutation test; a
single capture gets no statistics. Extensive metrics (times, bytes, FLOPs, counts) are also
compared per sample when batch sizes are known.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from itertools import chain
from operator import itemgetter
from typing import Any, cast

from .. import arguments
from ..catalog import GROWS_WITH_BATCH, HIGHER, MetricSpec, derived_specs, group_rank, lookup
from ..choices import (
    AUTO,
    BASES,
    BETTER,
    CONTEXT,
    NEUTRAL,
    ORDERS,
    SAMPLE,
    STEP,
    UNCHANGED,
    WORSE,
    Basis,
    Order,
    ShownBasis,
    Verdict,
    check,
)
from ..model import FrozenDict, Metric
from ..per_sample import per_sample_all
from . import value_sources
from .bands import Band, Bands
from .cell_rules import (
    MISSING,
    SEVERAL,
    Captures,
    Facts,
    RowContext,
    Scale,
    batches_differ,
    cell,
    central_of,
    spread_of,
)
from .columns import row as columnar_row
from .comparability import NOT_COMPARABLE, not_comparable, unlike_eval_sets, unlike_memory, warnings_for
from .result import ALPHA, Comparison, Deltas, Row, Side
from .sides import ProfileInput, arrange, flatten
from .suspects import suspects

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
    singles = [values[0] if len(values) == 1 else None for values in captures]
    same = _same_names(singles[1:])  # read once: rows and only_in share it
    only_in = _only_in(sides, captures, same)
    doubts = [{**formulas, **suspects(side)} for side, formulas in zip(sides, value_sources.formula_doubts(sides))]
    rows = _rows(sides, captures, singles, same, bands, doubts, context, unlike_eval_sets(sides), unlike_memory(sides))
    unlike = not_comparable(sides)  # decided before any delta is read: its verdicts are withheld
    if unlike:
        rows = tuple(_withheld(row, frozenset(index - 1 for index in unlike)) for row in rows)
    warnings = [*(f"{NOT_COMPARABLE}: {why}" for why in unlike.values()), *warnings_for(sides, only_in, chosen),
                *value_sources.formula_warnings(sides), *value_sources.unavailable_warnings(sides)]
    return Comparison(sides[0], tuple(sides[1:]), rows, chosen, reason, basis, bands,
                      tuple(warnings), only_in, _captures_note(sides),
                      FrozenDict({sides[index].label: why for index, why in unlike.items()}))


# The verdicts of a variant that ran another workload: its changes shown, none judged.
WITHHELD: dict[Verdict, Verdict] = {BETTER: CONTEXT, WORSE: CONTEXT, NEUTRAL: CONTEXT, UNCHANGED: CONTEXT}


def _withheld(row: Row, variants: frozenset[int]) -> Row:
    """``row`` with the verdicts of ``variants`` (indexes of ``row.variants``) withheld (``WITHHELD``);
    suspect, new and gone stay, as they say what the inputs hold, not how the runs compare."""
    def deltas(columns: Deltas) -> Deltas:
        verdicts = tuple(WITHHELD.get(verdict, verdict) if index in variants and verdict is not None else verdict
                         for index, verdict in enumerate(columns.verdict))
        return columns._replace(verdict=verdicts)

    return Row(row.name, row.spec, row.unit, row.band, row.variants, deltas(row.step),
               None if row.sample is None else deltas(row.sample), row.n_baseline, row.n_variant,
               row.spread_baseline, row.spread_variant, row.suspect)


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


def _rows(sides: list[Side], captures: list[Captures], singles: list[Mapping[str, Metric] | None],
          same: list[str] | None, bands: Bands, doubts: list[dict[str, str]], step_context: bool,
          unlike_eval: frozenset[int], unlike_memory: frozenset[int] = frozenset()) -> tuple[Row, ...]:
    names = dict.fromkeys(chain(chain.from_iterable(captures[0]), same) if same is not None else
                          chain.from_iterable(values for side_captures in captures for values in side_captures))
    unscored = frozenset(i for i, side in enumerate(sides) if batches_differ(sides[0], side)) | unlike_memory
    shared = RowContext(sides, captures, singles, doubts, bands, step_context, unlike_eval, unscored,
                      [side.batch_size for side in sides[1:]], tuple(side.label for side in sides[1:]),
                      _by_metric(doubts), _values_by_metric(names, singles, same),
                      frozenset(i for i, side in enumerate(sides) if side.batch_size), (1,) * (len(sides) - 1),
                      (None,) * (len(sides) - 1), [None] * (len(sides) - 1))
    rows = [_row(name, shared) for name in names]
    return tuple(sorted(rows, key=lambda r: group_rank(r.spec.group)))  # stable: keeps input order


def _row(name: str, shared: RowContext) -> Row:
    spec = lookup(name)
    baseline = [metric for values in shared.captures[0] if (metric := values.get(name)) is not None]
    unit = (baseline[0] if baseline else next(metric for side in shared.captures for values in side
                                               if (metric := values.get(name)) is not None)).unit
    band = shared.bands.band(spec)
    facts = _facts(name, spec, band, [m.value for m in baseline], shared)
    return columnar_row(facts, shared, unit) or _general_row(facts, shared, unit)


def _facts(name: str, spec: MetricSpec, band: Band, step: list[Any], shared: RowContext) -> Facts:
    batch = shared.sides[0].batch_size
    sample = per_sample_all(step, batch) if spec.extensive and batch else None
    up: Verdict = (BETTER if spec.direction == HIGHER else WORSE) if spec.scored else NEUTRAL
    down: Verdict = (WORSE if spec.direction == HIGHER else BETTER) if spec.scored else NEUTRAL
    return Facts(name, spec, band, _scale(STEP, step, band, spec),
                  _scale(SAMPLE, sample, band, spec) if sample is not None else None, spread_of(step),
                  shared.suspects[0].get(name), name in EVAL_PASS_METRICS, spec.group in GROWS_WITH_BATCH, (up, down))


def _scale(basis: ShownBasis, values: list[Any], band: Band, spec: MetricSpec) -> Scale:
    central = central_of(values)
    plain = len(values) == 1 and (type(central) is float or type(central) is int) and central == central
    return Scale(basis, values, central, plain, spec.kind == "fraction")


def _general_row(facts: Facts, shared: RowContext, unit: str) -> Row:
    """The row with every cell by the general rules (``cell``): repeated captures, a baseline that
    is not one plain number (a text, NaN, a missing value)."""
    cells = tuple(cell(facts, shared, index) for index in range(1, len(shared.sides)))
    return Row.of_cells(facts.name, facts.spec, unit, facts.band, cells)


def _values_by_metric(names: Iterable[str], singles: list[Mapping[str, Metric] | None],
                      same: list[str] | None) -> Mapping[str, Sequence[Any]]:
    """Metric -> each variant's value, read variant by variant: each value set once, in order (a
    row reading its metric from every variant's set in turn was 12 ms of 500 variants' 137 rows)."""
    variants = singles[1:]
    n = len(variants)
    if same is not None:  # a sweep of one format: the values transposed at once (500 variants: 6 -> 2 ms),
        # into tuples the collector stops walking once it has seen them hold no container
        rows = [map(_VALUE, values.values()) for values in cast("list[Mapping[str, Metric]]", variants)]
        found: dict[str, Sequence[Any]] = dict(zip(same, zip(*rows, strict=True), strict=True))
        missing = (MISSING,) * n
        return {name: found.get(name, missing) for name in names}
    table = {name: [MISSING] * n for name in names}
    for index, values in enumerate(variants):
        if values is None:
            for column in table.values():
                column[index] = SEVERAL
            continue
        for name, metric in values.items():
            table[name][index] = metric.value
    return table


_VALUE = itemgetter(Metric._fields.index("value"))  # a metric's value by index: half attrgetter's time, 47,000 a sweep


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


def _only_in(sides: list[Side], captures: list[Captures], same: list[str] | None) -> Mapping[str, tuple[str, ...]]:
    """Metrics some sides lack (derived ones follow their inputs, which are listed already). ``same``:
    the names every variant states, in one order (one variant's names stand for all: 500 variants, 2.4 -> 0.3 ms)."""
    derived = {spec.name for spec in derived_specs()}  # and the values not available: said apart
    derived |= {name for side in sides for profile in side.profiles for name in profile.values.unavailable}
    having = [side_captures[0].keys() if len(side_captures) == 1 else dict.fromkeys(chain(*side_captures)).keys()
              for side_captures in captures]
    if same is not None:  # one variant's names stand for all
        base, names, variants = having[0], having[1], tuple(side.label for side in sides[1:])
        return FrozenDict({name: (sides[0].label,) if name in base else variants
                           for name in dict.fromkeys(chain(base, names))
                           if (name in base) != (name in names) and name not in derived})
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

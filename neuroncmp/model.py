"""The normalized profile model every parser produces and every consumer reads.

Values are magnitudes in the catalog's canonical unit; ``Metric.quantity`` builds the pint
Quantity on demand, so loading and rendering never import pint.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Mapping
from dataclasses import dataclass, field, fields
from functools import lru_cache
from math import isfinite
from operator import itemgetter
from typing import Any, NamedTuple, NoReturn, TypeVar

from . import catalog, conventions
from .catalog import MetricSpec
from .units import BYTE, format_value, quantity

Value = int | float | str
# The ints float() takes: from 2**1024 - 2**970 up (half a step above the largest float) it overflows.
_FINITE_INT = 2**1024 - 2**970
# Metric's own ``__new__`` is a Python function around this call: made directly, the record is the same.
_new = tuple.__new__
P = TypeVar("P", bound="Profile")


class FrozenDict(dict[Any, Any]):
    """A dict that refuses changes (a result's mapping stays as computed); it pickles and copies
    as a dict would, unlike ``types.MappingProxyType``."""

    def _refuse(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise TypeError("this mapping is part of an immutable result")

    __setitem__ = __delitem__ = clear = pop = popitem = setdefault = update = _refuse
    __ior__ = _refuse

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (dict(self),))

    def __copy__(self) -> FrozenDict:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> FrozenDict:
        return self  # nothing inside can change either


class Source(NamedTuple):
    """Where a profile came from: file, parser name and (for multi-section files) the section."""

    path: str
    format: str
    section: str | None = None

    def __str__(self) -> str:
        return f"{self.path} [{self.section}]" if self.section else self.path


class Metric(NamedTuple):
    """One value: canonical name, magnitude in the canonical unit, and the text it was read from.

    A NamedTuple rather than a frozen dataclass: loading a 500-profile sweep builds 45,000 of
    them, and a tuple is several times cheaper to create.
    """

    name: str
    value: Value
    unit: str
    raw: str
    group: str

    @property
    def spec(self) -> MetricSpec:
        return catalog.lookup(self.name)

    @property
    def catalogued(self) -> bool:
        return self.spec.catalogued

    @property
    def quantity(self) -> Any:
        """The value as a pint Quantity (imports pint on first use)."""
        if isinstance(self.value, str):
            raise TypeError(f"{self.name} is text ({self.value!r}), not a quantity")
        return quantity(self.value, self.unit)

    def display(self) -> str:
        return format_value(self.value, self.unit)


class MemoryRow(NamedTuple):
    """One row of the device memory usage table: bytes of one usage type on one core."""

    device: int | None
    core: int | None
    usage_type: str
    label: str
    bytes: int
    raw: str = ""


class Anomaly(NamedTuple):
    """Something in the input that looks wrong; recorded, never raised."""

    code: str
    message: str
    metric: str | None = None


class Skipped(NamedTuple):
    """An input line (or key) a parser could not use, with the reason: counted and reported."""

    where: str
    text: str
    reason: str


# Where a batch size worked out rather than read comes from (``ingest.batch_sizes``): FLOPs per sample
# across the set, or the Trainer's samples/s over steps/s. Both are estimates, marked with "*".
INFERRED_SOURCES = ("inferred", "trainer")


@dataclass
class Profile:
    """One captured profile (one variant) after normalization."""

    source: Source
    label: str
    params: dict[str, Any] = field(default_factory=dict)
    metadata: dict[str, Any] = field(default_factory=dict)
    metrics: dict[str, Metric] = field(default_factory=dict)
    memory: list[MemoryRow] = field(default_factory=list)
    training: dict[str, Metric] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    anomalies: list[Anomaly] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)

    @property
    def batch_size(self) -> int | None:
        return self.params.get("batch_size")

    @property
    def batch_size_inferred(self) -> bool:
        """The batch size was worked out, not stated (the one definition: ``Side`` reads it too)."""
        return self.batch_size is not None and self.params.get("batch_size_source") in INFERRED_SOURCES

    def value(self, name: str) -> Value | None:
        """A metric's or Trainer value's magnitude by canonical name (aliases accepted)."""
        name = catalog.canonical_name(name)
        metric = self.metrics.get(name) or self.training.get(name)
        return None if metric is None else metric.value

    def info(self, key: str) -> Any:
        """A metadata fact: the metadata dict first, then a system metric of that name."""
        if key in self.metadata:
            return self.metadata[key]
        return self.value(key)

    def memory_rows(self) -> list[MemoryRow]:
        """Memory rows without the table's own Total row."""
        return [row for row in self.memory if row.usage_type != "total"]

    def memory_total(self) -> int | None:
        """The table's Total (summed over cores), or the sum of rows when it has none."""
        totals = [row.bytes for row in self.memory if row.usage_type == "total"]
        if totals:
            return sum(totals)
        rows = self.memory_rows()
        return sum(row.bytes for row in rows) if rows else None

    def memory_workload(self) -> int | None:
        """Device memory without the profiler's own buffers: the table's Total (or sum) less its
        ``profiler_buffers`` rows (none in a table of a run not profiled)."""
        total = self.memory_total()
        return None if total is None else total - self.memory_by_type().get(PROFILER_BUFFERS, 0)

    def memory_by_core(self) -> dict[tuple[int | None, int | None], int]:
        """Per (device, core) the table lists, in its order: that core's memory without the profiler's
        buffers (its Total row, else the sum of its rows, less its ``profiler_buffers``)."""
        cores: dict[tuple[int | None, int | None], dict[str, int]] = {}
        for row in self.memory:
            usage = cores.setdefault((row.device, row.core), {})
            usage[row.usage_type] = usage.get(row.usage_type, 0) + row.bytes
        return {key: usage.get("total", sum(usage.values())) - usage.get(PROFILER_BUFFERS, 0)
                for key, usage in cores.items()}

    def memory_by_type(self) -> dict[str, int]:
        """Bytes per canonical usage type, summed over devices and cores, in table order."""
        summed: dict[str, int] = {}
        for row in self.memory_rows():
            summed[row.usage_type] = summed.get(row.usage_type, 0) + row.bytes
        return summed

    @property
    def values(self) -> ValueSet:
        """Every value of this profile (catalogued, memory, Trainer, derived), built once.

        ``load()`` builds it as its last step; a consumer reads it instead of assembling its own.
        It is rebuilt only when what it is computed from changed since (a profile built or
        amended by hand, a batch size inferred later across a set): the key is cheap to compare."""
        return remembered_values(self)

    def recast(self, kind: type[P]) -> P:
        """This profile as a subclass ``kind`` (the API's), its fields and value set shared, not copied."""
        made = kind(**{f.name: getattr(self, f.name) for f in fields(self)})
        if "_cached_values" in self.__dict__:
            made.__dict__["_cached_values"] = self.__dict__["_cached_values"]
        return made

    def _value_key(self) -> tuple[Any, ...]:
        return (self.params.get("batch_size"), id(self.metrics), len(self.metrics), id(self.training),
                len(self.training), id(self.memory), len(self.memory))

    def memory_metrics(self) -> Mapping[str, Metric]:
        """Memory by type as ``memory.<type>`` metrics (bytes), plus the total, for comparing."""
        return self.values.memory

    def derived_metrics(self) -> Mapping[str, Metric]:
        """The catalog's derived metrics whose inputs this profile has (``raw`` holds the formula)."""
        return self.values.derived

    def numeric_values(self) -> Mapping[str, float]:
        """The finite numbers derived metrics are computed from (``batch_size`` included)."""
        return self.values.numbers

    def uncatalogued(self) -> list[str]:
        return [name for name, metric in self.metrics.items() if not metric.catalogued]

    def __repr__(self) -> str:
        bs = self.batch_size
        return (f"<Profile {self.label!r} batch_size={bs} metrics={len(self.metrics)} "
                f"memory_rows={len(self.memory)} training={len(self.training)} from {self.source}>")


class ValueSet(NamedTuple):
    """A profile's values, assembled once: what the differ, the findings, the renderers and the
    store read. ``all`` is in comparison order: summary metrics, memory, Trainer, derived."""

    memory: Mapping[str, Metric]     # memory.<type> and device_memory_total (bytes)
    measured: Mapping[str, Metric]   # summary metrics, memory and Trainer values: all but the derived
    derived: Mapping[str, Metric]    # the catalog's derived metrics whose inputs are present
    numbers: Mapping[str, float]     # finite measured numbers (with batch_size): the derived inputs
    all: Mapping[str, Metric]        # every value by name (a later kind wins a name clash)
    # values read but not measurements (``conventions``: a 0 the tool writes for "not known"), left
    # out of all of the above, and derived metrics an input of which is there but that could not be
    # computed: name -> why, said where the value would be
    unavailable: Mapping[str, str] = FrozenDict()
    not_computed: Mapping[str, str] = FrozenDict()


def remembered_values(profile: Profile, columns: Columns | None = None) -> ValueSet:
    """``profile.values``: the value set built before while what it is computed from is unchanged,
    else built now (from ``columns``, the profile's columns as it is now, when the caller has them)."""
    key = profile._value_key()
    cached: tuple[tuple[Any, ...], ValueSet] | None = profile.__dict__.get("_cached_values")
    if cached is None or cached[0] != key:  # not a dataclass field: equality, fields() and replace() ignore it
        cached = profile.__dict__["_cached_values"] = (key, value_set(profile, columns))
    return cached[1]


class Columns(NamedTuple):
    """A profile's metrics, then its Trainer values, as columns read in one pass (``columns``)."""

    records: tuple[Metric, ...]
    names: tuple[str, ...]       # each the name its dict holds it under
    values: tuple[Value, ...]
    units: tuple[str, ...]
    metrics: int                 # how many of them are metrics (the rest are Trainer values)


def columns(profile: Profile) -> Columns | None:
    """``profile``'s metrics and Trainer values as columns (one zip: a place in them is a name's
    in every profile of that layout); None for fewer than two, or a dict key that is not its
    metric's name (then each reader takes its general way)."""
    records = (*profile.metrics.values(), *profile.training.values())
    if len(records) < 2:
        return None
    names, values, units, _, _ = zip(*records)
    if names != (*profile.metrics, *profile.training):
        return None
    return _new(Columns, (records, names, values, units, len(profile.metrics)))


def value_set(profile: Profile, columns: Columns | None = None) -> ValueSet:
    """The value set of ``profile`` (``columns``: the profile's own, as it is now, when the caller
    has them: its numbers are then read by place, in a layout decided once)."""
    memory = _memory_metrics(profile)
    measured = {**profile.metrics, **memory, **profile.training} if memory or profile.training \
        else dict(profile.metrics)
    numbers = layout = None
    if columns is not None and not memory and len(measured) == len(columns.names):  # no Trainer name a metric's
        layout = _number_layout(columns.names, tuple(map(type, columns.values)))
        numbers = None if layout is None else layout.finite(columns.values)
    if numbers is None:
        layout, numbers = None, finite_numbers(measured)
    unavailable = conventions.unavailable(numbers)
    if unavailable:  # then the layout's derivations, worked out for every number, do not hold
        layout = None
        for name in unavailable:  # both dicts made here, for this value set
            del measured[name], numbers[name]
    if profile.batch_size:
        numbers["batch_size"] = profile.batch_size
    if layout is None:
        ready, missed = ready_derivations(numbers), _unready(numbers, unavailable, measured)
    else:
        ready, missed = layout.ready["batch_size" in numbers], layout.unready["batch_size" in numbers]
    derived = _derived_metrics(numbers, ready)
    if len(derived) < len(ready):  # a ratio over 0
        missed = FrozenDict({**missed, **_divisions(numbers, ready, derived)})
    return ValueSet(memory, measured, derived, numbers, {**measured, **derived},
                    FrozenDict(unavailable) if unavailable else _NONE, missed)


_NONE = FrozenDict()


def finite_numbers(measured: Mapping[str, Metric]) -> dict[str, float]:
    """The finite numbers among ``measured`` (a huge int sum is not one). A float and an int are
    told finite by arithmetic, without a call (a variant's 96 values: 149k -> 128k instructions,
    callgrind); any other number by ``math.isfinite``."""
    numbers: dict[str, float] = {}
    for name, metric in measured.items():
        value = metric.value
        if type(value) is float:
            if value - value == 0.0:  # NaN for an infinity or NaN
                numbers[name] = value
        elif type(value) is int:
            if -_FINITE_INT < value < _FINITE_INT:  # what a float holds (math.isfinite raises beyond)
                numbers[name] = value
        elif isinstance(value, (int, float)):
            try:
                if isfinite(value):
                    numbers[name] = value
            except OverflowError:  # an integer beyond a float's range
                pass
    return numbers


# A derived metric as the value set makes it: name, compute, unit, raw text (the formula), group.
Derivation = tuple[str, Callable[[Mapping[str, float]], float], str, str, str]


class _NumberLayout(NamedTuple):
    """Of a layout of values (names and value types): the names of the numbers, a picker of their
    values, the numbers dict to fill (its keys laid out once: a copy is filled without resizing)
    and the derivations whose inputs they hold (without, with a batch size)."""

    names: tuple[str, ...]
    pick: Callable[[tuple[Value, ...]], tuple[float, ...]]  # the numbers only
    blank: dict[str, float]
    ready: tuple[tuple[Derivation, ...], tuple[Derivation, ...]]
    unready: tuple[FrozenDict, FrozenDict]  # ``_unready`` of the names, without and with a batch size

    def finite(self, values: tuple[Value, ...]) -> dict[str, float] | None:
        """``finite_numbers`` of ``values`` when every number among them is finite (one sum says
        so: an infinity or NaN makes it so, an int beyond a float's range raises); else None."""
        picked = self.pick(values)
        try:
            total = sum(picked, 0.0)
        except OverflowError:
            return None
        if total - total != 0.0:
            return None
        numbers = self.blank.copy()
        numbers.update(zip(self.names, picked))
        return numbers


_NUMBER_TYPES = (int, float, bool)  # the types ``finite_numbers`` takes as numbers that the sum above reads alike


# (names, value types) -> their _NumberLayout; None where a value is of another type (then
# ``finite_numbers`` decides). A run's profiles share one: their numbers are then picked in C loops
# (a variant's value set: 16.0 -> ~10 us). Remembered for 256 layouts: names come from input files.
@lru_cache(maxsize=256)
def _number_layout(names: tuple[str, ...], types: tuple[type, ...]) -> _NumberLayout | None:
    if any(kind not in _NUMBER_TYPES and kind is not str for kind in types):
        return None
    places = [index for index, kind in enumerate(types) if kind in _NUMBER_TYPES]
    numbers = tuple(names[index] for index in places)
    plain, batched = set(numbers), {*numbers, "batch_size"}
    return _NumberLayout(numbers, picker(places), dict.fromkeys(numbers, 0.0),
                         (ready_derivations(plain), ready_derivations(batched)),
                         (_unready(plain, (), set(names)), _unready(batched, (), set(names))))


def ready_derivations(names: Container[str]) -> tuple[Derivation, ...]:
    """The derived metrics a value set of the numbers ``names`` makes, in catalog order: of each, the
    first formula whose inputs are all among ``names`` (``MetricSpec.formulas``)."""
    return tuple(ready for formulas in _derivations()
                 if (ready := next((derivation for inputs, derivation in formulas
                                    if all(map(names.__contains__, inputs))), None)) is not None)


@lru_cache(maxsize=1)
def _derivations() -> tuple[tuple[tuple[tuple[str, ...], Derivation], ...], ...]:
    """Each derived spec's formulas, in order, as inputs and derivation, made once (a value set built
    the general way asks each time). A derivation's raw text is the formula it used."""
    return tuple(tuple((formula.inputs, (spec.name, formula.compute, spec.unit, f"= {formula.text}", spec.group))
                       for formula in spec.formulas)
                 for spec in catalog.derived_specs())


Picker = Callable[[tuple[Any, ...]], tuple[Any, ...]]  # the values at some places of a tuple


def picker(places: list[int]) -> Picker:
    """The values at ``places`` of a tuple, as a tuple (``itemgetter`` gives a bare value for one place)."""
    if len(places) > 1:
        return itemgetter(*places)
    return lambda values: tuple(values[index] for index in places)


PROFILER_BUFFERS = "profiler_buffers"  # the usage type of the profiler's own reservation
WORKLOAD = "device_memory_workload"


def _memory_metrics(profile: Profile) -> dict[str, Metric]:
    if not profile.memory:
        return {}  # most profiles have no memory table: no rows to sum, no total
    out: dict[str, Metric] = {}
    for usage, amount in profile.memory_by_type().items():
        out[f"memory.{usage}"] = Metric(f"memory.{usage}", amount, BYTE, str(amount), "memory")
    total = profile.memory_total()
    if total is not None:
        out["device_memory_total"] = Metric("device_memory_total", total, BYTE, str(total), "memory")
    workload = profile.memory_workload()
    if workload is not None:
        out[WORKLOAD] = Metric(WORKLOAD, workload, BYTE, str(workload), "memory")
    cores = profile.memory_by_core()
    if len(cores) > 1 and all(core is not None for _, core in cores):  # a table per core: each core apart
        devices = len({device for device, _ in cores}) > 1
        for (device, core), amount in cores.items():
            name = f"{WORKLOAD}.{f'nd{device}.' if devices else ''}nc{core}"
            out[name] = Metric(name, amount, BYTE, str(amount), "memory")
    return out


def _derived_metrics(numbers: Mapping[str, float],
                     ready: tuple[Derivation, ...] | None = None) -> dict[str, Metric]:
    """The derived metrics computed from ``numbers`` (``ready``: the derivations whose inputs it
    holds, when known)."""
    out: dict[str, Metric] = {}
    for name, compute, unit, formula, group in ready_derivations(numbers) if ready is None else ready:
        try:
            value = compute(numbers)
        except ZeroDivisionError:
            continue  # an input of 0: the ratio does not exist (``_not_computed`` says so)
        out[name] = _new(Metric, (name, value, unit, formula, group))
    return out


def _unready(names: Container[str], unavailable: Container[str], read: Container[str] = ()) -> FrozenDict:
    """Each derived metric no formula of which has all its inputs among the numbers ``names`` although
    one of its inputs is there (a number, a value not available, a value ``read`` that is no finite
    number), with why: per formula, what it lacks. It depends only on where each input stands, so
    it is worked out once per such state (most profiles of a run share one)."""
    return _unready_in(tuple(_NUMBER if name in names else _UNAVAILABLE if name in unavailable else
                             _NOT_FINITE if name in read else _ABSENT for name in _inputs()))


_NUMBER, _UNAVAILABLE, _NOT_FINITE, _ABSENT = range(4)  # where a derived metric's input stands


@lru_cache(maxsize=1)
def _inputs() -> tuple[str, ...]:
    """Every input of every formula of a derived metric, each once."""
    return tuple(dict.fromkeys(name for spec in catalog.derived_specs() for name in spec.every_input))


@lru_cache(maxsize=256)
def _unready_in(states: tuple[int, ...]) -> FrozenDict:
    state = dict(zip(_inputs(), states, strict=True))
    out = {}
    for spec in catalog.derived_specs():
        if all(state[name] == _ABSENT for name in spec.every_input) or \
                any(all(state[name] == _NUMBER for name in formula.inputs) for formula in spec.formulas):
            continue
        out[spec.name] = "; ".join(f"{formula.text} needs " + ", ".join(
            _lacking(name, state[name]) for name in formula.inputs if state[name] != _NUMBER)
            for formula in spec.formulas)
    return FrozenDict(out) if out else _NONE


def _lacking(name: str, state: int) -> str:
    if state == _UNAVAILABLE:
        return f"{name} (not available)"
    if state == _NOT_FINITE:
        return f"{name} (not a finite number)"
    return "a batch size" if name == "batch_size" else name


def _divisions(numbers: Mapping[str, float], ready: tuple[Derivation, ...],
               derived: Mapping[str, Metric]) -> dict[str, str]:
    """Each derived metric whose formula had its inputs but divided by 0, with the inputs that are 0."""
    out = {}
    for name, _, _, formula, _ in ready:
        if name not in derived:
            spec = catalog.lookup(name)
            inputs = next(f.inputs for f in spec.formulas if f"= {f.text}" == formula)
            zeros = ", ".join(f"{n} is 0" for n in inputs if numbers[n] == 0)
            out[name] = f"{formula.removeprefix('= ')} divides by 0 ({zeros})"
    return out

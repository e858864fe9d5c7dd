"""The normalized profile model every parser produces and every consumer reads.

Values are magnitudes in the catalog's canonical unit; ``Metric.quantity`` builds the pint
Quantity on demand, so loading and rendering never import pint.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Container, Mapping
from dataclasses import dataclass, field, fields
from functools import lru_cache
from typing import Any, NamedTuple, NoReturn, TypeVar

from . import catalog, conventions
from .catalog import MetricSpec
from .units import BYTE, finite_number, format_value, quantity

Value = int | float | str
P = TypeVar("P", bound="Profile")


class FrozenDict(dict[Any, Any]):
    """A dict that refuses changes (a result's mapping stays as computed); it pickles and copies
    as a dict would, unlike ``types.MappingProxyType``."""

    _WHY = "this mapping is part of an immutable result"

    def _refuse(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise TypeError(self._WHY)

    __setitem__ = __delitem__ = clear = pop = popitem = setdefault = update = _refuse
    __ior__ = _refuse

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (dict(self),))

    def __copy__(self) -> FrozenDict:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> FrozenDict:
        return self  # nothing inside can change either


READ_ONLY = ("a loaded profile is read-only: make a changed copy with Profile.replace, e.g. "
             "profile.replace(metrics={**profile.metrics, name: metric})")


class _ProfileDict(FrozenDict):
    _WHY = READ_ONLY


class _ProfileList(list[Any]):
    """A list of a read-only profile: it refuses changes, naming ``Profile.replace``."""

    def _refuse(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise TypeError(READ_ONLY)

    __setitem__ = __delitem__ = __iadd__ = __imul__ = _refuse
    append = extend = insert = pop = remove = clear = sort = reverse = _refuse

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (list(self),))


class Source(NamedTuple):
    """Where a profile came from: file, parser name and (for multi-section files) the section."""

    path: str
    format: str
    section: str | None = None

    def __str__(self) -> str:
        return f"{self.path} [{self.section}]" if self.section else self.path


class Metric(NamedTuple):
    """One value: canonical name, magnitude in the canonical unit, and the text it was read from."""

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


# The fields a profile's value set is computed from: a copy changing another keeps the value set.
_VALUE_FIELDS = frozenset({"params", "metrics", "memory", "training"})


@dataclass
class Profile:
    """One captured profile (one variant) after normalization.

    A parser fills a profile; ``load()`` then makes it read-only (``freeze``): its dicts and lists
    refuse changes, its value set is computed once, and a changed profile is a new one
    (``replace``), whose values are computed afresh."""

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

    def __setattr__(self, name: str, value: Any) -> None:
        if self.frozen:
            raise TypeError(READ_ONLY)
        object.__setattr__(self, name, value)

    @property
    def frozen(self) -> bool:
        return bool(self.__dict__.get("_frozen"))

    def freeze(self: P) -> P:
        """This profile made read-only (in place): every dict and list refuses changes."""
        if not self.frozen:
            for each in fields(self):
                value = getattr(self, each.name)
                if isinstance(value, dict):
                    object.__setattr__(self, each.name, _ProfileDict(value))
                elif isinstance(value, list):
                    object.__setattr__(self, each.name, _ProfileList(value))
            self.__dict__["_frozen"] = True
        return self

    def replace(self: P, **changes: Any) -> P:
        """A read-only copy with ``changes`` (fields by name: ``metrics={...}``, ``params={...}``);
        its value set is computed afresh when a change reaches what it is computed from."""
        made = dataclasses.replace(self, **changes).freeze()
        if "_values" in self.__dict__ and not _VALUE_FIELDS & changes.keys():
            made.__dict__["_values"] = self.__dict__["_values"]
        return made

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
        """Every value of this profile (catalogued, memory, Trainer, derived): computed once for a
        read-only profile, each time for one still being filled."""
        if not self.frozen:
            return value_set(self)
        made: ValueSet | None = self.__dict__.get("_values")
        if made is None:
            made = self.__dict__["_values"] = value_set(self)
        return made

    def recast(self, kind: type[P]) -> P:
        """This profile as a subclass ``kind`` (the API's), its fields and value set shared, not copied."""
        made = kind(**{f.name: getattr(self, f.name) for f in fields(self)})
        made.__dict__.update({key: self.__dict__[key] for key in ("_values", "_frozen") if key in self.__dict__})
        return made

    def memory_metrics(self) -> Mapping[str, Metric]:
        """Memory by type as ``memory.<type>`` metrics (bytes), plus the total, for comparing."""
        return self.values.memory

    def derived_metrics(self) -> Mapping[str, Metric]:
        """The catalog's derived metrics whose inputs this profile has (``raw`` holds the formula)."""
        return self.values.derived

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


def value_set(profile: Profile) -> ValueSet:
    memory = _memory_metrics(profile)
    measured = {**profile.metrics, **memory, **profile.training}
    numbers = finite_numbers(measured)
    unavailable, derived = made_from(numbers, profile.batch_size)
    for name in unavailable:
        del measured[name]
    missed = _not_computed(numbers, unavailable, measured, derived)
    return ValueSet(memory, measured, derived, numbers, {**measured, **derived}, FrozenDict(unavailable), missed)


def made_from(numbers: dict[str, float], batch_size: int | None) -> tuple[dict[str, str], dict[str, Metric]]:
    """What the rules make of a profile's finite measured ``numbers`` (changed in place: each zero
    by convention taken out, the batch size put in): the values not available (name -> why) and
    the catalog's derived metrics, each by the first of its formulas (``MetricSpec.formulas``)
    whose inputs are all there; the raw text is the formula used. The store remakes its ruled
    values with it, once a run."""
    unavailable = conventions.unavailable(numbers)
    for name in unavailable:
        del numbers[name]
    if batch_size:
        numbers["batch_size"] = batch_size
    derived: dict[str, Metric] = {}
    for spec, formula in _ready(frozenset(numbers)):
        try:
            value = formula.compute(numbers)
        except ZeroDivisionError:  # an input of 0: the ratio does not exist (``_not_computed`` says so)
            continue
        derived[spec.name] = Metric(spec.name, value, spec.unit, f"= {formula.text}", spec.group)
    return unavailable, derived


@lru_cache(maxsize=256)
def _ready(names: frozenset[str]) -> tuple[tuple[MetricSpec, catalog.Formula], ...]:
    """Each derived spec a value set of the numbers ``names`` makes, with the first of its formulas
    whose inputs are all among them (profiles of one format share their names: found once)."""
    return tuple((spec, formula) for spec in catalog.derived_specs()
                 if (formula := next((f for f in spec.formulas if all(each in names for each in f.inputs)), None)))


def finite_numbers(measured: Mapping[str, Metric]) -> dict[str, float]:
    """``{name: value}`` of the finite numbers: no sum, fit, roof or rule can use an infinity (1e400,
    a huge integer, a ratio over 5e-324)."""
    return {name: metric.value for name, metric in measured.items()
            if finite_number(metric.value)}


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


def _not_computed(numbers: Mapping[str, float], unavailable: Container[str], read: Container[str],
                  derived: Container[str]) -> FrozenDict:
    """Why each derived metric not in ``derived`` was not made, name -> why: no formula has all its
    inputs although one of them is there (a number, a value not available, a value ``read`` that
    is no finite number), or the formula divided by 0."""
    def lacking(name: str) -> str:
        if name in unavailable:
            return f"{name} (not available)"
        if name in read:
            return f"{name} (not a finite number)"
        return "a batch size" if name == "batch_size" else name

    ready = {spec.name: formula for spec, formula in _ready(frozenset(numbers))}
    unready: dict[str, str] = {}
    divided: dict[str, str] = {}
    for spec in catalog.derived_specs():
        formula = ready.get(spec.name)
        if spec.name in derived:
            continue
        if formula is not None:
            zeros = ", ".join(f"{name} is 0" for name in formula.inputs if numbers[name] == 0)
            divided[spec.name] = f"{formula.text} divides by 0 ({zeros})"
        elif any(each in numbers or each in unavailable or each in read for each in spec.every_input):
            unready[spec.name] = "; ".join(f"{f.text} needs " + ", ".join(
                lacking(each) for each in f.inputs if each not in numbers) for f in spec.formulas)
    return FrozenDict({**unready, **divided})

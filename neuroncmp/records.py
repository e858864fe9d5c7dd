"""Immutable records: ``typing.NamedTuple`` classes made equal only to records of their own type.

Why not ``@dataclass(frozen=True, slots=True)``: measured on Python 3.11 (``scripts/bench_records.py``,
a nine-field record), defining one costs ~1.0 ms, because the dataclass machinery builds every
method with ``exec``, against ~0.17 ms for a NamedTuple, and creating one ~1.7 us against ~0.7 us.
A plain ``@dataclass(slots=True)`` creates faster (~0.4 us) but is mutable and as slow to define
(~0.9 ms). The CLI defines about forty record types on every run (some 35 ms of a cold diff as
dataclasses) and a 500-variant comparison creates 100,000 deltas.

A plain NamedTuple, though, compares equal to a bare tuple of the same items (``Metric("x", 1,
...) == ("x", 1, ...)``): ``record`` removes that trap, so a record equals only a record of the
same type (and nested records compare the same way).

The two result containers that the notebook API subclasses (``comparison.result.Comparison`` and
``analysis.sweep.Sweep``) stay frozen dataclasses: subclasses add fields, which NamedTuples cannot.

The package's modules take ``NamedTuple`` from here (``from .records import NamedTuple``): for mypy it
is ``typing.NamedTuple``; at run time the class form builds the same ``collections.namedtuple`` class
but keeps each annotation as the string it is (``from __future__ import annotations``) where
typing's would compile every one into a ``ForwardRef``: about half of a record's definition, 3.6 ms
CPU of a cold diff's imports (62 records). ``typing.get_type_hints`` reads either. What it does not
do: a generic record (``class R(NamedTuple, Generic[T])``) is refused at import with "can only inherit
from a NamedTuple type" (typing's takes it; no record here is generic), and attributes' ``__set_name__``
is not called (typing's does from Python 3.12).
"""

from __future__ import annotations

import collections
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

T = TypeVar("T", bound=type)

if TYPE_CHECKING:
    from typing import NamedTuple as NamedTuple
else:
    import typing

    _PROHIBITED = frozenset({"__new__", "__init__", "__slots__", "__getnewargs__", "_fields", "_field_defaults",
                             "_make", "_replace", "_asdict", "_source"})
    _SPECIAL = frozenset({"__module__", "__name__", "__annotations__"})

    class _NamedTupleMeta(type):
        """typing.NamedTupleMeta's rules (Python 3.11), without typing's check of each annotation."""

        def __new__(cls, typename: str, bases: tuple[type, ...], ns: dict[str, Any]) -> type:
            if bases != (_NamedTuple,):
                raise TypeError("can only inherit from a NamedTuple type")
            hints = ns.get("__annotations__", {})
            defaults: list[str] = []
            for name in hints:
                if name in ns:
                    defaults.append(name)
                elif defaults:
                    raise TypeError(f"Non-default namedtuple field {name} cannot follow default field"
                                    f"{'s' if len(defaults) > 1 else ''} {', '.join(defaults)}")
            made = collections.namedtuple(typename, list(hints), defaults=[ns[n] for n in defaults],
                                          module=ns["__module__"])
            made.__annotations__ = made.__new__.__annotations__ = dict(hints)
            for key, value in ns.items():
                if key in _PROHIBITED:
                    raise AttributeError("Cannot overwrite NamedTuple attribute " + key)
                if key not in _SPECIAL and key not in made._fields:
                    setattr(made, key, value)
            return made

    _NamedTuple = type.__new__(_NamedTupleMeta, "NamedTuple", (), {})

    def NamedTuple(typename: str, fields: Any = None, /, **kwargs: Any) -> type:
        """The functional form is typing's own; only the class form is the quicker one."""
        return typing.NamedTuple(typename, fields, **kwargs)

    NamedTuple.__mro_entries__ = lambda bases: (_NamedTuple,)


def _eq(self: tuple[Any, ...], other: object) -> bool:
    return type(self) is type(other) and tuple.__eq__(self, other)


def _ne(self: tuple[Any, ...], other: object) -> bool:
    return not _eq(self, other)


def record(cls: T) -> T:
    """Make a NamedTuple class equal only to its own kind (hash unchanged: equal records hash alike)."""
    # setattr: replacing a class's methods after its definition is what this decorator is for
    for name, method in (("__eq__", _eq), ("__ne__", _ne), ("__hash__", tuple.__hash__)):
        setattr(cls, name, method)
    return cls


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
        return self  # its values are tuples of strings: nothing inside can change either


def plain(value: Any) -> Any:
    """Records (and dataclasses, mappings, sequences) as plain dicts and lists, recursively (for JSON)."""
    if hasattr(value, "_asdict"):
        return {key: plain(item) for key, item in value._asdict().items()}
    if hasattr(value, "__dataclass_fields__"):
        return {name: plain(getattr(value, name)) for name in value.__dataclass_fields__}
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(item) for item in value]
    return value

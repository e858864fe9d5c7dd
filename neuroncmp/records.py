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
is not called (typing's does from Python 3.12). The class itself is what ``collections.namedtuple``
builds, made without compiling a ``__new__`` per class (``_namedtuple``; ``tests/test_records.py``
holds every record of the package to the one collections builds).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

T = TypeVar("T", bound=type)

if TYPE_CHECKING:
    from typing import NamedTuple as NamedTuple
else:
    import sys
    import types
    import typing
    from collections import _tuplegetter  # the C descriptor namedtuple's fields are
    from keyword import iskeyword

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
            made = _namedtuple(typename, tuple(hints), tuple(ns[n] for n in defaults), ns["__module__"])
            made.__annotations__ = made.__new__.__annotations__ = dict(hints)
            for key, value in ns.items():
                if key in _PROHIBITED:
                    raise AttributeError("Cannot overwrite NamedTuple attribute " + key)
                if key not in _SPECIAL and key not in made._fields:
                    setattr(made, key, value)
            return made

    _NamedTuple = type.__new__(_NamedTupleMeta, "NamedTuple", (), {})

    # collections.namedtuple compiles each class's __new__ from source (eval), most of the ~60 us a
    # class costs (78 classes: 4.8 ms of a cold diff). The code of __new__ depends only on the number
    # of fields and their names: it is compiled once per number of fields and renamed per class
    # (CodeType.replace), the same bytecode, so creating a record is as fast as before.
    _NEW_CODE: dict[int, types.CodeType] = {}

    def _new_code(count: int) -> types.CodeType:
        if count not in _NEW_CODE:
            args = ", ".join(f"_{index}" for index in range(count)) + ("," if count == 1 else "")
            made = eval(f"lambda _cls, {args}: _tuple_new(_cls, ({args}))", {"_tuple_new": tuple.__new__})
            _NEW_CODE[count] = made.__code__
        return _NEW_CODE[count]

    def _namedtuple(typename: str, field_names: tuple[str, ...], defaults: tuple[Any, ...], module: str) -> type:
        """``collections.namedtuple(typename, field_names, defaults=defaults, module=module)`` (Python
        3.11's, its checks left to the class statement's rules), with ``__new__`` made by ``_new_code``."""
        for name in (typename, *field_names):
            if not name.isidentifier():
                raise ValueError(f"Type names and field names must be valid identifiers: {name!r}")
            if iskeyword(name):
                raise ValueError(f"Type names and field names cannot be a keyword: {name!r}")
        for name in field_names:  # (a class body cannot repeat a field)
            if name.startswith("_"):
                raise ValueError(f"Field names cannot start with an underscore: {name!r}")
        typename, field_names = sys.intern(typename), tuple(map(sys.intern, field_names))
        count = len(field_names)
        arg_list = ", ".join(field_names) + ("," if count == 1 else "")
        repr_fmt = "(" + ", ".join(f"{name}=%r" for name in field_names) + ")"
        tuple_new = tuple.__new__
        namespace = {"_tuple_new": tuple_new, "__builtins__": {}, "__name__": f"namedtuple_{typename}"}
        __new__ = types.FunctionType(_new_code(count).replace(co_varnames=("_cls", *field_names)), namespace,
                                     "__new__", defaults)
        __new__.__doc__ = f"Create new instance of {typename}({arg_list})"

        @classmethod
        def _make(cls: type, iterable: Any) -> Any:
            result = tuple_new(cls, iterable)
            if len(result) != count:
                raise TypeError(f"Expected {count} arguments, got {len(result)}")
            return result

        _make.__func__.__doc__ = f"Make a new {typename} object from a sequence or iterable"

        def _replace(self: Any, /, **kwds: Any) -> Any:
            result = self._make(map(kwds.pop, field_names, self))
            if kwds:
                raise ValueError(f"Got unexpected field names: {list(kwds)!r}")
            return result

        _replace.__doc__ = f"Return a new {typename} object replacing specified fields with new values"

        def __repr__(self: Any) -> str:
            "Return a nicely formatted representation string"
            return self.__class__.__name__ + repr_fmt % self

        def _asdict(self: Any) -> dict[str, Any]:
            "Return a new dict which maps field names to their values."
            return dict(zip(self._fields, self))

        def __getnewargs__(self: Any) -> tuple[Any, ...]:
            "Return self as a plain tuple.  Used by copy and pickle."
            return tuple(self)

        for method in (__new__, _make.__func__, _replace, __repr__, _asdict, __getnewargs__):
            method.__qualname__ = f"{typename}.{method.__name__}"
        class_namespace = {
            "__doc__": f"{typename}({arg_list})", "__slots__": (), "_fields": field_names,
            "_field_defaults": dict(zip(field_names[count - len(defaults):], defaults)), "__new__": __new__,
            "_make": _make, "_replace": _replace, "__repr__": __repr__, "_asdict": _asdict,
            "__getnewargs__": __getnewargs__, "__match_args__": field_names,
        }
        for index, name in enumerate(field_names):
            class_namespace[name] = _tuplegetter(index, sys.intern(f"Alias for field number {index}"))
        result = type(typename, (tuple,), class_namespace)
        result.__module__ = module
        return result

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


_ATOMS = frozenset({str, int, float, bool, type(None)})


def plain(value: Any) -> Any:
    """Records (and dataclasses, mappings, sequences) as plain dicts and lists, recursively (for JSON)."""
    if type(value) in _ATOMS:  # most values: no attribute looked up (500 variants' findings: 16,000)
        return value
    if hasattr(value, "_asdict"):
        return {key: plain(item) for key, item in value._asdict().items()}
    if hasattr(value, "__dataclass_fields__"):
        return {name: plain(getattr(value, name)) for name in value.__dataclass_fields__}
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(item) for item in value]
    return value

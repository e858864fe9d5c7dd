"""``records.NamedTuple``: typing.NamedTuple's class form, built without compiling each annotation."""

from __future__ import annotations

import pickle
import typing

import pytest

from neuroncmp import records
from neuroncmp.model import Metric
from neuroncmp.records import record


def _point(base):
    class Point(base):
        """A point."""

        x: int
        label: tuple[str, ...] | None = None

        def twice(self) -> int:
            return self.x * 2

        @property
        def shown(self) -> str:
            return f"{self.x}"

    return Point


Quick, Typed = _point(records.NamedTuple), _point(typing.NamedTuple)


def test_the_class_form_builds_what_typing_builds():
    quick, typed = Quick(3), Typed(3)
    assert (quick, quick.x, quick.label, quick.twice(), quick.shown) == ((3, None), 3, None, 6, "3")
    assert repr(quick) == repr(typed) == "Point(x=3, label=None)"
    assert Quick._fields == Typed._fields == ("x", "label")
    assert Quick._field_defaults == Typed._field_defaults == {"label": None}
    assert Quick.__doc__ == Typed.__doc__ == "A point."
    assert (Quick.__mro__[1:], Quick.__qualname__, Quick.__module__) == (
        Typed.__mro__[1:], Typed.__qualname__, Typed.__module__)
    assert quick._replace(x=4) == (4, None) and Quick._make([5, ("a",)]).label == ("a",)
    assert Quick(x=1, label=("b",))._asdict() == {"x": 1, "label": ("b",)}
    for method in ("__repr__", "__new__", "_make", "_replace", "_asdict", "__getnewargs__"):
        ours, theirs = getattr(Quick, method), getattr(Typed, method)
        assert (ours.__doc__, ours.__qualname__) == (theirs.__doc__, theirs.__qualname__)


def test_annotations_stay_strings_and_resolve_like_typings():
    assert Quick.__annotations__ == {"x": "int", "label": "tuple[str, ...] | None"}
    assert typing.get_type_hints(Quick) == typing.get_type_hints(Typed) == {
        "x": int, "label": tuple[str, ...] | None}


@pytest.mark.parametrize("body, error", [
    ("x: int = 1\n    y: int", "Non-default namedtuple field y cannot follow default field x"),
    ("_fields = ()", "Cannot overwrite NamedTuple attribute _fields"),
    ("def _replace(self): pass", "Cannot overwrite NamedTuple attribute _replace"),
])
def test_refuses_what_typing_refuses(body, error):
    for base in (records.NamedTuple, typing.NamedTuple):
        with pytest.raises((TypeError, AttributeError), match=error):
            exec(f"class Bad(base):\n    {body}\n", {"base": base, "int": int})


def test_a_package_record_is_built_by_it_and_still_strict_and_picklable():
    assert Metric.__annotations__["value"] == "Value"  # a string: built by records.NamedTuple
    metric = Metric("total_time", 1.5, "s", "1.5", "overall_stats")
    assert pickle.loads(pickle.dumps(metric)) == metric
    assert metric != tuple(metric)  # record: equal only to its own kind
    plain = record(Quick)(1)
    assert plain != (1, None) and plain == Quick(1)


def test_the_functional_form_is_typings():
    Pair = records.NamedTuple("Pair", [("a", int), ("b", str)])
    assert Pair(1, "x")._fields == ("a", "b") and Pair.__annotations__ == {"a": int, "b": str}


def _package_records():
    import importlib
    import pkgutil

    import neuroncmp

    skip = ("neuroncmp.store.engines.spark", "neuroncmp.capture", "neuroncmp.render.charts", "neuroncmp.render.frame",
            "neuroncmp.render.formats.png", "neuroncmp.render.store_plot", "neuroncmp.api")
    found = {}
    for info in pkgutil.walk_packages(neuroncmp.__path__, "neuroncmp."):
        if info.name.startswith(skip):
            continue
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if isinstance(value, type) and issubclass(value, tuple) and hasattr(value, "_fields") \
                    and value.__module__ == module.__name__ and isinstance(value.__dict__.get("_make"), classmethod):
                found[f"{value.__module__}.{value.__qualname__}"] = value
    return found


RECORDS = _package_records()


def test_the_package_has_records_to_check():
    assert len(RECORDS) > 60 and "neuroncmp.comparison.result.Delta" in RECORDS


@pytest.mark.parametrize("name", sorted(RECORDS))
def test_each_record_is_the_class_collections_namedtuple_builds(name):
    # records builds the class itself (its __new__ compiled once per number of fields): every
    # part of it as collections.namedtuple makes it from the same fields and defaults
    import collections
    import inspect

    made = RECORDS[name]
    fields, defaults = made._fields, tuple(made._field_defaults.values())
    stdlib = collections.namedtuple(made.__name__, fields, defaults=defaults, module=made.__module__)
    assert (made._fields, made._field_defaults, made.__match_args__) == (
        stdlib._fields, stdlib._field_defaults, stdlib.__match_args__)
    def parameters(cls):  # (records gives __new__ the annotations too)
        return [(p.name, p.kind, p.default) for p in inspect.signature(cls).parameters.values()]

    assert parameters(made) == parameters(stdlib)
    for attribute in ("__new__", "_make", "_replace", "_asdict", "__getnewargs__"):
        ours, theirs = getattr(made, attribute), getattr(stdlib, attribute)
        assert (ours.__doc__, ours.__qualname__, ours.__name__) == (theirs.__doc__, theirs.__qualname__,
                                                                    theirs.__name__)
    for index, field in enumerate(fields):
        assert made.__dict__[field].__doc__ == stdlib.__dict__[field].__doc__ == f"Alias for field number {index}"
    values = tuple(f"v{index}" for index in range(len(fields)))
    ours, theirs = made(*values), stdlib(*values)
    assert tuple(ours) == tuple(theirs) == values
    assert [getattr(ours, f) for f in fields] == list(values)
    assert ours._asdict() == theirs._asdict() and ours.__getnewargs__() == values
    if made.__repr__.__doc__ == stdlib.__repr__.__doc__:  # not a record's own __repr__
        assert repr(ours) == repr(theirs)
    assert tuple(ours._replace(**{fields[0]: "new"})) == tuple(theirs._replace(**{fields[0]: "new"}))
    assert tuple(made(**dict(zip(fields, values, strict=True)))) == values
    assert tuple(made(*values[:len(fields) - len(defaults)])) == tuple(stdlib(*values[:len(fields) - len(defaults)]))
    for call in (lambda cls: cls(*values, "extra"), lambda cls: cls(**{"nofield": 1}),
                 lambda cls: cls._make(values[:-1]), lambda cls: cls(*values)._replace(nofield=1)):
        with pytest.raises((TypeError, ValueError)) as ours_error:
            call(made)
        with pytest.raises((TypeError, ValueError)) as their_error:
            call(stdlib)
        assert str(ours_error.value) == str(their_error.value)
    assert pickle.loads(pickle.dumps(ours)) == ours


def test_field_names_are_refused_as_collections_namedtuple_refuses_them():
    with pytest.raises(ValueError, match="Field names cannot start with an underscore: '_x'"):
        class Bad(records.NamedTuple):
            _x: int

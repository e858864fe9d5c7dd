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

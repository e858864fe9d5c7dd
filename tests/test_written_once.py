"""The JSON renderer writes a row's baseline once per row, not once per variant (issue 23, speed)."""

from __future__ import annotations

from neuroncmp.catalog import catalog, derived_specs
from neuroncmp.render.formats.json_ import _written_each


def test_a_value_is_written_once_and_kept_apart_from_an_equal_value_of_another_type():
    calls: list[object] = []

    def show(value: object) -> str:
        calls.append(value)
        return f"{type(value).__name__}:{value}"

    assert _written_each([1, 1, 1.0, 1.0], show) == ["int:1", "int:1", "float:1.0", "float:1.0"]
    assert calls == [1, 1.0]  # 1 == 1.0, but they may be written differently: two calls, not one


def test_an_unhashable_value_is_written_each_time():
    calls: list[object] = []
    assert _written_each([[1], [1]], lambda value: calls.append(value) or "x") == ["x", "x"]
    assert calls == [[1], [1]]


def test_the_derived_specs_are_the_catalogs_derived_ones_built_once():
    expected = [spec.name for spec in catalog().values() if spec.derived]
    assert [spec.name for spec in derived_specs()] == expected and expected
    assert derived_specs() is derived_specs()

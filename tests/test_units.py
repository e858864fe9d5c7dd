"""The pure-Python conversion tables agree with pint; bytes have their own dimension."""

from __future__ import annotations

from decimal import Decimal

import pint
import pytest

from neuroncmp import catalog
from neuroncmp import units as u


@pytest.mark.parametrize("token", sorted(u.DISPLAY_UNITS))
def test_display_table_agrees_with_pint(token):
    canonical, factor, pint_expr = u.DISPLAY_UNITS[token]
    ureg = u.registry()
    assert ureg.Quantity(1, pint_expr).to(u.pint_unit(canonical)).m == pytest.approx(float(factor))


@pytest.mark.parametrize("spec", list(catalog.catalog().values()), ids=lambda s: s.name)
def test_every_catalog_unit_is_a_pint_unit(spec):
    if spec.unit != u.TEXT:
        assert u.quantity(1, spec.unit).m == 1
    raw = u.DISPLAY_UNITS.get(spec.raw_unit, (spec.raw_unit,))[0]
    assert raw == spec.unit, "the raw unit must convert to the canonical one"


def test_bytes_are_not_dimensionless():
    with pytest.raises(pint.DimensionalityError):
        u.quantity(5, u.BYTE) + u.quantity(0.5, u.FRACTION)
    assert u.quantity(1, "GiB").to("B").m == 2**30
    assert u.quantity(0.2039, u.FRACTION).to("percent").m == pytest.approx(20.39)


def test_registry_is_built_once():
    assert u.registry() is u.registry()


@pytest.mark.parametrize("text, value, unit", [
    ("53.78 ms", 0.05378, "s"), ("322.1 us", 0.0003221, "s"), ("1.14 s", 1.14, "s"),
    ("114.7 ms", 0.1147, "s"), ("340.347 KiB", round(340.347 * 1024), "B"),
    ("3.979 GiB", round(3.979 * 2**30), "B"), ("85.22 %", 0.8522, "fraction"),
    ("536.363 GFLOPS", 536_363_000_000, "FLOP"), ("1.287 TFLOPS", 1_287_000_000_000, "FLOP"),
    ("69.75 flops/byte", 69.75, "FLOP/B"), ("0 B", 0, "B"), ("488839", 488839, "count"),
])
def test_parse_display(text, value, unit):
    assert u.parse_display(text) == (value, unit)


def test_neuron_top_gigabytes_are_binary():
    assert u.parse_display("4.9GB", binary_si=True) == (round(4.9 * 2**30), "B")
    assert u.parse_display("4.9GB") == (4_900_000_000, "B")


@pytest.mark.parametrize("value, unit, text", [
    (0.1147, "s", "114.7 ms"), (round(8.583 * 2**30), "B", "8.583 GiB"), (0.2039, "fraction", "20.39 %"),
    (3.11e-6, "s", "3.110 us"), (0.000058, "fraction", "0.005800 %"), (75289488, "cycle", "75.29M"),
    (61105, "count", "61105"),
    (2_145_000_000_000, "FLOP", "2.145 TFLOP"), (25300 / 100, "fraction", "25300 %"),
])
def test_format_value(value, unit, text):
    assert u.format_value(value, unit) == text


def test_unparseable_display_is_none():
    assert u.parse_display("fast") is None
    assert u.parse_display("3 parsecs") is None


def _by_decimal(number: str, token: str) -> tuple[int | float, str]:
    """The conversion worked out with Decimal, as ``to_canonical`` did for every number before
    short ones took integer arithmetic: the oracle for that shortcut."""
    from decimal import Decimal

    unit, factor, _ = u.DISPLAY_UNITS[token]
    product = Decimal(number) * Decimal(factor)
    if unit in ("B", "FLOP", "cycle", "count"):
        return int(product.to_integral_value()), unit
    return float(product), unit


@pytest.mark.parametrize("token", sorted(u.DISPLAY_UNITS))
def test_short_numbers_convert_exactly_as_decimal_does(token):
    import random

    chosen = random.Random(token)
    numbers = ["0", "0.0", "4.", ".5", "0.5", "1.5", "2.5", "4.5", "1.25", "0.005", "999999999999999",
               "99999999999999.9", "0.000000000000001"]
    for _ in range(400):
        digits = str(chosen.randint(0, 10 ** chosen.randint(1, 15)))
        cut = chosen.randint(0, len(digits))
        numbers.append(f"{digits[:cut]}.{digits[cut:]}" if chosen.random() < 0.8 else digits)
    for number in numbers:
        got, expected = u.to_canonical(number, token), _by_decimal(number, token)
        assert got == expected and type(got[0]) is type(expected[0]), (number, token)


def test_a_half_rounds_to_even_in_a_whole_unit():
    assert u.to_canonical("0.5", "B") == (0, "B")
    assert u.to_canonical("1.5", "B") == (2, "B")
    assert u.to_canonical("2.5", "B") == (2, "B")
    assert u.to_canonical("0.0005", "KB") == (0, "B")  # 0.5 B
    assert u.to_canonical("0.0015", "kB") == (2, "B")  # 1.5 B


@pytest.mark.parametrize(("value", "usable"), [
    (0, True), (-3, True), (2.5e-324, True), (1.7976931348623157e308, True), (10**308, True),
    (10**400, False),  # a sum of integers beyond a float's range: float() would raise
    (float("nan"), False), (float("inf"), False), (float("-inf"), False),
    (True, False), (False, False),  # a flag, not a measurement
    ("1.5", False), (None, False),
])
def test_a_finite_number_is_an_int_or_float_a_fit_or_a_median_can_use(value, usable):
    assert u.finite_number(value) is usable


@pytest.mark.parametrize(("value", "number"), [
    (0, True), (-3, True), (2.5, True), (10**400, True),  # finite or not: the reader flags the rest
    (float("nan"), True), (float("-inf"), True),
    (True, False), (False, False),  # a flag, not a measurement
    ("1.5", False), (None, False), (Decimal("1.5"), False),
])
def test_a_number_as_read_is_an_int_or_float_not_a_bool(value, number):
    assert u.is_number(value) is number
    assert u.finite_number(value) is (number and value == value and abs(value) <= 1.7976931348623157e308)

"""A point's usable numbers: finite numbers, not bools, up to the edge of a float's range."""

from __future__ import annotations

import math

from neuroncmp.model import Metric, finite_numbers
from neuroncmp.units import finite_number


def test_the_usable_numbers_are_finite_and_not_bools() -> None:
    """NaN, infinities, 10**400, text, None and bools are no number a fit or a rule can use."""
    kept = {"a": 0, "b": -0.0, "c": 2.5, "d": -(2**1023)}
    dropped = {"e": math.nan, "f": math.inf, "g": 10**400, "h": True, "i": "12", "j": None}
    metrics = {name: Metric(name, value, "", str(value), "t") for name, value in {**kept, **dropped}.items()}
    assert finite_numbers(metrics) == kept


def test_the_integer_edge_is_a_floats_range() -> None:
    edge = 2**1024 - 2**970
    assert not finite_number(edge) and finite_number(edge - 1)
    assert not finite_numbers({"m": Metric("m", edge, "", "", "t")})
    assert finite_numbers({"m": Metric("m", edge - 1, "", "", "t")}) == {"m": edge - 1}

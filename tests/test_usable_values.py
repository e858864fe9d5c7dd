"""``series.usable_values`` (a point's numbers read without a call per value) against the rule it
stands for, ``series._usable``, on every kind of value a profile can hold."""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st

from neuroncmp.analysis.series import _usable, usable_values
from neuroncmp.model import Metric

values = st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(),
                   st.sampled_from([2**1024, -(2**1024), 2**1024 - 2**970, 2**1024 - 2**970 - 1, -(2**1023),
                                    10**400, True, False, None, "12", 0, -0.0, math.inf, math.nan]),
                   st.text(max_size=3))


@given(st.lists(values, max_size=30))
def test_usable_values_keeps_what_the_rule_keeps_in_order(drawn: list[object]) -> None:
    metrics = {f"m{i}": Metric(f"m{i}", value, "", str(value), "test") for i, value in enumerate(drawn)}
    expected = {name: metric.value for name, metric in metrics.items() if _usable(metric.value)}
    found = usable_values(metrics)
    assert list(found) == list(expected)
    assert all(found[name] is expected[name] for name in expected)


def test_the_integer_edge_is_a_floats_range() -> None:
    edge = 2**1024 - 2**970
    assert not _usable(edge) and _usable(edge - 1) and not usable_values({"m": Metric("m", edge, "", "", "t")})
    assert usable_values({"m": Metric("m", edge - 1, "", "", "t")}) == {"m": edge - 1}

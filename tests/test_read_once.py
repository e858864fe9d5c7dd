"""Values read once, against the rules they stand for: ``series.usable_values`` and ``usable_numbers``
(a point's numbers, read from what the value set holds) against ``series._usable``, on every kind of
value a profile can hold; ``comparability.stated_texts`` (the stated versions and hardware, each
profile's dicts read once) against ``Profile.info``."""

from __future__ import annotations

import dataclasses
import math

from conftest import ROOT, RUN
from hypothesis import given
from hypothesis import strategies as st

import neuroncmp
from neuroncmp.analysis.series import _usable, usable_numbers, usable_values
from neuroncmp.catalog import derived_specs
from neuroncmp.comparison.comparability import KEYS, stated_texts
from neuroncmp.errors import NeuroncmpError
from neuroncmp.model import Metric, Profile

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


def _profiles() -> list[Profile]:
    """Every profile the repository holds that loads, and the bundled b32 with odd values: a bool, NaN,
    an infinity, a huge integer, a metric named as a derived one and one named ``batch_size``."""
    files = sorted(p for p in [*RUN.iterdir(), *(ROOT / "tests" / "data").rglob("*")]
                   if p.is_file() and p.suffix in (".json", ".jsonl", ".txt", ".log", ".md", ".csv"))
    loaded = []
    for path in files:
        try:
            loaded.extend(neuroncmp.load(path))
        except NeuroncmpError:
            continue
    b32 = next(p for p in loaded if p.label == "b32")
    some = next(iter(b32.metrics.values()))
    derived = derived_specs()[0].name
    for extra in ({"flag": True, "nan": math.nan, "inf": -math.inf, "huge": 10**400},
                  {derived: 1.5}, {"batch_size": 7}, {"batch_size": 7, derived: math.nan}):
        metrics = {**b32.metrics, **{name: some._replace(name=name, value=value) for name, value in extra.items()}}
        loaded.append(dataclasses.replace(b32, metrics=metrics, params=dict(b32.params)))
    return loaded


def test_the_numbers_of_a_value_set_are_its_usable_values() -> None:
    profiles = _profiles()
    assert len(profiles) > 20
    for profile in profiles:
        values = profile.values
        expected = {name: metric.value for name, metric in values.all.items() if _usable(metric.value)}
        found = usable_numbers(values)
        assert list(found) == list(expected), profile
        assert all(found[name] is expected[name] for name in expected)


def test_the_stated_texts_are_what_profile_info_says() -> None:
    """Every loadable profile, and b32 stating its keys in every way ``info`` reads them: in the metadata
    (an empty text, a number, None), as a metric, as a Trainer value, and not at all."""
    profiles = _profiles()
    b32 = next(p for p in profiles if p.label == "b32")
    some = next(iter(b32.metrics.values()))
    metadata = {KEYS[0]: "", KEYS[1]: 2.5, KEYS[2]: None, KEYS[3]: 0}
    as_metric = {KEYS[4]: some._replace(name=KEYS[4], value=3), KEYS[2]: some._replace(name=KEYS[2], value="x")}
    as_trainer = {KEYS[5]: some._replace(name=KEYS[5], value=None), KEYS[6]: some._replace(name=KEYS[6], value=7.0)}
    profiles.append(dataclasses.replace(b32, metadata=metadata, metrics={**b32.metrics, **as_metric},
                                        training=as_trainer, params=dict(b32.params)))
    for profile in profiles:
        assert stated_texts(profile) == [None if (value := profile.info(key)) is None else str(value)
                                         for key in KEYS], profile

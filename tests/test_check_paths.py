"""The checks ``load`` runs on a parsed profile read it by a plan decided once per layout of names;
each gives what its general rule gives.

The oracle is each rule read the general way, one value at a time: ``validate.metric_anomaly`` of
every value, ``anomalies._cycles``, ``_active_shares`` and ``_dynamic_dma`` (through
``Profile.value``), ``model.finite_numbers`` and every derivation tried, and the derived doubts'
spec-by-spec loop written out below; on the real profiles at hand and on made-up ones (hypothesis),
each layout checked several times (the first decides its plan, the next take it).
"""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from conftest import LOADABLE, RUN, loaded
from hypothesis import given, settings
from hypothesis import strategies as st

import neuroncmp
from neuroncmp import catalog, model
from neuroncmp.ingest import anomalies, derived_doubts, validate
from neuroncmp.model import Anomaly, MemoryRow, Metric, Profile, Source
from neuroncmp.units import is_finite


def doubts_spec_by_spec(value_set: model.ValueSet) -> list[Anomaly]:
    """``derived_doubts.doubts`` as defined: each derived spec not made finite, whose inputs the
    numbers hold, gives its doubts (one ``out-of-range`` per input)."""
    found: list[Anomaly] = []
    for spec in catalog.derived_specs():
        made = value_set.derived.get(spec.name)
        if made is not None and not isinstance(made.value, str) and is_finite(made.value):
            continue
        if all(name in value_set.numbers for name in spec.inputs):
            found += derived_doubts._doubts_of(spec, value_set.numbers)
    return derived_doubts._once_per_input(found)


def by_the_rules(profile: Profile) -> list[Anomaly]:
    """What ``anomalies.check`` adds, each rule read the general way."""
    metrics = (*profile.metrics.values(), *profile.training.values())
    found = [anomaly for metric in metrics if (anomaly := validate.metric_anomaly(metric)) is not None]
    found += [anomaly for row in profile.memory if (anomaly := validate._row_anomaly(row)) is not None]
    for rule in (anomalies._memory_total, anomalies._cycles, anomalies._active_shares, anomalies._dynamic_dma):
        found += rule(profile)
    return found + doubts_spec_by_spec(model.value_set(profile))


def same_checks(profile: Profile) -> None:
    """``anomalies.check`` finds what the rules find, and leaves the value set they read."""
    try:
        expected = by_the_rules(profile)
    except (TypeError, ValueError, ArithmeticError) as error:  # a rule that cannot read a value: the check too
        with pytest.raises(type(error)):
            anomalies.check(profile)
        return
    anomalies.check(profile)
    assert profile.anomalies == expected
    general = model.value_set(profile)
    assert profile.values == general
    assert [type(v) for v in profile.values.numbers.values()] == [type(v) for v in general.numbers.values()]
    assert list(profile.values.all) == list(general.all)


@pytest.mark.parametrize("path", LOADABLE, ids=lambda p: p.name)
def test_the_checks_of_a_real_profile_are_the_rules(path):
    for profile in loaded(path):
        kept = [a for a in profile.anomalies if a.code not in anomalies.CODES]  # the parser's own
        for _ in range(2):  # the first decides the plan, the second takes it
            profile.anomalies[:] = kept
            profile.__dict__.pop("_cached_values", None)
            expected = kept + by_the_rules(profile)
            anomalies.check(profile)
            assert profile.anomalies == expected
            assert profile.values == model.value_set(profile)


def test_the_bundled_run_takes_the_plans():
    """The fast ways are the ones taken: a bundled profile's layout has a plan for each check."""
    (profile,) = neuroncmp.load(RUN / "b4.json")
    columns = model.columns(profile)
    assert columns is not None and validate._places(columns.names, columns.units) is not None
    plan = anomalies._plan(columns.names, columns.metrics)
    assert ("tensor_engine_active_time_percent", False) in plan.shares
    assert model._number_layout(columns.names, tuple(map(type, columns.values))) is not None


# A layout: names the checks read, with the catalog's units (sometimes another), each a metric or a
# Trainer value (a name may be both); values drawn afresh for each check of that layout.
SHARES = [f"{engine}_active_time" for engine in ("tensor_engine", "vector_engine", "dma", "cc_op", "foo")]
NAMES = [*SHARES, *(f"{name}_percent" for name in SHARES), *anomalies.DMA_CLASSES, "dynamic_dma_active_time_percent",
         "total_time", "neuroncore_cycle_count", "neuroncore_frequency", "instance_type", "model_flops",
         "hardware_flops", "transpose_flops", "hbm_read_bytes", "hbm_write_bytes", "spill_reload_bytes", "cc_op_time",
         "train_steps_per_second", "nc_idx", "throttle_x_nc0_y_percent", "peak_flops_bandwidth_ratio", "x_count"]
LARGEST = 1.7976931348623157e308
EDGE = 2**1024 - 2**970  # half a step above the largest float: float() overflows from here
ODD = [0, 0.0, -0.0, 1, 1.0, 1.5, -1, 5e-324, 1e-300, LARGEST, int(LARGEST), int(LARGEST) + 1, EDGE - 1, EDGE,
       10**400, -(10**400), math.inf, -math.inf, math.nan, True, False, "text", "trn1.2xlarge", "inf2.xlarge"]


def layouts() -> st.SearchStrategy:
    units = st.sampled_from(["s", "B", "fraction", "count", "text", "Hz", "dimensionless", "FLOP"])
    entry = st.tuples(st.sampled_from(NAMES), st.one_of(st.none(), units), st.booleans())
    return st.lists(entry, min_size=1, max_size=16, unique_by=lambda e: (e[0], e[2]))


def values_near(name: str) -> st.SearchStrategy:
    """Values that keep a relation (shares near their time's share of 0.5 s) or break it, and odd ones."""
    around = {"total_time": st.just(0.5), "neuroncore_cycle_count": st.just(7 * 10**8),
              "neuroncore_frequency": st.sampled_from([1.4e9, 1.2e9])}.get(name)
    plain = st.one_of(st.floats(min_value=0, max_value=2), st.integers(min_value=0, max_value=10**9))
    return st.one_of(*(s for s in (around,) if s is not None), plain, st.sampled_from(ODD),
                     st.floats(allow_nan=True, allow_infinity=True))


@settings(max_examples=400, deadline=None)
@given(layouts(), st.data())
def test_the_checks_of_any_profile_are_the_rules(layout, data):
    for _ in range(3):  # one layout, values drawn afresh: its plans decided once, then taken
        profile = Profile(Source("f.json", "summary-json"), "f")
        for name, unit, trainer in layout:
            value = data.draw(values_near(name))
            unit = catalog.lookup(name).unit if unit is None else unit
            (profile.training if trainer else profile.metrics)[name] = Metric(name, value, unit, "", "g")
        if data.draw(st.booleans()):
            profile.params["batch_size"] = data.draw(st.sampled_from([1, 8, 32]))
        if data.draw(st.integers(0, 3)) == 0:
            profile.metadata["instance_type"] = data.draw(st.sampled_from(["trn1.2xlarge", "trn2.48xlarge", 7]))
        if data.draw(st.integers(0, 3)) == 0:
            profile.memory = [MemoryRow(0, 0, "total", "Total", data.draw(st.integers(-5, 10**6))),
                              MemoryRow(0, 0, "weights", "Weights", 1000)]
        same_checks(profile)


@pytest.mark.parametrize("value", [Fraction(1, 2), 2**1024 - 2**971 + 1, 10**309, complex(1, 1)])
def test_a_value_of_another_kind_is_read_as_the_rules_read_it(value):
    (profile,) = neuroncmp.load(RUN / "b4.json")
    same_checks(profile)  # the plan decided
    profile.metrics["hbm_read_bytes"] = profile.metrics["hbm_read_bytes"]._replace(value=value)
    profile.metrics["peak_flops_bandwidth_ratio"] = profile.metrics["peak_flops_bandwidth_ratio"]._replace(value=value)
    profile.__dict__.pop("_cached_values", None)
    same_checks(profile)


def test_a_metric_under_another_name_is_read_the_general_way():
    (profile,) = neuroncmp.load(RUN / "b4.json")
    profile.metrics["total_time_alias"] = profile.metrics.pop("total_time")
    profile.__dict__.pop("_cached_values", None)  # the value set follows a change of size only
    assert model.columns(profile) is None
    same_checks(profile)


def test_the_numbers_are_picked_by_place_only_when_each_is_finite():
    names = ("a", "b", "c")
    layout = model._number_layout(names, (float, int, str))
    assert layout is not None
    assert layout.finite((0.5, 2, "x")) == {"a": 0.5, "b": 2}
    for odd in (math.nan, math.inf, -math.inf):
        assert layout.finite((odd, 2, "x")) is None
    assert layout.finite((0.5, EDGE, "x")) is None  # beyond a float's range: the general rule decides
    assert layout.finite((LARGEST, 1, "x")) == {"a": LARGEST, "b": 1}
    assert model._number_layout(names, (float, Fraction, str)) is None

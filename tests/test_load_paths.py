"""Loading: each limit read once per load, a set's manifest entries checked once, values out of
their kind's range flagged, and the value set's numbers the finite ones."""

from __future__ import annotations

import json
import math

import pytest
from conftest import RUN
from hypothesis import given, settings
from hypothesis import strategies as st

import neuroncmp
import neuroncmp.errors
from neuroncmp import model
from neuroncmp.errors import LimitError
from neuroncmp.ingest import validate
from neuroncmp.ingest.loader import load_set
from neuroncmp.model import Metric


def test_a_limit_is_read_from_the_environment_at_each_load(monkeypatch, tmp_path):
    path = tmp_path / "b8.json"
    path.write_text(json.dumps({"n_1": {"total_time": 0.1, "model_flops": 10**12}}))
    monkeypatch.setenv("NEURONCMP_MAX_VALUES", "2")
    with pytest.raises(LimitError):
        neuroncmp.load(path)  # 3 members: one over the limit
    monkeypatch.setenv("NEURONCMP_MAX_VALUES", "3")
    assert neuroncmp.load(path)[0].value("total_time") == 0.1  # the environment read again


@pytest.mark.parametrize("name, value, code", [
    ("nc_idx", 2.5, "out-of-range"), ("nc_idx", 3.0, None), ("total_time", -1.0, "negative-value"),
    ("mfu_estimated_percent", 1.5, "out-of-range"), ("hbm_read_bytes", 10**400, "non-finite-value"),
    ("total_time", math.nan, "nan-value"), ("collectives_version", 7, None)])
def test_one_value_out_among_a_bundled_profiles_is_found(name, value, code):
    """One value of b32.json moved out of its kind's range (an index not whole, a negative time, a
    fraction above 1, an infinity, NaN) is flagged under its own name; the file's other findings stay."""
    (profile,) = neuroncmp.load(RUN / "b32.json")
    before = [(a.code, a.metric) for a in validate.findings(profile)]
    changed = profile.replace(metrics={**profile.metrics, name: profile.metrics[name]._replace(value=value)})
    after = [(a.code, a.metric) for a in validate.findings(changed)]
    assert [found for found in after if found[1] != name] == [found for found in before if found[1] != name]
    assert [found[0] for found in after if found[1] == name] == ([code] if code else [])


def finite_by_definition(value) -> bool:
    try:  # a bool is a flag, not a measurement
        return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    except OverflowError:
        return False


EDGE = 2**1024 - 2**970  # half a step above the largest float: float() overflows from here
ANY_VALUE = st.one_of(st.floats(allow_nan=True), st.integers(), st.booleans(), st.text(max_size=2),
                      st.integers(min_value=EDGE - 3, max_value=EDGE + 3),
                      st.integers(min_value=-EDGE - 3, max_value=-EDGE + 3),
                      st.sampled_from([10**308, 2**1023, 1e308, -0.0]))


@settings(max_examples=300, deadline=None)
@given(st.lists(ANY_VALUE, max_size=12))
def test_the_value_sets_numbers_are_the_finite_ones(values):
    measured = {f"m{i}": Metric(f"m{i}", value, "count", "", "g") for i, value in enumerate(values)}
    expected = {name: metric.value for name, metric in measured.items() if finite_by_definition(metric.value)}
    found = model.finite_numbers(measured)
    assert found == expected and list(found) == list(expected)
    assert [type(v) for v in found.values()] == [type(v) for v in expected.values()]


def test_a_set_reads_each_file_with_its_sidecars_as_it_is_read_alone():
    files = [RUN / f"{stem}.json" for stem in ("baseline", "b2", "b16", "b32", "b64")]
    profiles, _ = load_set(files)
    assert [p.label for p in profiles] == ["baseline", "b2", "b16", "b32", "b64"]
    (alone,) = neuroncmp.load(RUN / "b32.json")
    assert alone.metrics == profiles[3].metrics and alone.memory == profiles[3].memory
    # b32's sidecars: the memory table (b32.memory.md) and the Trainer's results (b32.all_results.json)
    assert len(profiles[3].memory) == 23 and profiles[3].values.all["train_samples_per_second"].value == 137.45

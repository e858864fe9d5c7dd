"""The quick paths of loading give what the general rules give.

``values.add_raw_block`` makes a block whose keys and value types it has seen in one step (a
layout decided once per process); the oracle here is its contract written out key by key:
``add_metric(profile, raw_metric(...))`` for each pair, a nested value or a null skipped.
``limits.held`` reads each limit once per load, and a later load reads the environment again.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from conftest import LOADABLE, RUN, THIRD_PARTY, loaded
from hypothesis import given, settings
from hypothesis import strategies as st

import neuroncmp
import neuroncmp.errors
from neuroncmp import model
from neuroncmp.errors import LimitError, ParseError
from neuroncmp.ingest import limits, manifest, validate
from neuroncmp.ingest import values as V
from neuroncmp.ingest.decode import documents
from neuroncmp.ingest.loader import load_set
from neuroncmp.model import Metric, Profile, Skipped, Source


def by_the_contract(block: dict) -> Profile:
    """What ``add_raw_block`` is documented to do, one key at a time."""
    profile = Profile(Source("f.json", "summary-json"), "f")
    for key, value in block.items():
        if isinstance(value, (dict, list)):
            profile.skipped.append(Skipped(f"w, key '{key}'", repr(value)[:60], "nested value, not a metric"))
        elif value is None:
            profile.skipped.append(Skipped(f"w, key '{key}'", "null", "no value"))
        else:
            V.add_metric(profile, V.raw_metric("f.json", "w", key, value), "w")
    return profile


def added(block: dict) -> Profile:
    profile = Profile(Source("f.json", "summary-json"), "f")
    V.add_raw_block(profile, "f.json", "w", block)
    return profile


def same(block: dict) -> None:
    try:
        expected = by_the_contract(block)
    except ParseError as error:
        with pytest.raises(ParseError, match=str(error).replace("(", r"\(").replace(")", r"\)")[:40]):
            added(block)
        return
    for _ in range(2):  # the first decides the layout, the second takes it
        found = added(block)
        assert list(found.metrics.items()) == list(expected.metrics.items())
        assert [type(m.value) for m in found.metrics.values()] == [type(m.value) for m in expected.metrics.values()]
        assert (found.skipped, found.anomalies) == (expected.skipped, expected.anomalies)


def blocks_of(path: Path) -> list[dict]:
    """The flat objects of a JSON file (each object whose values hold no object)."""
    try:
        found = [document for _, document in documents(path.read_text(encoding="utf-8"), str(path))]
    except (ParseError, UnicodeDecodeError, LimitError):
        return []
    out: list[dict] = []
    while found:
        item = found.pop()
        if isinstance(item, dict):
            if item and not any(isinstance(v, dict) for v in item.values()):
                out.append(item)
            found += item.values()
        elif isinstance(item, list):
            found += item
    return out


REAL = sorted([*RUN.glob("*.json"), *THIRD_PARTY.rglob("*.json")])


@pytest.mark.parametrize("path", REAL, ids=lambda p: p.name)
def test_a_real_block_is_added_as_its_keys_one_by_one_would_be(path):
    for block in blocks_of(path):
        same(block)


def test_the_bundled_blocks_take_the_quick_path():
    block = next(iter(json.loads((RUN / "b32.json").read_text()).values()))
    keys = tuple(block)
    assert V._layout(keys, tuple(map(type, block.values()))) is not None
    same(block)


@pytest.mark.parametrize("block", [
    {"total_time": 0.5, "throttle_active_nc0_time_ns": 1_500_000_000, "collectives_version": "2.28"},  # converted
    {"total_time": 0.5, "total_time_": 1, "x_count": 3},  # uncatalogued
    {"explorer_version": "2.1", "profiler_version": "2.2"},  # an alias and its name: a duplicate
    {"total_time": 0.5, "nested": {"a": 1}, "nothing": None, "flag": True},  # skipped, a bool
    {" ": 1.0, "": "x", "total_time": 0.25},  # blank names
    {"total_time": "slow"},  # text for a number: refused
    {"total_time": float("nan"), "hbm_read_bytes": 10**400, "dma_active_time": -1.0, "nc_idx": 2.5},
])
def test_a_made_up_block_is_added_as_its_keys_one_by_one_would_be(block):
    same(block)


KEYS = st.sampled_from(["total_time", "hbm_read_bytes", "nc_idx", "collectives_version", "some_time_ns",
                        "tensor_engine_active_time_percent", "explorer_version", "profiler_version", "x_count",
                        "", " ", "throttle_active_nc0_time_ns", "instance_type", "weird"])
VALUES = st.one_of(st.floats(allow_nan=True), st.integers(min_value=-10**20, max_value=10**20), st.text(max_size=5),
                   st.booleans(), st.none(), st.just([1]), st.just(math.inf))


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(KEYS, VALUES, min_size=1, max_size=8))
def test_any_block_is_added_as_its_keys_one_by_one_would_be(block):
    same(block)


def test_a_limit_is_read_once_in_a_load_and_again_in_the_next(monkeypatch, tmp_path):
    path = tmp_path / "b8.json"
    path.write_text(json.dumps({"n_1": {"total_time": 0.1, "model_flops": 10**12}}))
    monkeypatch.setenv("NEURONCMP_MAX_VALUES", "2")
    with pytest.raises(LimitError):
        neuroncmp.load(path)  # 3 members: one over the limit
    monkeypatch.setenv("NEURONCMP_MAX_VALUES", "3")
    assert neuroncmp.load(path)[0].value("total_time") == 0.1  # the environment read again
    with limits.held():
        assert limits.setting("NEURONCMP_MAX_VALUES") == 3
        monkeypatch.setenv("NEURONCMP_MAX_VALUES", "7")
        assert limits.setting("NEURONCMP_MAX_VALUES") == 3  # held for the block
    assert limits.setting("NEURONCMP_MAX_VALUES") == 7


def each_on_its_own(profile: Profile) -> list:
    """``validate.findings`` as defined: ``metric_anomaly`` of every value, then the memory rows."""
    metrics = (*profile.metrics.values(), *profile.training.values())
    found = [anomaly for metric in metrics if (anomaly := validate.metric_anomaly(metric)) is not None]
    return found + [a for row in profile.memory if (a := validate._row_anomaly(row)) is not None]


@pytest.mark.parametrize("path", LOADABLE, ids=lambda p: p.name)
def test_the_range_findings_of_a_real_profile_are_each_values_own(path):
    for profile in loaded(path):
        for _ in range(2):  # the first decides the layout, the second takes it
            assert validate.findings(profile) == each_on_its_own(profile)


NAMES = st.sampled_from(["total_time", "hbm_read_bytes", "nc_idx", "collectives_version", "mfu_estimated_percent",
                         "throttle_x_nc0_y_percent", "x_count", "weird", "model_flops"])
UNITS = st.sampled_from(["s", "B", "fraction", "count", "text", "dimensionless", "FLOP"])
NUMBERS = st.one_of(st.floats(allow_nan=True), st.integers(min_value=-10**400, max_value=10**400), st.booleans(),
                    st.text(max_size=3), st.sampled_from([0, 1, 1.5, 2.0, -0.0, 1e308, 10**309]))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(NAMES, UNITS), min_size=1, max_size=9, unique_by=lambda pair: pair[0]),
       st.data())
def test_the_range_findings_of_any_profile_are_each_values_own(layout, data):
    for _ in range(3):  # one layout, values drawn afresh: decided once, then taken
        profile = Profile(Source("f.json", "summary-json"), "f")
        for name, unit in layout:
            value = data.draw(NUMBERS)
            profile.metrics[name] = Metric(name, value, unit, str(value)[:20], "g")
        assert validate.findings(profile) == each_on_its_own(profile)


@pytest.mark.parametrize("name, value", [("nc_idx", 2.5), ("nc_idx", 3.0), ("total_time", -1.0),
                                         ("mfu_estimated_percent", 1.5), ("hbm_read_bytes", 10**400),
                                         ("total_time", math.nan), ("collectives_version", 7)])
def test_one_value_out_among_a_bundled_profiles_is_found(name, value):
    (profile,) = neuroncmp.load(RUN / "b32.json")
    metric = profile.metrics[name]
    profile.metrics[name] = metric._replace(value=value)
    for _ in range(2):
        assert validate.findings(profile) == each_on_its_own(profile)
    assert (validate.metric_anomaly(profile.metrics[name]) is None) == (value in (3.0, 7))


def finite_by_definition(value) -> bool:
    try:
        return isinstance(value, (int, float)) and math.isfinite(value)
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


def test_a_sets_manifest_entries_are_checked_once_each(monkeypatch):
    resolved: list[str] = []
    original = manifest.inside

    def counting(directory, file, where, name, *args, **kwargs):
        resolved.append(name)
        return original(directory, file, where, name, *args, **kwargs)

    monkeypatch.setattr(manifest, "inside", counting)
    files = [RUN / f"{stem}.json" for stem in ("baseline", "b2", "b16", "b32", "b64")]
    profiles, _ = load_set(files)
    assert [p.label for p in profiles] == ["baseline", "b2", "b16", "b32", "b64"]
    assert sorted(resolved) == sorted(set(resolved))  # each name resolved once
    assert {"b32.json", "b32.memory.md", "b32.all_results.json"} <= set(resolved)
    assert neuroncmp.load(RUN / "b32.json")[0].metrics == profiles[3].metrics  # the same as read alone


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["a", "b.json", ".", "..", "", ".x", "x.", "x..y", "é.json", " ", "\\", "c.tar.gz"]),
                max_size=4).map("/".join), st.sampled_from(["", "/", "./", "//"]))
def test_a_file_stem_is_pathlibs(path, prefix):
    from neuroncmp.ingest.formats.summary_json import _stem

    assert _stem(prefix + path) == Path(prefix + path).stem


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["a", "b.json", ".", "..", "", ".x", "é"]), max_size=4).map("/".join),
       st.sampled_from(["", "/", "//", "./", "../"]))
def test_a_files_folder_key_is_its_parents_normalised_path(path, prefix):
    import os

    from neuroncmp.ingest.inputs import _folder

    given_path = Path(prefix + path)
    assert _folder(given_path) == os.path.normpath(os.path.abspath(given_path.parent))

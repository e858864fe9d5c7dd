"""Each value computed once: a profile's value set is built once and every consumer reads it; one
definition of an inferred batch size."""

from __future__ import annotations

import json
import shutil

import pytest
from conftest import RUN

import neuroncmp
from neuroncmp.comparison import compare


def test_the_value_set_holds_what_the_profile_states():
    (profile,) = neuroncmp.load(RUN / "b32.json")
    values = profile.values
    assert profile.values is values  # built once, then read
    raw = next(iter(json.loads((RUN / "b32.json").read_text()).values()))
    assert values.all["total_time"].value == pytest.approx(raw["total_time"])
    # device throughput = batch / total_time, from the file's own numbers
    assert values.derived["device_throughput"].value == pytest.approx(32 / raw["total_time"])
    assert values.numbers["batch_size"] == 32
    assert set(values.measured) | set(values.derived) == set(values.all)
    assert not set(values.derived) & set(profile.metrics)


def test_a_value_set_follows_a_change_to_its_profile():
    (profile,) = neuroncmp.load(RUN / "b32.json")
    before = profile.values.derived["device_throughput"].value
    profile.params["batch_size"] = 64  # a hand-made change (the API's set-wide inference does this)
    assert profile.values.derived["device_throughput"].value == pytest.approx(2 * before)


def test_a_batch_size_from_the_trainer_is_inferred_for_the_profile_and_its_side(tmp_path):
    # The Trainer's samples/s over steps/s is an estimate (137.45 / 4.295 = 32.002), never stated:
    # model.Profile said "not inferred" while the comparison's Side said "inferred" (and showed "*").
    path = tmp_path / "all_results.json"
    shutil.copy(RUN / "b32.all_results.json", path)
    (trainer,) = neuroncmp.load(path)
    stated = neuroncmp.load(RUN / "b16.json")[0]  # "b16": the section title states it
    assert trainer.batch_size == round(137.45 / 4.295) and trainer.params["batch_size_source"] == "trainer"
    assert trainer.batch_size_inferred and not stated.batch_size_inferred
    comparison = compare(stated, trainer)
    assert [side.batch_size_inferred for side in comparison.sides] == [False, True]


def test_a_side_is_inferred_only_when_every_capture_is(tmp_path):
    inferred = neuroncmp.load(RUN / "b32.json")[0]
    inferred.params.update(batch_size_source="inferred")
    stated = neuroncmp.load(RUN / "b32.json")[0]  # same label: a second capture of the side
    baseline = neuroncmp.load(RUN / "baseline.json")[0]
    assert compare(baseline, [inferred, stated]).variants[0].batch_size_inferred is False
    assert compare(baseline, [inferred]).variants[0].batch_size_inferred is True

"""Each value computed once: a profile's value set is built once and every consumer reads it; one
definition of an inferred batch size."""

from __future__ import annotations

import json
import shutil

import pytest
from conftest import RUN

import neuroncmp
from neuroncmp.comparison.differ import compare


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


def test_a_loaded_profile_is_read_only_and_a_changed_copy_has_fresh_values():
    """Replacing a metric in place left the comparison on the old value (a cache keyed on the dicts'
    id and length): a loaded profile now refuses the change and names ``replace``, whose copy is
    compared on its own values. baseline.json: batch 8, total_time 0.05378 s; 0.1 s in the copy."""
    (b32,) = neuroncmp.load(RUN / "b32.json")
    (profile,) = neuroncmp.load(RUN / "baseline.json")
    metric = profile.metrics["total_time"]
    with pytest.raises(TypeError, match=r"profile\.replace"):
        profile.metrics["total_time"] = metric._replace(value=0.1)
    with pytest.raises(TypeError, match="replace"):
        profile.memory.append(profile.memory[0])
    with pytest.raises(TypeError, match="replace"):
        profile.label = "other"
    changed = profile.replace(metrics={**profile.metrics, "total_time": metric._replace(value=0.1)})
    assert profile.value("total_time") == 0.05378 and changed.value("total_time") == 0.1
    assert compare(b32, changed).cell("total_time", "baseline").step.variant == 0.1
    assert compare(b32, profile).cell("total_time", "baseline").step.variant == 0.05378
    assert changed.values.derived["device_throughput"].value == pytest.approx(8 / 0.1)
    assert profile.values.derived["device_throughput"].value == pytest.approx(8 / 0.05378)
    doubled = profile.replace(params={**profile.params, "batch_size": 16})
    assert doubled.values.derived["device_throughput"].value == pytest.approx(16 / 0.05378)


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
    loaded = neuroncmp.load(RUN / "b32.json")[0]
    inferred = loaded.replace(params={**loaded.params, "batch_size_source": "inferred"})
    stated = neuroncmp.load(RUN / "b32.json")[0]  # same label: a second capture of the side
    baseline = neuroncmp.load(RUN / "baseline.json")[0]
    assert compare(baseline, [inferred, stated]).variants[0].batch_size_inferred is False
    assert compare(baseline, [inferred]).variants[0].batch_size_inferred is True

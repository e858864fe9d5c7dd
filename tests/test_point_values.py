"""A sweep point's values (``analysis.series.medians``): the finite numbers of its one capture as read,
or the median of each value over its captures; infinities, NaN, bools, texts and integers beyond a
float's range are left out."""

from __future__ import annotations

import dataclasses
import math

from conftest import RUN

import neuroncmp
from neuroncmp.analysis.series import medians
from neuroncmp.comparison.result import Side

ODD = {"total_time": math.inf, "hbm_read_bytes": math.nan, "model_flops": 10**400, "nc_idx": True,
       "instance_type": "trn1.2xlarge", "dma_active_time": -0.0}


def _b32():
    return neuroncmp.load(RUN / "b32.json")[0]


def _with(profile, changes, label=None):
    metrics = {name: metric._replace(value=changes.get(name, metric.value)) for name, metric in profile.metrics.items()}
    return dataclasses.replace(profile, label=label or profile.label, metrics=metrics, params=dict(profile.params))


def test_one_capture_gives_its_finite_numbers_as_read():
    profile = _with(_b32(), ODD)
    values = medians([Side.of("b32", (profile,))])
    for name in ("total_time", "hbm_read_bytes", "model_flops", "nc_idx", "instance_type"):
        assert name not in values
    assert values["dma_active_time"] == 0.0
    assert values["hbm_write_bytes"] == profile.metrics["hbm_write_bytes"].value
    assert values["memory.generic"] == sum(row.bytes for row in profile.memory if row.usage_type == "generic")


def test_two_captures_give_the_mean_of_each_value_and_skip_an_odd_one():
    first = _b32()
    second = _with(first, {"hbm_write_bytes": first.metrics["hbm_write_bytes"].value + 1000, "total_time": math.inf})
    values = medians([Side.of("b32", (first, second))])
    assert values["hbm_write_bytes"] == first.metrics["hbm_write_bytes"].value + 500
    assert values["total_time"] == first.metrics["total_time"].value  # the infinite capture left out
    assert list(values) == list(medians([Side.of("b32", (first,))]))  # the same names, in the same order

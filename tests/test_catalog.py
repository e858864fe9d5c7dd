from __future__ import annotations

import pytest

from neuroncmp import catalog


def test_aliases_resolve_across_tool_versions():
    assert catalog.lookup("neuroncore_idx").name == "nc_idx"
    assert catalog.lookup("neuron_device_idx").name == "nd_idx"
    assert catalog.lookup("explorer_version").name == "profiler_version"


@pytest.mark.parametrize("name, unit, direction", [
    ("throttle_active_nc3_time_ns", "s", "lower"),
    ("throttle_activity_1_avg_util_limit_nc12_percent", "fraction", "higher"),
    ("throttle_periodic_active_time_nc1_percent", "fraction", "lower"),
    ("throttle_activity_0_max_achievable_util_nc0_percent", "fraction", "higher"),
])
def test_per_core_throttle_keys_by_pattern(name, unit, direction):
    spec = catalog.lookup(name)
    assert (spec.group, spec.unit, spec.direction, spec.catalogued) == ("throttling", unit, direction, True)
    if name.endswith("_ns"):
        assert spec.raw_unit == "ns"


@pytest.mark.parametrize("name, unit", [
    ("new_engine_time", "s"), ("foo_bytes", "B"), ("bar_percent", "fraction"), ("x_count", "count"),
    ("y_time_ns", "s"), ("z_cycles", "cycle"), ("mystery", "dimensionless"),
])
def test_unknown_metrics_get_a_guessed_unit_and_are_marked(name, unit):
    spec = catalog.lookup(name)
    assert (spec.unit, spec.catalogued, spec.direction, spec.group) == (unit, False, "neutral", "uncatalogued")


def test_key_directions():
    assert catalog.lookup("mfu_estimated_percent").direction == "higher"
    assert catalog.lookup("total_time").direction == "lower"
    assert catalog.lookup("spill_reload_bytes").extensive is True
    assert catalog.lookup("mfu_estimated_percent").extensive is False
    assert catalog.lookup("memory.profiler_buffers").direction == "neutral"
    assert catalog.lookup("memory.shared_scratchpad").unit == "B"


def test_every_spec_is_well_formed():
    for spec in catalog.catalog().values():
        assert spec.direction in ("higher", "lower", "neutral")
        assert spec.group in catalog.GROUPS
        assert spec.meaning

"""The bundled profiles: every file parses, and the converted files equal the export they came from."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import RUN, SEED, VARIANT_FILES

import neuroncmp
from neuroncmp.render.convert_folder import convert
from neuroncmp.units import NUMERIC_UNITS, TEXT

ALL_FILES = sorted(p for p in RUN.iterdir() if p.is_file() and p.name != "README.md")


@pytest.mark.parametrize("path", ALL_FILES, ids=lambda p: p.name)
def test_every_bundled_file_parses(path: Path):
    profiles = neuroncmp.load(path)
    assert profiles
    for profile in profiles:
        assert profile.metrics or profile.memory or profile.training
        for metric in (*profile.metrics.values(), *profile.training.values()):
            spec = neuroncmp.lookup(metric.name)
            assert metric.unit in (*NUMERIC_UNITS, TEXT), metric
            assert metric.unit == spec.unit or not spec.catalogued, metric  # the catalog's unit


def _essence(profile):
    return {
        "label": profile.label, "params": profile.params, "metadata": profile.metadata,
        "section": profile.source.section, "notes": profile.notes,
        "metrics": {k: (m.value, m.unit, m.group) for k, m in profile.metrics.items()},
        "memory": [(r.device, r.core, r.usage_type, r.label, r.bytes) for r in profile.memory],
        "training": {k: (m.value, m.unit) for k, m in profile.training.items()},
        "anomalies": profile.anomalies,
    }


@pytest.mark.parametrize("name", VARIANT_FILES)
def test_converted_file_equals_the_export_section(seed_profiles, name):
    (converted,) = neuroncmp.load(RUN / name)
    original = next(p for p in seed_profiles if f"{p.label}.json" == name)
    assert _essence(converted) == _essence(original)


def test_converted_files_use_the_real_summary_json_schema():
    data = json.loads((RUN / "b32.json").read_text())
    (key,) = data
    assert key.startswith("n_")
    block = data[key]
    assert block["mfu_estimated_percent"] == 0.2039      # fractions, not percents
    assert block["total_time"] == 0.1147                 # seconds
    assert block["throttle_active_nc0_time_ns"] == 16240000  # nanoseconds
    assert block["spill_reload_bytes"] == round(8.583 * 2**30)  # whole bytes
    assert "host_used_memory_total" not in block          # neuron-top goes to the memory sidecar


def test_convert_reproduces_the_bundled_folder(tmp_path):
    written = convert(neuroncmp.load(SEED), SEED, tmp_path)
    assert {p.name for p in written} == {p.name for p in ALL_FILES}
    for path in written:
        assert path.read_bytes() == (RUN / path.name).read_bytes(), path.name

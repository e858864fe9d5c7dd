"""Neuron Explorer schema versions (issue 20, item 5), on folders built from AWS's documented schema
by scripts/make_explorer_fixtures.py (no public Parquet capture exists; tests/fixtures/README.md).

Expected values are the bundled b32 profile's own (profiles/trn1-2xlarge-bs-sweep/b32.json), which
the generator copies into the Parquet tables: what goes in must come out, in the same base units.
"""

from __future__ import annotations

import importlib.util
import json

import pytest
from conftest import ROOT, RUN

import neuroncmp
from neuroncmp.ingest.formats import explorer_parquet, explorer_schema

pytest.importorskip("pyarrow")
_SPEC = importlib.util.spec_from_file_location("make_explorer_fixtures", ROOT / "scripts" / "make_explorer_fixtures.py")
assert _SPEC is not None and _SPEC.loader is not None
generator = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(generator)

B32 = next(iter(json.loads((RUN / "b32.json").read_text()).values()))


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    return generator.write(tmp_path_factory.mktemp("explorer"))


def test_schema_7_reads_every_documented_field_as_the_summary_json_has_it(folders):
    (profile,) = neuroncmp.load(folders["7.4.0"])
    documented = [k for k in B32 if k in explorer_schema.SCHEMA_7_4_0["Summary"]]
    assert len(documented) > 60
    for key in documented:
        assert profile.value(key) == B32[key], key
    assert profile.info("profile_schema_version") == "7.4.0" and profile.info("profiler_version") == "2.31.24.0"
    assert not profile.skipped and not profile.anomalies


def test_schema_7_metadata_clock_memory_and_warning(folders):
    (profile,) = neuroncmp.load(folders["7.4.0"])
    assert profile.value("neuroncore_frequency") == 1.4e9  # Metadata's neuroncore_clock_freq is in GHz
    assert profile.metadata["lnc_config"] == 1             # num_physical_cores per logical core
    (table,) = neuroncmp.load(RUN / "b32.memory.md")
    assert profile.memory_by_type() == table.memory_by_type()
    assert profile.notes == ["Neuron Explorer warning (Missing Data): " + generator.WARNING]


def test_a_summary_in_parts_is_read_as_one_table(folders):
    profiles = neuroncmp.load(folders["split"])
    assert [p.value("nc_idx") for p in profiles] == [0, 1]
    assert [p.value("total_time") for p in profiles] == [B32["total_time"]] * 2


def test_parts_are_ordered_by_number(tmp_path):
    for number in (10, 2, 0):
        (tmp_path / f"Summary_{number}.parquet").write_bytes(b"")
    assert [p.name for p in explorer_parquet.table_files(tmp_path, "Summary")] == [
        "Summary_0.parquet", "Summary_2.parquet", "Summary_10.parquet"]


def test_an_unmapped_major_reads_only_what_schema_fields_confirms(folders):
    (profile,) = neuroncmp.load(folders["12.0.1"])
    # total_time is declared in milliseconds there: never read as seconds
    assert profile.value("total_time") is None
    assert any("'total_time'" in s.where and "12.0.1" in s.reason for s in profile.skipped)
    # a field 7.4.0 does not have, declared in seconds, is read in that unit
    assert profile.metrics["kernel_launch_time"].unit == "s" and profile.value("kernel_launch_time") == 0.0021
    assert profile.value("mfu_estimated_percent") == B32["mfu_estimated_percent"]
    warned = [n for n in profile.notes if "12.0.1" in n]
    assert len(warned) == 1 and "SchemaFields" in warned[0]


def test_without_schema_fields_an_unmapped_major_reads_the_documented_names(folders, tmp_path):
    import shutil

    folder = shutil.copytree(folders["12.0.1"], tmp_path / "b32@12.0.1")
    (folder / "SchemaFields.parquet").unlink()
    (profile,) = neuroncmp.load(folder)
    assert profile.value("kernel_launch_time") is None  # not a 7.4.0 name: cannot be confirmed
    assert profile.value("hbm_read_bytes") == B32["hbm_read_bytes"]
    assert any("no SchemaFields table" in n for n in profile.notes)


@pytest.mark.parametrize("version, mapped", [("7.4.0", True), ("7.9.1", True), ("12.0.1", False),
                                             ("8.0.0", False), (None, True)])
def test_which_versions_are_mapped(version, mapped):
    assert explorer_schema.Schema(version, {}).mapped is mapped


def test_a_percent_declared_up_to_100_becomes_a_fraction():
    schema = explorer_schema.Schema("12.0.1", {("Summary", "mfu_estimated_percent"): {
        "field_unit": "percent", "field_maximum": 100}})
    assert schema.field("Summary", "mfu_estimated_percent").scale == 0.01


def test_pcore_idx_is_kept_per_physical_core(tmp_path):
    """Trn2/Trn3 at LNC=2: rows per physical core of a logical one (Explorer's pcore_idx)."""
    summary = generator.b32_summary()
    rows = [dict(summary, neuroncore_idx=0, pcore_idx=p) for p in (0, 1)]
    folder = generator.profile_folder(tmp_path / "lnc2", "7.4.0", rows, generator.schema_fields())
    profiles = neuroncmp.load(folder)
    assert [p.metadata["pcore_idx"] for p in profiles] == [0, 1]
    assert [p.label.rsplit("-", 1)[-1] for p in profiles] == ["pc0", "pc1"]
    assert all("pcore_idx" not in p.metrics for p in profiles)


def test_a_mapped_version_falls_back_to_the_documented_unit():
    """A 7.x SchemaFields unit neuroncmp does not know does not drop a documented field."""
    schema = explorer_schema.Schema("7.4.0", {("Summary", "total_time"): {"field_unit": "sec"}})
    assert schema.field("Summary", "total_time") == explorer_schema.Field("seconds")
    assert explorer_schema.Schema("12.0.1", {("Summary", "total_time"): {"field_unit": "sec"}}).field(
        "Summary", "total_time") is None

"""Neuron Explorer Parquet directories, built here with pyarrow from the seed's b32 values."""

from __future__ import annotations

import json
import sys

import pytest
from conftest import RUN

import neuroncmp
from neuroncmp.errors import MissingDependencyError, ParseError, UnknownFormatError

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

SYSTEM = ("instance_type", "compiler_version", "runtime_version", "driver_version",
          "collectives_version", "profiler_version", "nc_idx", "nd_idx")


def _write(directory, table, rows):
    pq.write_table(pa.Table.from_pylist(rows), directory / f"{table}.parquet")


@pytest.fixture()
def explorer_dir(tmp_path):
    block = next(iter(json.loads((RUN / "b32.json").read_text()).values()))
    summary = {k: v for k, v in block.items() if k not in SYSTEM and "throttle" not in k}
    summary.update(neuroncore_idx=0, neuron_device_idx=0)
    directory = tmp_path / "b32@latest"
    directory.mkdir()
    _write(directory, "Summary", [summary])
    _write(directory, "Metadata", [{"instance_type": "trn1.2xlarge", "explorer_version": "2.31.0",
                                    "profile_schema_version": "7.4.0", "num_physical_cores": 2,
                                    "hbm_ddr_bandwidth": 410_000_000_000, "vnc_enabled": False}])
    _write(directory, "ThrottleSummary", [
        {"nc_idx": 0, "throttle_type": "all", "throttle_active_time_ns": 16_240_000,
         "throttle_active_time_percent": 0.1416, "max_achievable_util_with_throttling_percent": 0.9814},
        {"nc_idx": 0, "throttle_type": "activity_0", "throttle_active_time_ns": 9_490_000,
         "throttle_active_time_percent": 0.0827, "max_achievable_util_with_throttling_percent": 0.875}])
    _write(directory, "HbmUsageSummaryByType", [
        {"neuron_device_idx": 0, "neuroncore_idx": 0, "usage_type": label, "usage_bytes": amount}
        for label, amount in (("Shared Scratchpad", 3 * 2**30 + 2**29), ("Profiler Buffers", 2623147294),
                              ("DRAM Spill", 0), ("XT CC (unused)", 0), ("Tensors", 1315333734))])
    return directory


def test_explorer_directory_loads_like_summary_json(explorer_dir):
    (profile,) = neuroncmp.load(explorer_dir)
    assert profile.source.format == "explorer-parquet" and profile.label == "b32"
    assert profile.batch_size == 32
    assert profile.metrics["mfu_estimated_percent"].value == 0.2039
    assert profile.metrics["total_time"].value == 0.1147
    assert profile.metrics["nc_idx"].value == 0  # neuroncore_idx alias
    assert profile.metrics["profiler_version"].value == "2.31.0"  # explorer_version alias
    assert profile.metrics["hbm_ddr_bandwidth"].quantity.to("GB/s").m == pytest.approx(410)
    assert profile.info("profile_schema_version") == "7.4.0"
    assert profile.info("vnc_enabled") == "false"


def test_explorer_throttle_and_memory(explorer_dir):
    (profile,) = neuroncmp.load(explorer_dir)
    assert profile.metrics["throttle_active_nc0_time_ns"].quantity.to("ms").m == pytest.approx(16.24)
    assert profile.metrics["throttle_activity_0_active_time_nc0_ns"].value == pytest.approx(0.00949)
    assert profile.metrics["throttle_max_achievable_util_nc0_percent"].spec.direction == "higher"
    usage = profile.memory_by_type()
    assert usage["shared_scratchpad"] == 3.5 * 2**30
    assert usage["profiler_buffers"] == 2623147294 and usage["dram_spill"] == 0 and "xt_cc" in usage


def test_missing_summary_table(explorer_dir):
    (explorer_dir / "Summary.parquet").unlink()
    with pytest.raises(UnknownFormatError, match=r"Summary\.parquet"):
        neuroncmp.load(explorer_dir)
    with pytest.raises(ParseError, match=r"Summary\.parquet"):
        neuroncmp.load(explorer_dir, format="explorer-parquet")


def test_corrupt_table(explorer_dir):
    (explorer_dir / "Metadata.parquet").write_bytes(b"PAR1 not really")
    with pytest.raises(ParseError, match="Metadata"):
        neuroncmp.load(explorer_dir)


def test_clear_message_without_pyarrow(explorer_dir, monkeypatch):
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    with pytest.raises(MissingDependencyError, match=r"neuroncmp\[parquet\]"):
        neuroncmp.load(explorer_dir)

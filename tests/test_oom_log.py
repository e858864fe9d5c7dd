"""The runtime's older out-of-memory log (issue 20, class 5 / item 9) and a capture whose every
batch size runs out of memory.

Real logs: the trn1 bullet list of the gather folder (tests/data/third_party/runtime-oom) and
inf2.24xlarge's of aws-neuron/transformers-neuronx#92 (tests/fixtures, provenance in its README).
Sizes are binary: in the inf2 log the bullets sum to the ``total`` bullet only so (checked below
with the printed numbers, not with the parser).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import FIXTURES, TRAIN

from neuroncmp.capture import oom
from neuroncmp.cli import cli

GiB, MiB, KiB = 2**30, 2**20, 2**10
TRN1 = Path(__file__).parent / "data" / "third_party" / "runtime-oom" / \
    "trn1_runtime-2.x_oom_bullet-list_llava-trace.log"
INF2 = FIXTURES / "oom_bullet-list_inf2.24xlarge_transformers-neuronx-92.log"


def test_trn1_bullets_read_in_full():
    report = oom.parse(TRN1.read_text(encoding="utf-8"))
    assert report is not None
    assert (report.requested_bytes, report.requested_usage, report.where) == (172 * MiB, "tensors", "ND 0:NC 0")
    (row,) = report.rows
    assert (row.level, row.device, row.core) == ("core", 0, 0)
    assert dict(row.bytes_by_type) == {"total": round(15.855 * GiB), "tensors": round(15.855 * GiB),
                                       "runtime": round(1.062 * KiB), "dma_rings": 32 * KiB}
    assert report.columns == ("total", "tensors", "runtime", "dma rings")


def test_inf2_bullets_mapped_like_other_memory_sources():
    report = oom.parse(INF2.read_text(encoding="utf-8"))
    assert report is not None and report.where == "ND 3:NC 0"  # the first failure of the log
    assert report.requested_bytes == int(43.325 * MiB) and report.requested_usage == "dma rings"
    by_type = report.as_dict()["bytes_by_type"]
    assert by_type == {"total": round(15.972 * GiB), "model_code": round(482.430 * MiB),
                       "constants": round(1.518 * MiB), "tensors": round(13.170 * GiB),
                       "shared_scratchpad": 512 * MiB, "runtime": round(7.352 * KiB),
                       "dma_rings": round(1.471 * GiB), "collectives": round(367.002 * MiB)}
    assert report.as_dict()["bytes_level"] == "core" and report.as_dict()["device_bytes_by_type"] is None


def test_the_bullets_sum_to_their_total_only_in_binary_units():
    """Why KB/MB/GB are read as KiB/MiB/GiB: the printed numbers themselves."""
    mb = [482.430, 1.518, 512.000, 367.002]  # model code, constants, shared scratchpad, collectives
    gb = [13.170, 1.471]  # tensors, dma rings
    kb = [7.352]  # runtime
    binary = sum(mb) / 1024 + sum(gb) + sum(kb) / 1024**2
    decimal = sum(mb) / 1000 + sum(gb) + sum(kb) / 1000**2
    assert binary == pytest.approx(15.972, abs=0.0006) and decimal != pytest.approx(15.972, abs=0.01)


def test_the_newer_table_form_keeps_working():
    text = ("ERROR  TDRV:log_dev_mem  Failed to allocate 4.000GB (alignment: none, usage: tensors) on ND 0:NC 4\n"
            "ERROR  TDRV:log_dev_mem_usage_table   Displaying Current Memory Utilization:\n"
            "              |          |  Model   |\n"
            "              |  TOTAL   |   Code   |\n"
            "ND 0 Overall  | 20.188GB |192.102MB |\n")
    report = oom.parse(text)
    assert report is not None and report.device_row() is not None
    assert dict(report.device_row().bytes_by_type) == {"total": round(20.188 * GiB),
                                                        "model_code": round(192.102 * MiB)}
    assert report.breakdown() is report.device_row()



def test_a_capture_whose_every_batch_runs_out_of_memory_says_so(standin_path, tmp_path):
    standin_path.setenv("STANDIN_OOM_AT", "2")
    out = tmp_path / "run"
    result = CliRunner().invoke(cli, ["capture", "--batch", "2,4", "--out", str(out), "--", *TRAIN])
    assert result.exit_code == 1, result.output
    assert "b2  out-of-memory" in result.stdout and "b4  out-of-memory" in result.stdout
    # the stand-in prints AWS's table form scaled to the batch: 160 MiB of tensors per sample,
    # 192 MiB of model code (tests/standins/fake_train.py, oom_log); batch 2 is the upper bound
    in_use = next(line for line in result.stdout.splitlines() if line.startswith("in use on the device: "))
    assert "tensors 320.0 MiB" in in_use and "model_code 192.0 MiB" in in_use
    assert "neuroncmp diff" not in result.output  # it would fail: the folder holds no profile
    assert "no batch size was captured" in result.output
    assert "every batch size ran out of device memory, the smallest (batch 2) included: try smaller " \
           "batch sizes" in result.output
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["profiles"] == [] and manifest["upper_bound"]["batch_size"] == 2


def test_a_capture_with_one_profile_still_suggests_diff(standin_path, tmp_path):
    standin_path.setenv("STANDIN_OOM_AT", "4")
    out = tmp_path / "run"
    result = CliRunner().invoke(cli, ["capture", "--batch", "2,4", "--out", str(out), "--", *TRAIN])
    assert result.exit_code == 0, result.output
    assert f"next: neuroncmp diff {out}" in result.stdout

"""One unit per kind, equal inputs written alike, tallies that count what they say.

Values are read from the raw summary-json files of the bundled sweep and worked out here.
"""

from __future__ import annotations

import json
import math
import re

import pytest
from click.testing import CliRunner
from conftest import RUN

from neuroncmp.cli import cli

BASE, B32, OPTIM = (str(RUN / name) for name in ("baseline.json", "b32.json", "b32-cc-optim.json"))
FRACTION_LINES = ("MFU [%]", "tensor engine active [%]", "vector engine active [%]", "scalar engine active [%]",
                  "GpSimd engine active [%]", "DMA active [%]", "collectives share of step [%]")


def _raw(path):
    return next(iter(json.loads(open(path).read()).values()))


def _diff(*args):
    result = CliRunner().invoke(cli, ["diff", *args, "--no-color", "--width", "100"])
    assert result.exit_code == 0, result.output
    return result.output.splitlines()


def _line(lines, start):
    return next(line for line in lines if line.startswith(start))


def test_every_fraction_of_the_headline_changes_in_points():
    """b32 -> b32-cc-optim: the tensor engine's share 33.12 % -> 33.21 % is +0.09pp (it was written
    +0.27 %, relative, beside +0.22pp for the vector engine's)."""
    b, v = _raw(B32)["tensor_engine_active_time_percent"], _raw(OPTIM)["tensor_engine_active_time_percent"]
    assert f"{(v - b) * 100:+.2f}" == "+0.09"
    lines = _diff(B32, OPTIM, "--summary")
    assert _line(lines, "tensor engine active [%]").split()[-1] == "+0.09pp="
    for label in FRACTION_LINES:
        assert re.search(r"[-+]\d*\.\d+pp[=~✔✘]?$", _line(lines, label)), _line(lines, label)  # no mark: context


def test_a_small_share_changes_in_points_too():
    """cc_cores_instruction_active_time_percent 0.0058 % -> 0.0027 % is -0.0031pp: one significant
    digit, never 0 and never a relative change."""
    b, v = _raw(BASE)["cc_cores_instruction_active_time_percent"], _raw(B32)["cc_cores_instruction_active_time_percent"]
    assert round((v - b) * 100, 4) == -0.0031
    line = _line(_diff(BASE, B32, "--metric", "cc_cores_instruction_active_time_percent"),
                 "cc_cores_instruction_active_time_percent")
    # no better direction, beyond the band (|ln(0.0027 / 0.0058)| = 0.76 > ln 1.05): changed, "~"
    assert line.split()[-1] == "-.003pp~"


def test_a_metric_with_no_better_direction_is_marked_by_its_noise_band():
    """Baseline (batch 8, inferred) -> b32 (batch 32), by docs/judging.md's bands. The scalar engine's
    share 30.82 % -> 26.47 % moves 4.35 points, beyond the 0.5pp band: "~" (changed, no better
    direction). Model FLOPs per sample 536.363 GFLOP / 8 -> 2145 GFLOP / 32 (67.05 -> 67.03 GFLOP)
    moves |ln| = 0.0003, inside the 1 % FLOP band: "=". Device memory across batch sizes is shown, not
    compared: its change with no mark (before, the first two read alike: no mark on either)."""
    base, b32 = _raw(BASE), _raw(B32)
    scalar = (base["scalar_engine_active_time_percent"], b32["scalar_engine_active_time_percent"])
    assert abs(scalar[1] - scalar[0]) * 100 > 0.5
    flops = (base["model_flops"] / 8, b32["model_flops"] / 32)
    assert 0 < abs(math.log(flops[1] / flops[0])) <= math.log(1.01)
    lines = _diff(BASE, B32, "--all")
    assert "batch sizes: baseline 8*, b32 32;" in lines[1]
    assert _line(lines, "scalar engine active [%]").split()[-1] == "-4.35pp~"
    assert _line(lines, "scalar_engine_active_time_percent [%]").split()[-1] == "-4.35pp~"
    assert _line(lines, "model_flops/sample [GFLOP]").split()[-1] == "-0.02%="
    assert _line(lines, "device_memory_total [GiB]").split()[-1] == "+41.5%"
    assert "~ changed beyond its noise band (no better direction)" in " ".join(lines)
    markdown = CliRunner().invoke(cli, ["diff", BASE, B32, "--all", "--format", "md"]).output.splitlines()
    assert _line(markdown, "| scalar engine active |").endswith("(-4.35pp ~ changed) |")
    assert _line(markdown, "| `model_flops/sample` |").endswith("(-0.02% = within noise) |")
    assert _line(markdown, "| `device_memory_total` |").endswith("(+41.5%) |")


def test_the_same_share_measured_and_derived_reads_the_same_change():
    """``cc_op_active_time_percent`` (25.90 % -> 13.95 %, as written in the files) and
    ``collective_share = cc_op_time / total_time`` (13.93 / 53.78 ms = 25.90 %, 16.00 / 114.7 ms =
    13.95 %) show the same values; 13.95 - 25.90 = -11.95, which rounds to -12.0 (the float
    nearest -11.95 lies just above it, and was written -11.9pp)."""
    base, b32 = _raw(BASE), _raw(B32)
    measured = (base["cc_op_active_time_percent"] * 100, b32["cc_op_active_time_percent"] * 100)
    derived = (base["cc_op_time"] / base["total_time"] * 100, b32["cc_op_time"] / b32["total_time"] * 100)
    assert [f"{x:.2f}" for x in measured] == [f"{x:.2f}" for x in derived] == ["25.90", "13.95"]
    lines = _diff(BASE, B32, "--all")
    changes = {_line(lines, label).split()[-1] for label in
               ("collectives share of step [%]", "cc_op_active_time_percent [%]", "collective_share [%] (derived)")}
    assert changes == {"-12.0pp"}  # the same change; not scored: the step grew, collectives did not shrink


@pytest.mark.parametrize("fmt", ["term", "md", "json"])
def test_the_tally_counts_the_rows_its_label_names(fmt):
    """The baseline has 2 input anomalies (two throttle percents over 100 %); b32 lacks one of the
    two metrics, so that row is "gone", but both rows carry a suspect value: 2, not 1."""
    throttles = [k for k, value in _raw(BASE).items()
                 if k.startswith("throttle_") and k.endswith("_percent") and isinstance(value, float) and value > 1]
    assert len(throttles) == 2
    result = CliRunner().invoke(cli, ["diff", BASE, B32, "--no-color", "--summary", "--format", fmt])
    if fmt == "json":
        assert json.loads(result.output)["tally"]["b32"]["suspect"] == 2
    else:
        line = _line([text.strip("| ") for text in result.output.splitlines()], "rows better / worse / suspect")
        assert line.replace(" ", "").endswith("✘2!")

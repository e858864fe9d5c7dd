"""One unit per kind, equal inputs written alike, tallies that count what they say.

Values are read from the raw summary-json files of the bundled sweep and worked out here.
"""

from __future__ import annotations

import json
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
        assert re.search(r"[-+]\d*\.\d+pp[=✔✘]?$", _line(lines, label)), _line(lines, label)  # no mark: not scored


def test_a_small_share_changes_in_points_too():
    """cc_cores_instruction_active_time_percent 0.0058 % -> 0.0027 % is -0.0031pp: one significant
    digit, never 0 and never a relative change."""
    b, v = _raw(BASE)["cc_cores_instruction_active_time_percent"], _raw(B32)["cc_cores_instruction_active_time_percent"]
    assert round((v - b) * 100, 4) == -0.0031
    line = _line(_diff(BASE, B32, "--metric", "cc_cores_instruction_active_time_percent"),
                 "cc_cores_instruction_active_time_percent")
    assert line.split()[-1] == "-.003pp"  # no better direction: no mark


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

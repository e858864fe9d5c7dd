"""Thresholds are finite and bounded everywhere (issue 33, item 4): one check,
``bands.threshold_number``, behind ``--threshold`` of ``diff`` and ``ops``, ``--fail-on`` and the
Python API. ``1e400`` is a float's infinity: read as a band it made every change noise, so no
verdict and no gate could fire, where ``inf%`` was refused."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from conftest import ROOT, RUN

import neuroncmp as nc
from neuroncmp.cli import cli
from neuroncmp.commands.ops import OpsOptions
from neuroncmp.comparison.bands import Band, parse_band
from neuroncmp.comparison.gates import parse_rule
from neuroncmp.errors import RuleError, UsageError

VIEW = ROOT / "tests" / "data" / "third_party" / "view-json"
INF2 = [str(VIEW / f"inf2.xlarge_profiler-2.27_matmul_128x128x{n}.json") for n in (256, 1024)]
HUGE = "1" + "0" * 400  # a float's infinity once read


PERCENT_RANGE = "expected a number from 0% to 10000% (a wider band would call every change noise)"
TIME_RANGE = "expected a number from 0 ns to 3600 s (a wider band would call every change noise)"


@pytest.mark.parametrize("threshold,accepted", [
    ("1e400%", PERCENT_RANGE), ("time=1e400s", TIME_RANGE), ("time=1e400", TIME_RANGE), (f"{HUGE}%", PERCENT_RANGE),
    ("1e308%", PERCENT_RANGE), ("10001%", PERCENT_RANGE), ("time=2h", TIME_RANGE),
    ("fraction=101pp", "expected a number from 0pp to 100pp (a wider band would call every change noise)"),
    ("bytes=2000TiB", "expected a number from 0 B to 1024 TiB (a wider band would call every change noise)"),
    # inf% was a syntax error ("expected [KIND|METRIC-GLOB=]NUMBER% ..."), 1e400% "the number is not finite":
    # every number out of range has one message, naming the option and the range
    ("inf%", PERCENT_RANGE), ("Infinity%", PERCENT_RANGE), ("nan%", PERCENT_RANGE), ("-5%", PERCENT_RANGE),
    ("time=inf", TIME_RANGE), ("time=-1us", TIME_RANGE),
])
@pytest.mark.parametrize("command", [["diff", str(RUN / "baseline.json"), str(RUN / "b32.json")], ["ops", *INF2]])
def test_an_infinite_or_boundless_threshold_is_refused(command, threshold, accepted):
    result = CliRunner().invoke(cli, [*command, "--threshold", threshold])
    assert result.exit_code == 2, result.output
    (line,) = [line for line in result.output.splitlines() if line.startswith("Error")]
    assert line.startswith(f"Error: --threshold '{threshold[:50]}") and line.endswith(f"': {accepted}")


def test_the_widest_thresholds_are_taken():
    assert parse_band("10000%").band == Band(100.0)
    assert parse_band("fraction=100pp").band == Band(100.0, points=True)
    assert parse_band("time=1h").floor == 3600.0
    assert parse_band("time=5ns").floor == pytest.approx(5e-9)


@pytest.mark.parametrize("rule", [f"total_time>+{HUGE}%", "total_time>+10001%", "mfu_estimated_percent<-101pp",
                                  f"memory.*>={HUGE}x", f"total_time>{HUGE}", "total_time>inf%", "total_time>+1e400%",
                                  "total_time>nan%"])
def test_a_gate_threshold_is_checked_the_same_way(rule):
    with pytest.raises(RuleError, match=r"--fail-on '.*': expected a (number from -|finite number)"):
        parse_rule(rule)
    result = CliRunner().invoke(cli, ["diff", str(RUN / "baseline.json"), str(RUN / "b32.json"), "--fail-on", rule])
    assert result.exit_code == 2 and "Traceback" not in result.output


def test_a_gate_at_its_bound_is_taken():
    assert parse_rule("total_time>+10000%").threshold == 10000
    assert parse_rule("mfu_estimated_percent<-100pp").threshold == -100


@pytest.mark.parametrize("call", [
    lambda: nc.compare(RUN / "baseline.json", RUN / "b32.json", thresholds=["1e400%"]),
    lambda: nc.ops(*INF2, thresholds=["time=1e400s"]),
    lambda: OpsOptions(thresholds=("1e400%",)),
])
def test_the_api_refuses_them_before_reading(call):
    with pytest.raises(UsageError, match="expected a number from 0"):
        call()


ARABIC_INDIC = str.maketrans("0123456789", "٠١٢٣٤٥٦٧٨٩")


@pytest.mark.parametrize("option,written", [
    ("--threshold", "5%"), ("--threshold", "bytes=4MiB"), ("--threshold", "time=2.5e1us"),
    ("--fail-on", "total_time>5%"), ("--fail-on", "mfu_estimated_percent<-1.5pp"),
])
def test_a_number_in_any_scripts_digits_reads_as_in_ascii_digits(option, written):
    """--threshold and --fail-on read a number's digits as float() and click's number options do
    (--width 120 in Arabic-Indic digits is 120): 5% so written is 5% in both, where --threshold
    refused it and --fail-on took it."""
    files = [str(RUN / "b16.json"), str(RUN / "b32.json"), "--format", "json"]
    ascii_run = CliRunner().invoke(cli, ["diff", *files, option, written])
    assert ascii_run.exit_code in (0, 1) and '"noise_bands"' in ascii_run.output  # read, not refused
    other = CliRunner().invoke(cli, ["diff", *files, option, written.translate(ARABIC_INDIC)])
    assert (other.exit_code, other.output.translate(ARABIC_INDIC)) == (ascii_run.exit_code,
                                                                      ascii_run.output.translate(ARABIC_INDIC))

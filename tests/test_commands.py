"""One library call per command (issue 23): a frozen options record, checked when made, and one entry
point that the CLI and the Python API both call."""

from __future__ import annotations

import dataclasses
import json

import pytest
from click.testing import CliRunner
from conftest import RUN

import neuroncmp as nc
from neuroncmp.cli import cli
from neuroncmp.commands.convert import ConvertOptions, convert_report
from neuroncmp.commands.diff import DiffOptions, diff_report
from neuroncmp.commands.metrics import MetricsOptions, metrics_report
from neuroncmp.commands.show import ShowOptions, show_report
from neuroncmp.commands.sweep import SweepOptions, sweep_report
from neuroncmp.errors import RuleError, UsageError
from neuroncmp.ingest import load, load_many
from neuroncmp.render.registry import by_name

PAIR = [RUN / "baseline.json", RUN / "b32.json"]
# From the files themselves: total_time 0.05378 s at batch 8 (the manifest), 0.1147 s at batch 32.
PER_SAMPLE_CHANGE = (0.1147 / 32) / (0.05378 / 8) - 1   # -46.7 %

# argument, a misspelling, every value it takes (as the docs list them)
CHOICES = [("basis", "smaple", ("auto", "step", "sample")),
           ("sort", "chnage", ("group", "change", "name")),
           ("order", "batchsize", ("batch", "given"))]


@pytest.mark.parametrize("name, bad, values", CHOICES)
def test_an_options_record_refuses_a_value_outside_its_vocabulary_naming_every_choice(name, bad, values):
    with pytest.raises(UsageError) as caught:
        DiffOptions(**{name: bad})
    assert f"{name}={bad!r}" in str(caught.value)
    assert all(value in str(caught.value) for value in values)


@pytest.mark.parametrize("name, bad, values", CHOICES)
def test_the_api_refuses_it_too_before_reading_any_path(name, bad, values):
    with pytest.raises(UsageError) as caught:
        nc.compare("/no/such/file.json", **{name: bad})  # the path is never read
    assert all(value in str(caught.value) for value in values)


def test_options_are_frozen_and_normalised():
    options = DiffOptions(groups=["throughput"], rules="total_time/sample>+5%")
    assert options.groups == ("throughput",) and options.rules == ("total_time/sample>+5%",)
    assert len(options.gates) == 1
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.basis = "step"  # type: ignore[misc]


def test_a_bad_rule_or_band_fails_when_the_options_are_made():
    with pytest.raises(RuleError, match="--fail-on 'mfu!!'"):
        DiffOptions(rules=("mfu!!",))
    with pytest.raises(UsageError, match="--threshold"):
        DiffOptions(thresholds=("time=lots",))


@pytest.mark.parametrize("rule, tripped", [("total_time/sample<-40%", True), ("total_time/sample<-50%", False)])
def test_diff_report_checks_the_gates_against_the_files_numbers(rule, tripped):
    assert -0.5 < PER_SAMPLE_CHANGE < -0.4
    report = diff_report(load_many(PAIR), DiffOptions(rules=(rule,), metrics=("total_time",), findings=False))
    assert [gate.tripped for gate in report.gates] == [tripped]
    assert [row.name for row in report.view.rows] == ["total_time"]
    assert report.findings == ()
    cell = report.comparison.cell("total_time", "b32")
    assert cell.sample.relative == pytest.approx(PER_SAMPLE_CHANGE, rel=1e-3)


def test_diff_report_finds_what_the_sweep_of_the_sides_says_unless_asked_not_to():
    profiles = load(RUN)
    assert diff_report(profiles, DiffOptions()).findings != ()
    assert diff_report(profiles, DiffOptions(findings=False)).findings == ()


def test_the_cli_and_the_api_render_the_same_report():
    args = ["diff", *map(str, PAIR), "--sort", "change", "--metric", "total_time", "--metric", "mfu*",
            "--format", "json"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    api = nc.compare(*PAIR, sort="change", metrics=["total_time", "mfu*"])
    assert json.loads(result.output) == json.loads(by_name("json").diff(api.report(), 100))


def test_sweep_options_are_checked_and_the_sweep_uses_them():
    with pytest.raises(UsageError, match="peak_flops"):
        SweepOptions(peak_flops=0)
    priced = sweep_report(load(RUN), SweepOptions(price_per_hour=1.5))
    assert nc.sweep(RUN, price_per_hour=1.5).recommendation == priced.recommendation


def test_metrics_report_resolves_a_prefix_and_names_the_closest_for_nothing():
    assert [spec.name for spec in metrics_report(MetricsOptions("mfu"))] == ["mfu_estimated_percent"]
    with pytest.raises(UsageError, match=r"no metric matches 'mfu_estimatd'.*mfu_estimated_percent"):
        metrics_report(MetricsOptions("mfu_estimatd"))
    with pytest.raises(UsageError, match="glob"):
        MetricsOptions(3)  # type: ignore[arg-type]


def test_show_and_convert_read_the_labels_the_manifest_gives():
    manifest = json.loads((RUN / "manifest.json").read_text())
    labels = [entry["label"] for entry in manifest["profiles"]]
    assert [p.label for p in show_report([RUN], ShowOptions()).profiles] == labels
    assert [p.label for p in convert_report(RUN / "b32.json", ConvertOptions()).profiles] == ["b32"]
    with pytest.raises(UsageError, match="format"):
        ShowOptions(format=3)  # type: ignore[arg-type]

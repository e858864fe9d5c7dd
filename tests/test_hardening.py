"""Regression tests for every crash class of issue 11, each from a minimal input.

Decoding, numbers out of range, shapes, hangs, silent wrong values, containment, output edges,
messages and escaping. The expected values are written from the inputs (a negative time is a
``negative-value`` on that metric, 1e400 is an infinity, ...), not copied from the code's output.
"""

from __future__ import annotations

import json
import math
import os
import time

import pytest
from conftest import RUN

import neuroncmp
from neuroncmp.errors import InputError, LimitError, NeuroncmpError, ParseError

B32 = next(iter(json.loads((RUN / "b32.json").read_text()).values()))


def write(tmp_path, name, content):
    path = tmp_path / name
    path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8", "surrogatepass"))
    return path


def codes(profile, metric=None):
    return sorted(a.code for a in profile.anomalies if metric is None or a.metric == metric)


def strict(text):
    return json.loads(text, parse_constant=lambda token: pytest.fail(f"non-JSON token {token}"))


# ---- decoding ---------------------------------------------------------------------------------

def test_deep_nesting_is_refused_with_the_setting_that_raises_it(tmp_path):
    path = write(tmp_path, "deep.json", '{"n": {"total_time": 1, "x": ' + "[" * 1000 + "]" * 1000 + "}}")
    with pytest.raises(LimitError, match="NEURONCMP_MAX_JSON_DEPTH") as caught:
        neuroncmp.load(path)
    assert "1,002 deep" in str(caught.value)


def test_nesting_within_a_raised_limit_loads(tmp_path, monkeypatch):
    monkeypatch.setenv("NEURONCMP_MAX_JSON_DEPTH", "200")
    path = write(tmp_path, "deep.json", '{"n": {"total_time": 1, "x": ' + "[" * 150 + "]" * 150 + "}}")
    (profile,) = neuroncmp.load(path)
    assert profile.metrics["total_time"].value == 1 and [s.where for s in profile.skipped] == ["object 'n', key 'x'"]


def test_integer_of_5000_digits_reads_as_an_infinity_with_an_anomaly(tmp_path):
    path = write(tmp_path, "big.json", '{"n": {"hbm_read_bytes": ' + "7" * 5000 + ', "total_time": 0.1}}')
    (profile,) = neuroncmp.load(path)
    assert profile.metrics["hbm_read_bytes"].value == math.inf
    assert codes(profile, "hbm_read_bytes") == ["non-finite-value"]


@pytest.mark.parametrize("bom, encoding", [(b"", "utf-16-le"), (b"", "utf-16-be")])
def test_utf16_with_a_byte_order_mark_is_read(tmp_path, bom, encoding):
    text = json.dumps({"n": {"total_time": 0.25}})
    path = write(tmp_path, "w.json", bom + ("\ufeff" + text).encode(encoding))
    (profile,) = neuroncmp.load(path)
    assert profile.metrics["total_time"].value == 0.25


def test_repeated_json_keys_keep_the_first_and_are_flagged(tmp_path):
    path = write(tmp_path, "dup.json", '{"n": {"total_time": 0.05, "total_time": 0.07, "hbm_read_bytes": 5}}')
    (profile,) = neuroncmp.load(path)
    assert profile.metrics["total_time"].value == 0.05
    assert codes(profile, "total_time") == ["duplicate-metric"]


def test_repeated_keys_with_the_same_value_are_not_flagged(tmp_path):
    path = write(tmp_path, "dup.json", '{"n": {"total_time": 0.05, "total_time": 0.05}}')
    (profile,) = neuroncmp.load(path)
    assert codes(profile) == []


# ---- numbers out of range ---------------------------------------------------------------------

@pytest.mark.parametrize("value, unit, expected", [
    (math.inf, "s", "inf"), (-math.inf, "B", "-inf"), (math.nan, "count", "NaN"),
    (10**400, "B", "inf"), (-(10**400), "count", "-inf"), (1e308, "s", "1.000e+308 s"),
    (5e-324, "s", "4.941e-315 ns"), (2**70, "count", "1180591621T"), (0.25, "fraction", "25.00 %"),
])
def test_human_formatting_never_raises(value, unit, expected):
    from neuroncmp.units import format_value

    assert format_value(value, unit) == expected


@pytest.mark.parametrize("b, v, inside", [(1e308, 5e-324, False), (5e-324, 1e308, False),
                                          (10**400, 10**400 + 1, True), (math.inf, math.inf, True),
                                          (-1e400, 1e400, False), (1.0, 1.01, True)])
def test_noise_band_has_no_math_domain_error(b, v, inside):
    from neuroncmp.comparison.bands import Band

    assert Band(0.02).inside(b, v) is inside


def test_infinite_model_flops_infers_no_batch_size(tmp_path):
    block = dict(B32, model_flops=1e400)
    a = write(tmp_path, "a.json", json.dumps({"n": block}).replace("Infinity", "1e400"))
    b = write(tmp_path, "b32x.json", json.dumps({"n": B32}))
    (profile,) = neuroncmp.load(a)
    profiles = neuroncmp.load_many([a, b])
    assert profile.batch_size is None and profiles[0].batch_size is None
    assert codes(profile, "model_flops") == ["non-finite-value"]


def test_a_huge_memory_amount_is_refused_quickly(tmp_path):
    table = "| ND Idx | NC Idx | Usage Type | Amount |\n| - | - | - | - |\n| 0 | 0 | io | 1e999990 KiB |\n"
    path = write(tmp_path, "m.memory.md", table)
    start = time.process_time()  # CPU time, here and below: load on the machine stretches wall time only
    with pytest.raises(ParseError, match="amount in bytes"):
        neuroncmp.load(path)
    assert time.process_time() - start < 1


def test_opposite_infinities_compare_without_a_nan_crash(tmp_path):
    a = write(tmp_path, "a.json", '{"n": {"total_time": -1e400}}')
    b = write(tmp_path, "b.json", '{"n": {"total_time": 1e400}}')
    result = neuroncmp.compare(neuroncmp.load(a), neuroncmp.load(b))
    assert result.row("total_time").cells[0].step.baseline == -math.inf
    for profile in result.sides:
        assert codes(profile.profiles[0], "total_time") == ["non-finite-value"]


@pytest.mark.parametrize("baseline, variant", [("5e-324", "1e10"), ("1e300", "1e-300"), ("1e400", "1")])
def test_sorting_by_change_survives_ratios_that_under_or_overflow(tmp_path, baseline, variant):
    """Found by the fuzzer: log(v / b) of 5e-324 / 1e10 is log(0), a math domain error."""
    from neuroncmp.comparison.view import change_in_bands, select

    a = write(tmp_path, "a.json", f'{{"n": {{"total_time": 0.1, "hbm_read_bytes": {baseline}}}}}')
    b = write(tmp_path, "b.json", f'{{"n": {{"total_time": 0.1, "hbm_read_bytes": {variant}}}}}')
    result = neuroncmp.compare(neuroncmp.load(a), neuroncmp.load(b))
    assert select(result, sort="change").rows  # no ValueError
    size = change_in_bands(result.row("hbm_read_bytes"), "step")
    band = result.row("hbm_read_bytes").band.width()  # ln(1 + relative band)
    expected = math.inf if "e400" in baseline else abs(math.log(float(variant)) - math.log(float(baseline))) / band
    assert size == pytest.approx(expected)


# ---- shapes -----------------------------------------------------------------------------------

MONITOR = json.loads((RUN.parent.parent / "tests" / "fixtures" / "neuron-monitor-report.json").read_text())


@pytest.mark.parametrize("change, place", [
    (lambda r: r.update(neuron_runtime_data={"a": 1}), "neuron_runtime_data"),
    (lambda r: r["neuron_runtime_data"][0]["report"]["memory_used"].update(neuron_runtime_used_bytes=[1]),
     "neuron_runtime_used_bytes"),
    (lambda r: r["neuron_runtime_data"][0]["report"]["neuroncore_counters"]["neuroncores_in_use"].update(
        nc0={"flops": 1}), "key 'nc0'"),
    (lambda r: r.update(neuron_hardware_info="trainium"), "neuron_hardware_info"),
    (lambda r: r["neuron_runtime_data"].append("x"), "neuron_runtime_data[1]"),
])
def test_neuron_monitor_shapes_are_parse_errors_naming_the_place(tmp_path, change, place):
    report = json.loads(json.dumps(MONITOR))
    change(report)
    path = write(tmp_path, "monitor.json", json.dumps(report))
    with pytest.raises(ParseError) as caught:
        neuroncmp.load(path)
    assert place in str(caught.value) and "monitor.json" in str(caught.value)


def test_neuron_monitor_unknown_fields_are_counted_as_skipped(tmp_path):
    report = json.loads(json.dumps(MONITOR))
    report["neuron_runtime_data"][0]["report"]["execution_stats"] = {"latency": 1}
    report["system_data"] = {"vcpu_usage": {}, "gpu_info": 1}
    report["neuron_k8s_info"] = {}
    (profile,) = neuroncmp.load(write(tmp_path, "monitor.json", json.dumps(report)))
    skipped = {s.where.rsplit("key ", 1)[-1] for s in profile.skipped}
    assert {"'latency'", "'gpu_info'", "'neuron_k8s_info'", "'pid'", "'neuron_runtime_tag'"} <= skipped


@pytest.mark.parametrize("table, fragment", [
    ("| ND Idx | NC Idx | Usage Type | Amount |\n| - | - | - | - |\n| ² | 0 | io | 64 KiB |\n", "index"),
    ("| ND Idx | NC Idx | Usage Type | Amount |\n| - | - | - | - |\n| " + "1" * 5000 + " | 0 | io | 64 KiB |\n",
     "index"),
])
def test_ui_export_bad_indexes_are_parse_errors(tmp_path, table, fragment):
    with pytest.raises(ParseError, match=fragment):
        neuroncmp.load(write(tmp_path, "m.md", table))


def test_ui_export_5000_digit_lnc_value_and_batch_title_do_not_crash(tmp_path):
    digits = "9" * 5000
    text = (f"# Batch {digits}\n**Summary metrics account for Logical NeuronCore config = {digits}**\n"
            "| Group | Name | Value |\n| - | - | - |\n| overall_stats | **total_time** | 53.78 **ms** |\n")
    (profile,) = neuroncmp.load(write(tmp_path, "e.md", text))
    assert profile.batch_size is None and "lnc_config" not in profile.metadata
    assert profile.metrics["total_time"].value == pytest.approx(0.05378)


MANIFEST_ENTRY = {"file": "b32.json", "label": "b32"}


@pytest.mark.parametrize("entry, place", [
    ({"label": "b32"}, "profiles[0].file"),
    ({"file": "."}, "profiles[0].file"),
    ({"file": "b32.json", "label": 5}, "profiles[0].label"),
    ({"file": "b32.json", "notes": "one line"}, "profiles[0].notes"),
    ({"file": "b32.json", "params": [8]}, "profiles[0].params"),
    ({"file": "b32.json", "metadata": "x"}, "profiles[0].metadata"),
    ({"file": "b32.json", "params": {"batch_size": 0}}, "profiles[0].params.batch_size"),
    ({"file": "b32.json", "params": {"batch_size": 2.5}}, "profiles[0].params.batch_size"),
    ({"file": "b32.json", "params": {"batch_size": True}}, "profiles[0].params.batch_size"),
    ({"file": "../outside.json"}, "profiles[0].file"),
    ({"file": "/etc/hostname"}, "profiles[0].file"),
    ({"file": "b32.json", "memory": "../outside.json"}, "profiles[0].memory"),
    ({"file": "link.json"}, "profiles[0].file"),
    ({"file": "fifo.json"}, "profiles[0].file"),
    ({"file": "nested"}, "profiles[0].file"),
    (5, "profiles[0]"),
])
def test_manifest_entries_are_checked_and_contained(tmp_path, entry, place):
    folder = tmp_path / "run"
    folder.mkdir()
    (folder / "b32.json").write_bytes((RUN / "b32.json").read_bytes())
    (tmp_path / "outside.json").write_text('{"n": {"total_time": 9.0}}')
    (folder / "link.json").symlink_to(tmp_path / "outside.json")
    os.mkfifo(folder / "fifo.json")
    (folder / "nested").mkdir()
    (folder / "nested" / "manifest.json").write_text('{"schema": "neuroncmp.manifest/1", "profiles": [{"file": ".."}]}')
    (folder / "manifest.json").write_text(json.dumps({"schema": "neuroncmp.manifest/1", "profiles": [entry]}))
    start = time.process_time()
    with pytest.raises(ParseError) as caught:
        neuroncmp.load(folder)
    assert place in str(caught.value) and "manifest.json" in str(caught.value)
    assert time.process_time() - start < 2


def test_an_empty_profiles_list_in_a_manifest_is_an_error(tmp_path):
    (tmp_path / "manifest.json").write_text('{"schema": "neuroncmp.manifest/1", "profiles": []}')
    with pytest.raises(ParseError, match="non-empty list"):
        neuroncmp.load(tmp_path)


# ---- hangs ------------------------------------------------------------------------------------

LONG = 1_000_000


def _long_inputs():
    """One input per text parser, each with a megabyte line shaped to make a backtracking
    pattern quadratic (each took over 20 s before the rewrite)."""
    spaces, letters, digits = " " * LONG, "a " * (LONG // 2), "1" * LONG
    table = "| Group | Name | Value |\n| - | - | - |\n| overall_stats | **total_time** | {} |\n"
    monitor = json.loads(json.dumps(MONITOR))
    usage = monitor["neuron_runtime_data"][0]["report"]["memory_used"]["neuron_runtime_used_bytes"]
    usage["usage_breakdown"]["neuroncore_memory_usage"]["0"]["a" + spaces + "b"] = 5
    return {
        "summary-text.txt": f"total_time  0.1\nk{spaces}:\nkey  1 x{spaces}y\n" + "a" * LONG + "\n",
        "trainer.log": f"***** train metrics *****\n  train_loss = 0.5 x{spaces}y\n  k{spaces}\n",
        "value-digits.md": table.format(digits + " 2 **ms**"),
        "heading.md": "# a" + spaces + "b\n" + table.format("1 **ms**"),
        "neuron-top.md": "# B\nHost Used Memory  " + letters + "\n" + table.format("1 **ms**"),
        "title-parens.md": "# " + "(" * LONG + "\n" + table.format("1 **ms**"),
        "memory-label.json": json.dumps(monitor),
        "metric-names.json": json.dumps({"n": {"throttle_" + "util_limit" * (LONG // 10) + "_percent": 0.5,
                                               "throttle_" + "nc" * (LONG // 2) + "_ns": 1}}),
    }


# What each of them reads as: the profile's label, or its one-line error from the place it names on
LONG_READ = {"heading.md": "a-b", "memory-label.json": "memory-label", "neuron-top.md": "b",
             "title-parens.md": "profile",
             "metric-names.json": "whole file: expected at least one known Neuron metric for summary-json",
             "summary-text.txt": "no Neuron profile found in it",
             "trainer.log": "line 2, key 'train_loss': expected a number",
             "value-digits.md": "line 3, metric 'total_time': expected a number with a time unit"}


@pytest.mark.parametrize("name", sorted(_long_inputs()))
def test_megabyte_lines_are_parsed_in_linear_time(tmp_path, name):
    path = write(tmp_path, name, _long_inputs()[name])
    start = time.process_time()  # a hang guard: a quadratic pattern took over 20 s on each
    try:
        read = [profile.label for profile in neuroncmp.load(path)]
    except NeuroncmpError as exc:
        read = [str(exc).split(": ", 1)[1][:len(LONG_READ[name])]]
    assert time.process_time() - start < 1.5
    assert read == [LONG_READ[name]]


def test_a_fifo_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    with pytest.raises(InputError, match="FIFO"):
        neuroncmp.load(fifo)


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
def test_devices_are_refused_without_reading(tmp_path, device):
    link = tmp_path / "zero.json"
    link.symlink_to(device)
    for path in (device, link):
        with pytest.raises(InputError, match="character device"):
            neuroncmp.load(path)


def test_an_input_over_the_size_limit_is_refused_before_reading(tmp_path):
    path = tmp_path / "huge.json"
    with open(path, "wb") as handle:
        handle.truncate(65 * 1024 * 1024)  # sparse: refused from its size, never read
    with pytest.raises(LimitError, match="NEURONCMP_MAX_INPUT_MB") as caught:
        neuroncmp.load(path)
    assert "68,157,440 bytes" in str(caught.value) and "64 MiB" in str(caught.value)


def test_too_many_values_are_refused_naming_the_setting(tmp_path, monkeypatch):
    monkeypatch.setenv("NEURONCMP_MAX_VALUES", "1000")
    values = {"total_time": 0.1, **{f"m{i}_bytes": i for i in range(1199)}}  # one known metric
    path = write(tmp_path, "many.json", json.dumps({"n": values}))
    with pytest.raises(LimitError, match="NEURONCMP_MAX_VALUES"):
        neuroncmp.load(path)
    monkeypatch.setenv("NEURONCMP_MAX_VALUES", "2000")
    assert len(neuroncmp.load(path)[0].metrics) == 1200


def test_a_malformed_limit_setting_is_a_usage_error(tmp_path, monkeypatch):
    from neuroncmp.errors import UsageError

    monkeypatch.setenv("NEURONCMP_MAX_INPUT_MB", "lots")
    with pytest.raises(UsageError, match="NEURONCMP_MAX_INPUT_MB"):
        neuroncmp.load(RUN / "b32.json")


# ---- silent wrong values ----------------------------------------------------------------------

@pytest.mark.parametrize("key, value, code", [
    ("total_time", -0.05, "negative-value"), ("hbm_read_bytes", -1, "negative-value"),
    ("matmul_instruction_count", -3, "negative-value"), ("model_flops", -1e12, "negative-value"),
    ("mfu_estimated_percent", -0.1, "negative-value"), ("mfu_estimated_percent", 1.5, "out-of-range"),
    ("throttle_avg_util_limit_nc0_percent", 2.53, "percent-over-100"),
    ("neuroncore_frequency", -1.4e9, "negative-value"), ("total_time", "Infinity", "non-finite-value"),
    ("total_time", "NaN", "nan-value"), ("new_metric_bytes", -5, "negative-value"),
    ("train_loss", "-Infinity", "non-finite-value"),
])
def test_values_out_of_their_kinds_range_are_flagged(tmp_path, key, value, code):
    raw = value if isinstance(value, str) else json.dumps(value)
    (profile,) = neuroncmp.load(write(tmp_path, "v.json", f'{{"{key}": {raw}, "hbm_write_bytes": 1}}'))
    assert codes(profile, key) == [code]


def test_negative_memory_rows_are_flagged_on_their_type(tmp_path):
    table = "| ND Idx | NC Idx | Usage Type | Amount |\n| - | - | - | - |\n| 0 | 0 | io | -64 KiB |\n"
    (profile,) = neuroncmp.load(write(tmp_path, "m.memory.md", table))
    assert codes(profile, "memory.io") == ["negative-value"]


def test_values_in_range_are_not_flagged():
    for profile in neuroncmp.load(RUN):
        assert set(codes(profile)) <= {"percent-over-100"}


@pytest.mark.parametrize("content", ['{"n": {"x": null, "y": [1]}}', '{"n": {"train_loss": 1}}'])
def test_a_profile_without_a_single_value_is_an_error(tmp_path, content):
    with pytest.raises(ParseError, match="at least one"):
        neuroncmp.load(write(tmp_path, "s.json", content))


def test_an_empty_summary_list_is_an_error(tmp_path):
    with pytest.raises(ParseError, match="'summary'"):
        neuroncmp.load(write(tmp_path, "s.json", '{"summary": []}'))


def test_batch_size_zero_in_a_title_is_no_batch_size(tmp_path):
    text = "# Batch 0\n| Group | Name | Value |\n| - | - | - |\n| o | **total_time** | 1 **ms** |\n"
    (profile,) = neuroncmp.load(write(tmp_path, "e.md", text))
    assert profile.batch_size is None


def test_a_bad_batch_size_from_the_api_is_dropped_with_an_anomaly():
    from neuroncmp.ingest import validate
    from neuroncmp.model import Profile

    (loaded,) = neuroncmp.load(RUN / "b32.json")
    profile = Profile(loaded.source, loaded.label, {"batch_size": 2.5, "batch_size_source": "manifest"})
    validate.batch_size(profile)
    assert profile.batch_size is None and codes(profile) == ["bad-batch-size"]


def test_json_outputs_hold_no_nan_or_infinity_tokens(tmp_path):
    from click.testing import CliRunner

    from neuroncmp.cli import cli

    path = write(tmp_path, "odd.json", '{"n": {"total_time": NaN, "hbm_read_bytes": 1e400, "x_time": -Infinity}}')
    shown = CliRunner().invoke(cli, ["show", str(path), "--format", "json"])
    metric = strict(shown.output)["metrics"]["hbm_read_bytes"]
    assert metric["value"] is None and metric["non_finite"] == {"value": "Infinity"}
    out = tmp_path / "out.json"
    assert CliRunner().invoke(cli, ["diff", str(RUN / "b32.json"), str(path), "-o", str(out)]).exit_code == 0
    row = next(r for r in strict(out.read_text())["rows"] if r["metric"] == "total_time")
    step = row["step"]  # the variant's column: its first (only) entry named by its index
    assert step["value"] == [None] and step["non_finite"] == {"value[0]": "NaN"}
    assert row["display"] == ["NaN"] and row["baseline"]["step"] == 0.1147


# ---- containment: convert ---------------------------------------------------------------------

@pytest.mark.parametrize("label, stem", [("../../evil", "evil"), ("/abs/evil", "abs-evil"),
                                         ("manifest", "manifest-profile"), ("..", "profile")])
def test_convert_writes_only_inside_its_folder(tmp_path, label, stem):
    from click.testing import CliRunner

    from neuroncmp.cli import cli

    source = tmp_path / "in"
    source.mkdir()
    report = write(source, "report.md", "# A\n| Group | Name | Value |\n| - | - | - |\n"
                                        "| overall_stats | **total_time** | 53.78 **ms** |\n")
    (source / "manifest.json").write_text(json.dumps({"schema": "neuroncmp.manifest/1", "profiles": [
        {"file": "report.md", "label": label}]}))
    out = tmp_path / "a" / "out"
    result = CliRunner().invoke(cli, ["convert", str(report), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in out.iterdir()) == sorted([f"{stem}.json", "manifest.json", "report.md"])
    assert sorted(p.name for p in tmp_path.rglob("*") if p.is_file()) == sorted(
        ["report.md", "manifest.json", f"{stem}.json", "manifest.json", "report.md"])


def test_convert_replaces_a_symlink_in_its_folder_instead_of_writing_through_it(tmp_path):
    from neuroncmp.render.convert_folder import convert

    outside = tmp_path / "precious.txt"
    outside.write_text("keep me")
    out = tmp_path / "out"
    out.mkdir()
    (out / "b32.json").symlink_to(outside)
    report = write(tmp_path, "report.md", "(the report converted)")
    convert(neuroncmp.load(RUN / "b32.json"), report, out)
    assert outside.read_text() == "keep me" and not (out / "b32.json").is_symlink()


def test_an_infinite_value_neither_sets_the_row_scale_nor_gets_a_size_of_change(tmp_path):
    """1e400 against 5e9 bytes: the row reads in GiB (5e9 / 2**30 = 4.657), the change is n/a and
    the cell suspect (!), not ``+nan%`` in TiB."""
    from click.testing import CliRunner

    from neuroncmp.cli import cli

    a = write(tmp_path, "a.json", '{"n": {"total_time": 0.1, "hbm_read_bytes": 1e400}}')
    b = write(tmp_path, "b.json", '{"n": {"total_time": 0.2, "hbm_read_bytes": 5e9}}')
    markdown = CliRunner().invoke(cli, ["diff", str(a), str(b), "--format", "md"]).output
    assert f"| `hbm_read_bytes` | inf | {5e9 / 2**30:.3f} GiB (n/a ! suspect) |" in markdown
    assert "nan%" not in markdown


# ---- the sweep analysis on values at the edge of a float (fuzzing, 10,000 inputs per format) ------

SWEEP_EDGES = {
    # an infinite ridge made the profile's bandwidth 0, and the ridge peak / 0
    "infinite ridge": {f"{name}.json": {"peak_flops_bandwidth_ratio": "1e400"}
                       for name in ("baseline", "b2", "b4", "b16", "b32", "b32-cc-optim", "b48", "b64")},
    # 5e-324 s: device throughput overflowed to an infinity, and the bar chart's length to NaN
    "5e-324 s step": {"b64.json": {"total_time": "5e-324"}},
    # no HBM reads: the spill share cannot be computed, and the rule compared None with 0.25
    "no HBM reads": {"b32.json": {"hbm_read_bytes": "0"}, "b48.json": {"hbm_read_bytes": "0"}},
    # finite Trainer values whose product (steps) is an infinity: round(inf) in the outside-graph fit
    "steps overflow": {"b32.all_results.json": {"train_runtime": "1e300", "train_steps_per_second": "1e300"}},
}


def _edited_run(tmp_path, edits):
    import re
    import shutil

    run = tmp_path / "run"
    shutil.copytree(RUN, run)
    for name, changes in edits.items():
        text = (run / name).read_text()
        for key, raw in changes.items():
            if name.endswith(".md"):
                text, count = re.subn(rf"(\| {key} \| )[^|]+\|", rf"\g<1>{raw} |", text, count=1)
            else:
                text, count = re.subn(rf'("{key}": )[-0-9.e+]+', rf"\g<1>{raw}", text, count=1)
            assert count == 1, (name, key)
        (run / name).write_text(text)
    return run


@pytest.mark.parametrize("edits", SWEEP_EDGES.values(), ids=SWEEP_EDGES.keys())
def test_the_sweep_and_its_diff_survive_values_at_the_edge_of_a_float(tmp_path, edits):
    """Each crashed the sweep (library, `sweep`, or the findings under `diff`) before; now every
    format renders, and the JSON stays strict."""
    from click.testing import CliRunner

    from neuroncmp.cli import cli

    run = _edited_run(tmp_path, edits)
    for args in (["sweep", str(run)], ["sweep", str(run), "--format", "json"], ["diff", str(run)],
                 ["diff", str(run), "--format", "html"]):
        result = CliRunner().invoke(cli, args)
        assert result.exit_code == 0 and result.exception is None, (args, result.output[-500:])
        if "json" in args:
            strict(result.output)
    analysed = neuroncmp.sweep(neuroncmp.load(run))
    assert math.isfinite(analysed.roof.ridge) and analysed.roof.bandwidth > 0


def test_memory_rows_whose_sum_is_beyond_a_float_derive_without_overflow():
    """Explorer's usage_bytes of 1e308 on two rows: the integer total (2e308) is beyond a float,
    and ``math.isfinite`` raised OverflowError on it; the total is left out of the derived inputs."""
    import dataclasses

    profile = neuroncmp.load(RUN / "b32.json")[0]
    first = profile.memory[0]  # the same usage type on two cores: summed
    huge = [first._replace(bytes=10**308), first._replace(bytes=10**308, core=1), *profile.memory[1:]]
    edged = dataclasses.replace(profile, memory=huge)
    assert edged.memory_metrics()[f"memory.{first.usage_type}"].value == 2 * 10**308
    assert edged.derived_metrics().keys() == profile.derived_metrics().keys()
    assert neuroncmp.sweep([edged, *neuroncmp.load(RUN / "b64.json")]).table


def test_json_documents_hold_the_value_and_depth_limits(monkeypatch):
    # '{"a": 1, "b": {"c": 2}}' holds 3 members; '{"a": {"b": {"c": 2}}}' nests 3 objects deep
    from neuroncmp.ingest import decode

    monkeypatch.setenv("NEURONCMP_MAX_VALUES", "2")
    with pytest.raises(NeuroncmpError, match="more than 2 JSON values"):
        decode.documents('{"a": 1, "b": {"c": 2}}', "f.json")
    monkeypatch.delenv("NEURONCMP_MAX_VALUES")
    monkeypatch.setenv("NEURONCMP_MAX_JSON_DEPTH", "2")
    with pytest.raises(NeuroncmpError, match="JSON nested 3 deep"):
        decode.documents('{"a": {"b": {"c": 2}}}', "f.json")

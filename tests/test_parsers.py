"""Each parser on real or faithfully constructed input, and every kind of bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import FIXTURES, RUN

import neuroncmp
from neuroncmp.errors import NeuroncmpError, NoProfileError, ParseError, UnknownFormatError
from neuroncmp.ingest.registry import parsers


def _b32_block():
    return next(iter(json.loads((RUN / "b32.json").read_text()).values()))


def test_public_sample_summary_json_flat():
    (profile,) = neuroncmp.load(FIXTURES / "summary-json_trimmed_trn1.2xlarge_profiler-2.29.18.json")
    assert profile.source.format == "summary-json"
    assert profile.metrics["total_time"].quantity.to("ms").m == pytest.approx(213.808050051)
    assert profile.metrics["vector_engine_active_time_percent"].value == pytest.approx(0.9645396092701302)
    assert profile.metrics["hbm_read_bytes"].value == 6582249472
    assert profile.metrics["runtime_version"].value == "2.31.24 (0b044)"
    assert profile.uncatalogued() == []
    assert [a.code for a in profile.anomalies] == []  # cycles/1.4 GHz = 213.81 ms = total_time


def test_summary_json_with_several_wrapper_keys(tmp_path):
    block = _b32_block()
    path = tmp_path / "two.json"
    path.write_text(json.dumps({"n_aaa": block, "n_bbb": dict(block, total_time=0.2)}))
    first, second = neuroncmp.load(path)
    assert (first.source.section, second.source.section) == ("n_aaa", "n_bbb")
    assert second.metrics["total_time"].value == 0.2


def test_summary_json_nan_and_unknown_metric_are_kept(tmp_path):
    path = tmp_path / "b8.json"
    path.write_text('{"n_x": {"total_time": NaN, "brand_new_metric_bytes": 2048, "odd": "x"}}')
    (profile,) = neuroncmp.load(path)
    assert profile.batch_size == 8 and profile.params["batch_size_source"] == "file name"
    assert [a.code for a in profile.anomalies] == ["nan-value"]
    assert profile.metrics["brand_new_metric_bytes"].quantity.to("KiB").m == 2
    assert sorted(profile.uncatalogued()) == ["brand_new_metric_bytes", "odd"]


def test_summary_text_matches_summary_json(tmp_path):
    block = _b32_block()
    path = tmp_path / "b32.txt"
    path.write_text("".join(f"{key}  {block[key]}\n" for key in sorted(block)))
    (text_profile,) = neuroncmp.load(path)
    (json_profile,) = neuroncmp.load(RUN / "b32.json", format="summary-json")
    assert text_profile.source.format == "summary-text"
    assert {k: m.value for k, m in text_profile.metrics.items()} == \
        {k: m.value for k, m in json_profile.metrics.items() if m.group != "host_memory"}


def test_trainer_text_block(tmp_path):
    seed_block = (RUN / "003_a8d02f199ef107f4.txt").read_text().split("```")[1]
    path = tmp_path / "train.log"
    path.write_text(seed_block)
    (profile,) = neuroncmp.load(path)
    assert profile.source.format == "trainer-text"
    assert profile.training["train_runtime"].value == pytest.approx(254.32)
    assert profile.training["total_flos"].value == 1470300 * 2**30
    assert profile.training["train_samples_per_second"].unit == "sample/s"


def test_trainer_json_sidecar():
    (profile,) = neuroncmp.load(RUN / "b32.all_results.json")
    assert profile.source.format == "trainer-json" and profile.label == "b32"
    assert profile.training["train_runtime"].value == pytest.approx(174.6)


def test_neuron_monitor_report():
    (profile,) = neuroncmp.load(FIXTURES / "neuron-monitor-report.json")
    assert profile.source.format == "neuron-monitor"
    assert profile.metrics["neuroncore_utilization_nc0_percent"].value == pytest.approx(0.8725)
    assert profile.metrics["neuroncore_flops_nc0"].quantity.to("TFLOP/s").m == pytest.approx(18.75)
    # neuron_device (the runtime's device bytes) is the memory table's total row: the sum of the
    # per-core rows, as in every real report (tests/test_neuron_monitor.py)
    assert profile.memory_total() == 5552920576 and not profile.anomalies
    assert profile.metrics["device_used_memory_total"].value == 5552920576
    assert profile.metadata["lnc_config"] == 1 and profile.metadata["neuroncore_per_device_count"] == 2
    scratch = [r for r in profile.memory if r.usage_type == "shared_scratchpad"]
    assert [(r.core, r.bytes) for r in scratch] == [(0, 3758096384), (1, 0)]
    assert profile.memory_by_type()["model_code"] == 102422528 + 100663296


def test_neuron_monitor_json_lines(tmp_path):
    line = (FIXTURES / "neuron-monitor-report.json").read_text().strip()
    path = tmp_path / "monitor.jsonl"
    path.write_text(line + "\n" + line + "\n")
    assert [p.label for p in neuroncmp.load(path)] == ["monitor-0", "monitor-1"]


def test_markdown_memory_sidecar_alone():
    (profile,) = neuroncmp.load(RUN / "b32.memory.md")
    assert len(profile.memory) == 23 and profile.memory_total() == round(7.742 * 2**30)
    assert profile.metrics["device_used_memory_total"].quantity.to("GiB").m == pytest.approx(10.6, abs=1e-9)


def test_formats_registry_lists_every_parser():
    names = {p.name for p in parsers()}
    assert names == {"summary-json", "summary-text", "ui-markdown", "explorer-parquet",
                     "neuron-monitor", "trainer-json", "trainer-text", "view-json"}


# ---- bad input --------------------------------------------------------------------------------

BAD = {
    "empty.json": (b"", ParseError, "empty file"),
    "truncated.json": (b'{"n_a": {"total_time": 0.1, ', ParseError, "line 1"),
    "junk.json": (bytes(range(256)) * 4, ParseError, "binary"),
    "junk.txt": (b"\xfa\xff\xfe" * 50, ParseError, "UTF-8"),  # (FF FE first would be a UTF-16 BOM)
    "wrongtype.json": (b'{"n_a": {"total_time": "fast"}}', ParseError, "key 'total_time'"),
    "list.json": (b"[1, 2, 3]", NoProfileError, "summary-json: a JSON object"),
    "notables.md": (b"# Baseline\n\njust some words\n", NoProfileError, "no Neuron profile"),
    "mystery.xyz": (b"hello there, nothing Neuron here\n", NoProfileError, "no Neuron profile"),
    "badamount.md": (b"| ND Idx | NC Idx | Usage Type | Amount |\n| - | - | - | - |\n| 0 | 0 | io | lots |\n",
                     ParseError, "line 3"),
    "badunit.md": (b"| Group | Name | Value |\n| - | - | - |\n| overall_stats | **total_time** | 3 **GiB** |\n",
                   ParseError, "total_time"),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_input_names_file_and_place(tmp_path, name):
    content, error, fragment = BAD[name]
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(error) as caught:
        neuroncmp.load(path)
    assert str(path) in str(caught.value) and fragment in str(caught.value)


def test_unknown_forced_format():
    with pytest.raises(UnknownFormatError, match="known formats"):
        neuroncmp.load(RUN / "b32.json", format="nope")


def test_missing_file():
    with pytest.raises(NeuroncmpError, match="no such file"):
        neuroncmp.load("does/not/exist.json")


def test_nanoseconds_convert_to_seconds_exactly():
    """A ``_ns`` key is read in seconds, the raw text kept: 12,345 ns = 1.2345e-05 s; 2**53 + 1 ns =
    9007199.254740993 s (the nearest float to 9,007,199.254740993)."""
    from neuroncmp.ingest.values import raw_metric

    assert raw_metric("p", "w", "throttle_active_nc0_time_ns", 12_345).value == 1.2345e-05
    assert raw_metric("p", "w", "throttle_active_nc0_time_ns", 2**53 + 1).value == 9007199.254740993
    assert raw_metric("p", "w", "throttle_active_nc0_time_ns", 12_345).raw == "12345"


def test_a_file_that_grows_while_read_is_read_as_one_full_read_would(tmp_path, monkeypatch):
    import os

    from neuroncmp.errors import LimitError
    from neuroncmp.ingest import decode

    data = bytes(range(256)) * 40
    (tmp_path / "f").write_bytes(data)
    real = os.fstat
    for size in (0, 10, len(data) - 1, len(data), len(data) + 5):  # the size fstat said, then it grew or shrank
        def stale(fd, size=size):
            info = real(fd)
            return os.stat_result((*info[:6], size, *info[7:]))
        with monkeypatch.context() as patched:
            patched.setattr(decode.os, "fstat", stale)
            assert decode.read_bytes(tmp_path / "f") == data
    monkeypatch.setenv("NEURONCMP_MAX_INPUT_MB", "1")  # 1 MiB read whole, a byte more refused
    (tmp_path / "f").write_bytes(data * (2**20 // len(data)) + data[:2**20 % len(data)])
    assert len(decode.read_bytes(tmp_path / "f")) == 2**20
    (tmp_path / "f").write_bytes(data * (2**20 // len(data)) + data[:2**20 % len(data) + 1])
    with pytest.raises(LimitError, match="NEURONCMP_MAX_INPUT_MB"):
        decode.read_bytes(tmp_path / "f")


def test_inside_remembered_a_folders_manifest_gives_what_it_gives_outside(tmp_path):
    import shutil

    from neuroncmp.ingest import manifest

    shutil.copytree(RUN, tmp_path / "run")
    files = [tmp_path / "run" / name for name in ("b4.json", "b16.json", "b32.json")]
    outside = [neuroncmp.load(file) for file in files]
    with manifest.remembered():
        inside = [neuroncmp.load(file) for file in files]
        assert [manifest.entry_for(file).fields["file"] for file in files] == [f.name for f in files]
    assert repr(inside) == repr(outside)
    assert [p.batch_size for (p,) in inside] == [4, 16, 32]  # the manifest's batch sizes
    (tmp_path / "run" / "manifest.json").write_text("{")  # a manifest that cannot be read: each look says so
    with manifest.remembered():
        for _ in range(2):
            with pytest.raises(ParseError, match=r"manifest\.json"):
                neuroncmp.load(files[0])


UI_SWEEP = Path(__file__).parent / "data" / "third_party" / "ui-markdown" / \
    "trn1.2xlarge_profiler-2.26_bert-base_batch32_padding-sweep.md"


def test_ui_export_sub_sections_with_their_own_runs_are_profiles_of_their_own():
    """'# Batch 32 Fixed' with '## Padding 16/32/64/128', each with its Trainer block (values read
    from the file by hand); only 'Padding 32' holds the summary and memory tables."""
    profiles = neuroncmp.load(UI_SWEEP)
    assert [(p.label, p.batch_size) for p in profiles] == [
        ("b32-fixed-padding-16", 32), ("b32-fixed-padding-32", 32), ("b32-fixed-padding-64", 32),
        ("b32-fixed-padding-128", 32)]
    assert [p.training["train_samples_per_second"].value for p in profiles] == [199.059, 194.87, 168.3, 136.737]
    assert [bool(p.metrics) for p in profiles] == [False, True, False, False]
    assert profiles[1].memory_total() is not None
    assert not [a for p in profiles for a in p.anomalies if a.code == "duplicate-metric"]


def test_a_sub_heading_without_a_run_of_its_own_does_not_split_its_section(tmp_path):
    text = UI_SWEEP.read_text(encoding="utf-8")
    start = text.index("## Padding 32")
    end = text.index("## Padding 64")
    path = tmp_path / "one.md"
    path.write_text("# Batch 32 Fixed\n\n## Setup\n\nnotes only\n\n" + text[start:end], encoding="utf-8")
    (profile,) = neuroncmp.load(path)
    assert profile.label == "b32-fixed" and profile.training["train_samples_per_second"].value == 194.87

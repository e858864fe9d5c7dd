"""The full ``neuron-profile view --output-format json`` document (issue 20, class 2).

Values below were read from the files by hand (``python -c 'import json; ...'`` on the section
named in each comment) and checked: the ``nc_mem_usage`` rows of each core sum to its ``Total``
row (2518828884 B for the inf2 sample; 3093768016 + 2556274952 B over cores 4 and 5 on trn2).
Samples: inf2.xlarge, profiler 2.27 (shared/samples, AnchovyPark/npu_profiling_code) and
trn2.3xlarge, profiler 2.28 (tests/data/third_party/view-json, see its SOURCES).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

import neuroncmp
from neuroncmp.cli import cli
from neuroncmp.errors import ParseError
from neuroncmp.ingest.formats import view_json

INF2 = Path("/work/shared/samples/neuron-profile/view-json/profile_128x128x384.json")
TRN2 = Path(__file__).parent / "data" / "third_party" / "view-json" / \
    "trn2.3xlarge_profiler-2.28_attention_baseline_bf16_s512.json"
DMA_WARNING = ("Missing additional dynamic DMA metadata, reported DMA values may be inaccurate. Try "
               "capturing the profile with --enable-dge-notifs or NEURON_RT_ENABLE_DGE_NOTIFICATIONS=1 env flag.")


@pytest.fixture(scope="module")
def inf2(tmp_path_factory):
    if not INF2.exists():
        pytest.skip("shared samples not beside the repository")
    path = tmp_path_factory.mktemp("view") / INF2.name
    shutil.copy(INF2, path)
    (profile,) = neuroncmp.load(path)
    return profile


@pytest.fixture(scope="module")
def trn2():
    (profile,) = neuroncmp.load(TRN2)
    return profile


def test_inf2_summary_metadata_and_identity(inf2):
    assert inf2.source.format == "view-json"
    assert inf2.metrics["total_time"].value == 0.001868331737  # summary[0].total_time
    assert inf2.metrics["hbm_read_bytes"].value == 163840
    assert inf2.metrics["mfu_estimated_percent"].value == 7.340391132201655e-05
    assert inf2.info("instance_type") == "inf2.xlarge"
    assert inf2.info("profiler_version") == "2.27.33.0%kaena-tools/2.27@5d9c0b9"  # profile_info
    assert inf2.metadata["neff_hash"] == "9f514ac7c973c4ac81709183164f0d6e"  # neff_header.hash
    assert inf2.metadata["neff"] == "/tmp/neuron_matmul_128x128x384/graph.neff"
    assert inf2.info("hbm_ddr_bandwidth") == 410_000_000_000  # metadata, bytes/s of one stack
    assert inf2.info("num_physical_cores") == 1 and inf2.info("lnc_config") == 1


def test_inf2_device_memory_mapped_like_every_memory_source(inf2):
    by_type = inf2.memory_by_type()
    assert inf2.memory_total() == 2518828884  # the Total row
    assert by_type["profiler_buffers"] == 2415920128  # "Profiler Buffers"
    assert by_type["ucode"] == 102439116  # "Ucode lib", the UI's "ucode"
    assert by_type["tensors"] == 229376 and by_type["tensor_instructions"] == 5888  # Tensors / Tensor Instructions
    assert by_type["dram_spill"] == 0 and by_type["dma_rings_spill"] == 32768
    assert by_type["xt_cc"] == 0 and by_type["gpsimd_stdio"] == 1088
    assert len(inf2.memory) == 23 and {row.core for row in inf2.memory} == {0}
    assert not [a for a in inf2.anomalies if a.code == "memory-total-mismatch"]


def test_inf2_warnings_are_notes(inf2):
    assert inf2.notes == [f"profiler warning: Missing Data: {DMA_WARNING}",
                          "profiler warning: Missing Data: Current NEFF is missing compiler metrics. "
                          "Please re-compile using latest version of the compiler"]


def test_big_sections_are_counted_not_kept(inf2):
    skipped = {s.where: s.text for s in inf2.skipped if s.where.startswith("section")}
    assert skipped["section 'instruction'"] == "127 rows"
    assert skipped["section 'dma'"] == "260 rows"
    assert skipped["section 'layer_summary'"] == "2 rows"
    assert skipped["section 'active_time'"] == "86 rows"


def test_trn2_two_cores_memory_and_lnc(trn2):
    assert trn2.metrics["total_time"].value == 5.4276582e-05
    assert trn2.info("instance_type") == "trn2.3xlarge"
    assert trn2.metadata["neff_hash"] == "7b1347762881aeccd977c60c08eba6a4"
    assert trn2.info("hbm_ddr_bandwidth") == 716_000_000_000
    assert trn2.info("lnc_config") == 2  # neff_header.number_of_neuroncores_per_lnc "2"
    assert trn2.memory_total() == 3093768016 + 2556274952  # Total rows of cores 4 and 5
    assert trn2.memory_by_type()["profiler_buffers"] == 2 * 2554331136
    assert trn2.memory_by_type()["shared_scratchpad"] == 536870912
    assert {row.core for row in trn2.memory} == {4, 5}
    assert len(trn2.notes) == 3 and trn2.notes[0].endswith(DMA_WARNING)
    skipped = {s.where: s.text for s in trn2.skipped}
    assert skipped["section 'dma'"] == "2,670 rows" and skipped["section 'instruction'"] == "452 rows"


def test_show_lists_the_warnings_and_the_memory():
    result = CliRunner().invoke(cli, ["show", str(TRN2), "--no-color", "--width", "200"])
    assert result.exit_code == 0, result.output
    flat = " ".join(result.output.split())  # long notes wrap at the width
    assert "neff_hash=7b1347762881aeccd977c60c08eba6a4" in flat and "lnc_config=2" in flat
    assert f"note: profiler warning: Missing Data: {DMA_WARNING}" in flat
    assert "profiler buffers" in flat.lower()


def test_diff_warnings_carry_the_profilers_warning_once_with_its_sides():
    other = TRN2.with_name("trn2.3xlarge_profiler-2.28_attention_fused_bf16_s512.json")
    result = CliRunner().invoke(cli, ["diff", str(TRN2), str(other), "--format", "json"])
    assert result.exit_code == 0, result.output
    warned = [w for w in json.loads(result.output)["warnings"] if "the profiler warns" in w]
    assert len(warned) == len({w.split("warns: ", 1)[1] for w in warned})  # one line per warning
    assert any(w.endswith(f"the profiler warns: Missing Data: {DMA_WARNING}") and w.count(",") >= 1
               for w in warned)


def test_sniff_knows_the_document_by_any_section_first():
    for name in sorted(view_json.SECTIONS):
        assert view_json.sniff(f'{{"{name}": [{{"x": 1}}]}}')
    assert view_json.sniff('{"a_section_of_a_later_profiler": [], "neff_header": [{"hash": "x"}]}')
    assert not view_json.sniff('{"n_abc": {"total_time": 1}}')  # summary-json
    assert not view_json.sniff('{"neuron_runtime_data": []}')  # neuron-monitor


def test_a_view_document_without_summary_says_so(tmp_path):
    path = tmp_path / "v.json"
    path.write_text('{"instruction": [{"opcode": "MATMUL"}], "nc_mem_usage": []}', encoding="utf-8")
    with pytest.raises(ParseError, match=r"section 'summary'.*a list of one or more profile objects"):
        neuroncmp.load(path)


def test_damaged_view_document_names_line_and_column(tmp_path):
    path = tmp_path / "v.json"
    path.write_text('{"instruction": [1, 2,\n ], "summary": [{"total_time": 1}]}', encoding="utf-8")
    with pytest.raises(ParseError, match="line 2 column 2"):
        neuroncmp.load(path)


def test_a_view_document_inside_tool_log_lines_reads_the_same(tmp_path):
    text = TRN2.read_text(encoding="utf-8")
    log = ('time="2026-03-07T07:38:30Z" level=info msg="Successfully initialized OpenAPI server '
           'configuration." basePath=/api/v2 version=v2\n')
    path = tmp_path / "view.log"
    path.write_text(log + text + "\n" + log, encoding="utf-8")
    (wrapped,) = neuroncmp.load(path)
    (clean,) = neuroncmp.load(TRN2)
    assert wrapped.source.format == "view-json"
    assert {k: m.raw for k, m in wrapped.metrics.items()} == {k: m.raw for k, m in clean.metrics.items()}
    assert wrapped.memory == clean.memory and wrapped.notes == clean.notes
    assert [s.where for s in wrapped.skipped[:1]] == ["line 1"]


def test_two_view_documents_in_one_file_are_two_profiles(tmp_path):
    other = TRN2.with_name("trn2.3xlarge_profiler-2.28_attention_fused_bf16_s512.json")
    path = tmp_path / "two.json"
    path.write_text(TRN2.read_text(encoding="utf-8") + "\n" + other.read_text(encoding="utf-8"),
                    encoding="utf-8")
    one, two = neuroncmp.load(path)
    assert (one.label, two.label) == ("two-1", "two-2")
    assert one.metrics["total_time"].value == 5.4276582e-05  # the baseline's summary[0].total_time
    assert two.metrics["total_time"].value == json.loads(other.read_text(encoding="utf-8"))["summary"][0]["total_time"]
    assert two.memory and two.notes


def test_an_integer_beyond_pythons_conversion_limit_in_a_skipped_section(tmp_path):
    """Found by the fuzz run: a 5,000-digit integer in a section only counted crashed the plain
    decoder (Python refuses int() of more than 4,300 digits); it is read like any long integer."""
    path = tmp_path / "v.json"
    path.write_text('{"instruction": [' + "7" * 5000 + '], "summary": [{"total_time": 0.5}]}', encoding="utf-8")
    (profile,) = neuroncmp.load(path)
    assert profile.metrics["total_time"].value == 0.5
    assert [s.text for s in profile.skipped if s.where == "section 'instruction'"] == ["1 row"]
    wrapped = tmp_path / "w.log"
    wrapped.write_text('level=info msg="x"\n{"n_a": {"total_time": 0.5, "big": ' + "7" * 5000 + "}}\n",
                       encoding="utf-8")
    (profile,) = neuroncmp.load(wrapped)
    assert profile.metrics["total_time"].value == 0.5


def test_the_depth_limit_applies_to_the_sections_read(tmp_path):
    from neuroncmp.errors import LimitError

    deep = "[" * 70 + "]" * 70  # beyond the default 64 levels
    path = tmp_path / "v.json"
    path.write_text('{"instruction": ' + deep + ', "summary": [{"total_time": 0.5}]}', encoding="utf-8")
    (profile,) = neuroncmp.load(path)  # a section only counted: not decoded into objects
    assert profile.metrics["total_time"].value == 0.5
    path.write_text('{"warnings": ' + deep + ', "summary": [{"total_time": 0.5}]}', encoding="utf-8")
    with pytest.raises(LimitError, match="NEURONCMP_MAX_JSON_DEPTH"):
        neuroncmp.load(path)

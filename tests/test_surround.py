"""Profiles found by content inside the text people save around them (issue 20, class 1).

Real data: the trimmed trn1 summary-json (tests/fixtures, from trnsci/trnblas), the trn2 summary
and the tool's own log lines of the gather folder (tests/data/third_party/derived: the log lines
are what neuron-profile 2.28 printed), the inf2 summary-text excerpt. Each wrapped file is built
here from the clean one, so the expected values are the clean file's, read by ``json`` itself.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import FIXTURES

import neuroncmp
from neuroncmp.cli import cli
from neuroncmp.errors import NoProfileError, ParseError
from neuroncmp.ingest.surround import unwrap

THIRD = Path(__file__).parent / "data" / "third_party"
CLEAN = FIXTURES / "summary-json_trimmed_trn1.2xlarge_profiler-2.29.18.json"
TOOL_LOG_FILE = THIRD / "derived" / "trn2.3xlarge_summary-json_with-tool-log-lines.txt"
RUNNER_LOG = THIRD / "derived" / "trn2.3xlarge_runner-log_summary-json.log"
SUMMARY_TEXT = THIRD / "summary-text" / "inf2_neuron-profile_summary-text_vllm-qwen3-reranker_excerpt.txt"
LOG = TOOL_LOG_FILE.read_text(encoding="utf-8").splitlines()[:2]  # info + warning, as printed
WARNING = "Missing additional dynamic DMA metadata, reported DMA values may be inaccurate."


def _clean_values(path: Path = CLEAN) -> dict:
    data = json.loads(path.read_text(encoding="utf-8"))
    return data if all(not isinstance(v, dict) for v in data.values()) else next(iter(data.values()))


def _wrappers(body: str) -> dict[str, tuple[str, list[str]]]:
    """File name -> (text, the 'where' of every Skipped the surrounding text must give)."""
    compact = json.dumps(json.loads(body))
    n = body.count("\n") + 1
    colour = [f"\x1b[33m{LOG[0]}\x1b[0m", f"\x1b[1;31m{LOG[1]}\x1b[0m"]
    return {
        "tool-log-before.json": ("\n".join(LOG) + "\n" + body, ["lines 1-2"]),
        "tool-log-after.txt": (body + "\n" + "\n".join(LOG) + "\n", [f"lines {n + 1}-{n + 2}"]),
        "runner.log": (f"COMMAND: neuron-profile view -n a.neff -s a.ntff --output-format summary-json\n"
                       f"STDOUT:\n{body}\nSTDERR:\n" + "\n".join(LOG) + "\n",
                       ["lines 1-2", f"lines {n + 3}-{n + 5}"]),
        "labelled.log": ("STDOUT: " + compact + "\n" + "\n".join(LOG) + "\n", ["lines 2-3"]),
        "ansi.log": ("\n".join(colour) + "\n" + body + "\n", ["lines 1-2"]),
        "bom-crlf.txt": ("\ufeff" + ("\n".join(LOG) + "\n" + body).replace("\n", "\r\n"), ["lines 1-2"]),
    }


BODY = CLEAN.read_text(encoding="utf-8").strip()


@pytest.mark.parametrize("name", sorted(_wrappers(BODY)))
def test_wrapped_summary_json_reads_as_the_clean_file(tmp_path, name):
    text, where = _wrappers(BODY)[name]
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8"))
    (profile,) = neuroncmp.load(path)
    expected = _clean_values()
    assert profile.source.format == "summary-json"
    assert {key: profile.metrics[key].raw for key in expected} == {k: str(v) for k, v in expected.items()}
    assert [s.where for s in profile.skipped] == where
    assert any(WARNING in note for note in profile.notes)  # the tool's warning line, kept as a note


def test_the_skipped_entry_counts_its_lines_and_names_what_they_were(tmp_path):
    text, _ = _wrappers(BODY)["runner.log"]
    (tmp_path / "r.log").write_text(text, encoding="utf-8")
    (profile,) = neuroncmp.load(tmp_path / "r.log")
    first, last = profile.skipped[:2]
    assert first.reason == "2 lines around the profile (runner output)" and first.text.startswith("COMMAND:")
    assert last.reason == "3 lines around the profile (runner output)" and last.text == "STDERR:"


def _show_metrics(path: Path) -> dict:
    result = CliRunner().invoke(cli, ["show", str(path), "--format", "json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)["metrics"]


def _diff_numbers(a: Path, b: Path) -> list:
    result = CliRunner().invoke(cli, ["diff", str(a), str(b), "--format", "json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    return [data["headline"], data["rows"], data["tally"]]


def test_show_and_diff_give_the_clean_files_numbers(tmp_path):
    """The acceptance: ``show`` and ``diff`` on summary-json wrapped in the tool's log lines
    (and in a runner file) give the same numbers as on the clean files."""
    trn2 = json.dumps({"fused_exec_2": _runner_json(RUNNER_LOG)}, indent=2)
    clean, wrapped = tmp_path / "clean", tmp_path / "wrapped"
    clean.mkdir()
    wrapped.mkdir()
    (clean / "trn1.json").write_text(BODY, encoding="utf-8")
    (clean / "trn2.json").write_text(trn2, encoding="utf-8")
    (wrapped / "trn1.json").write_text(_wrappers(BODY)["tool-log-before.json"][0], encoding="utf-8")
    (wrapped / "trn2.json").write_text(_wrappers(trn2)["runner.log"][0], encoding="utf-8")
    for name in ("trn1.json", "trn2.json"):
        assert _show_metrics(wrapped / name) == _show_metrics(clean / name)
    assert _diff_numbers(wrapped / "trn1.json", wrapped / "trn2.json") == \
        _diff_numbers(clean / "trn1.json", clean / "trn2.json")


def _runner_json(path: Path) -> dict:
    """The JSON between ``STDOUT:`` and ``STDERR:`` of the gather folder's runner log, cut by hand."""
    text = path.read_text(encoding="utf-8")
    body = text.split("STDOUT:\n", 1)[1].split("\nSTDERR:", 1)[0]
    return next(iter(json.loads(body).values()))


def test_gather_folder_wrapped_files_read_as_their_json():
    expected = _runner_json(RUNNER_LOG)
    for path in (RUNNER_LOG, TOOL_LOG_FILE):
        (profile,) = neuroncmp.load(path)
        assert {k: profile.metrics[k].raw for k in expected if k in profile.metrics} == \
            {k: str(v) for k, v in expected.items() if k in profile.metrics}
        assert len(profile.metrics) == len(expected)


def test_two_view_outputs_in_one_log_are_two_profiles(tmp_path):
    first = json.loads(BODY)
    second = {"fused_exec_2": _runner_json(RUNNER_LOG)}
    text = ("\n".join(LOG) + "\n" + json.dumps(first, indent=2) + "\n" + "\n".join(LOG) + "\n"
            + json.dumps(second, indent=2) + "\n")
    path = tmp_path / "two.log"
    path.write_text(text, encoding="utf-8")
    one, two = neuroncmp.load(path)
    assert one.metrics["total_time"].raw == str(first["total_time"])
    assert two.metrics["total_time"].raw == str(second["fused_exec_2"]["total_time"])
    assert one.label != two.label and two.source.section.startswith("document 2")


def test_two_documents_without_text_between_are_two_profiles_too(tmp_path):
    path = tmp_path / "two.json"
    path.write_text(BODY + "\n" + BODY + "\n", encoding="utf-8")
    assert [p.metrics["total_time"].raw for p in neuroncmp.load(path)] == \
        [str(_clean_values()["total_time"])] * 2


def test_summary_text_inside_tool_log_lines(tmp_path):
    clean = neuroncmp.load(SUMMARY_TEXT)[0]
    path = tmp_path / "st.log"
    path.write_text("\n".join(LOG) + "\n" + SUMMARY_TEXT.read_text(encoding="utf-8") + "\n".join(LOG),
                    encoding="utf-8")
    (wrapped,) = neuroncmp.load(path)
    assert wrapped.source.format == "summary-text"
    assert {k: m.raw for k, m in wrapped.metrics.items()} == {k: m.raw for k, m in clean.metrics.items()}
    assert [s.where for s in wrapped.skipped][:1] == ["lines 1-2"]


def test_a_runner_log_with_no_profile_names_what_was_looked_for(tmp_path):
    path = tmp_path / "run.log"
    path.write_text("COMMAND: python train.py\nSTDOUT:\nepoch 1 loss 0.5\nSTDERR:\n" + "\n".join(LOG),
                    encoding="utf-8")
    with pytest.raises(NoProfileError) as caught:
        neuroncmp.load(path)
    message = str(caught.value)
    assert str(path) in message and "no Neuron profile found" in message
    assert "summary-json: a JSON object" in message and "trainer-text: a '***** train metrics *****' line" in message
    assert "view-json: a JSON object whose first key" in message


def test_damaged_json_inside_log_lines_names_its_own_line(tmp_path):
    path = tmp_path / "bad.log"
    path.write_text("\n".join(LOG) + '\n{"n_a": {"total_time": 0.1,,}}\n', encoding="utf-8")
    with pytest.raises(ParseError, match="line 3 column"):
        neuroncmp.load(path)


def test_a_cut_json_file_still_gets_the_json_error_not_an_inner_object(tmp_path):
    path = tmp_path / "cut.json"
    path.write_text('{\n  "n_a": {\n    "total_time": 0.1,\n', encoding="utf-8")
    with pytest.raises(ParseError, match="valid JSON"):
        neuroncmp.load(path)


def test_a_clean_file_passes_through_unchanged():
    text = CLEAN.read_text(encoding="utf-8")
    assert unwrap(text).text == text and unwrap(text).skipped == ()


def test_a_format_that_reads_one_document_says_so_at_the_second(tmp_path):
    trainer = (Path(__file__).resolve().parent.parent / "profiles" / "trn1-2xlarge-bs-sweep" /
               "b32.all_results.json").read_text(encoding="utf-8").strip()
    path = tmp_path / "all_results.json"
    path.write_text(trainer + "\n" + trainer + "\n", encoding="utf-8")
    line = trainer.count("\n") + 2
    with pytest.raises(ParseError, match=f"line {line} column 1: expected one JSON document"):
        neuroncmp.load(path)


TRAINING_LOG = THIRD / "derived" / "trn1.32xlarge_llama3-8b-lora-sft_training-log_notebook-cell-output.log"


def test_a_long_training_log_is_known_by_its_tail_and_read_from_the_trainers_final_dict():
    """The log (194 KB) ends with the Trainer's logged dict, past the 64 KiB the sniff sees first."""
    text = TRAINING_LOG.read_text(encoding="utf-8")
    line = next(n for n, ln in enumerate(text.splitlines(), 1) if ln.startswith("{'train_runtime': "))
    assert len(text.encode("utf-8")) > 65536 and text.find("{'train_runtime'") > 65536
    (profile,) = neuroncmp.load(TRAINING_LOG)
    assert profile.source.format == "trainer-text"
    assert profile.training["train_runtime"].quantity.to("second").m == 2017.3458
    assert profile.training["train_loss"].value == 3.9706521739130434
    (skipped,) = profile.skipped
    others = sum(1 for n, ln in enumerate(text.splitlines(), 1) if ln.strip() and n != line)
    assert skipped.text == f"{others:,} other non-blank lines" and f"(line {line})" in skipped.reason


def test_per_step_loss_lines_alone_are_not_end_of_run_metrics(tmp_path):
    steps = [ln for ln in TRAINING_LOG.read_text(encoding="utf-8").splitlines() if ln.startswith("{'loss'")]
    path = tmp_path / "steps.log"
    path.write_text("\n".join(steps) + "\n", encoding="utf-8")
    with pytest.raises(ParseError):  # a file of dict lines only looks like JSON and is not
        neuroncmp.load(path)
    path.write_text("step output\n" + "\n".join(steps) + "\n", encoding="utf-8")
    with pytest.raises(NoProfileError):
        neuroncmp.load(path)


def test_the_terminal_form_of_the_tool_log_is_set_aside_too(tmp_path):
    """neuron-profile on a terminal writes ``ERRO[0000] message   key=value`` (a real 2.19 line)."""
    real = (THIRD / "tool-log" / "neuron-profile-2.19_ntff-version-error_aws-neuron-sdk-1007.log") \
        .read_text(encoding="utf-8").splitlines()[0]
    path = tmp_path / "tty.log"
    path.write_text(real + "\n" + BODY + "\n", encoding="utf-8")
    (profile,) = neuroncmp.load(path)
    assert profile.metrics["total_time"].raw == str(_clean_values()["total_time"])
    assert [s.where for s in profile.skipped] == ["line 1"]
    assert profile.notes == ["profiler warning: Failed to load profile session"]


def test_neuron_monitor_reports_inside_log_lines_read_as_the_clean_report(tmp_path):
    """Every format benefits, not only summary-json: two neuron-monitor reports (the gather
    folder's trn1.2xlarge record, one JSON line each) between a log line and a runner header."""
    source = THIRD / "derived" / "trn1.2xlarge_neuron-monitor_wandb-test-sample.json"
    line = json.dumps(json.loads(source.read_text(encoding="utf-8")))
    path = tmp_path / "monitor.log"
    path.write_text(LOG[0] + "\n" + line + "\n" + line + "\nSTDERR:\n", encoding="utf-8")
    one, two = neuroncmp.load(path)
    (clean,) = neuroncmp.load(source)
    assert one.source.format == "neuron-monitor"
    assert {k: m.raw for k, m in one.metrics.items()} == {k: m.raw for k, m in clean.metrics.items()}
    assert {k: m.raw for k, m in two.metrics.items()} == {k: m.raw for k, m in clean.metrics.items()}
    assert [s.where for s in one.skipped[:2]] == ["line 1", "line 4"]

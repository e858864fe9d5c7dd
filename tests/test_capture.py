"""``neuroncmp capture`` offline: stand-ins for AWS's tools (tests/standins/) on PATH, a stand-in
training job that writes NEFF/NTFF pairs the way the runtime lays them out and fails out of device
memory at batch 64. Expected values come from the bundled real profiles and AWS's runtime sample,
never from the capture code's own output."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import ROOT, RUN, STANDINS, TRAIN, use_standins

import neuroncmp
from neuroncmp.capture import discovery, keep, oom, plan, preflight, tools
from neuroncmp.cli import cli
from neuroncmp.errors import InputError, MissingDependencyError, UsageError

_SAMPLE = "samples/neuron-runtime/oom_memory_usage_table.txt"  # AWS's text, in shared/ beside the repo
SAMPLE = next((p for p in (ROOT.parent / "shared" / _SAMPLE, Path("/work/shared") / _SAMPLE)
               if p.is_file()), ROOT.parent / "shared" / _SAMPLE)
GiB, MiB, KiB = 2**30, 2**20, 2**10
SWEEP = "2,4,8,16,32,64"


def bundled(name: str) -> dict:
    return next(iter(json.loads((RUN / name).read_text()).values()))



def capture(*args: str):
    return CliRunner().invoke(cli, ["capture", *args])


# ---- the whole sweep, end to end (run once, checked by several tests) ---------------------------

@pytest.fixture(scope="module")
def swept(tmp_path_factory):
    with pytest.MonkeyPatch.context() as mp:
        out = tmp_path_factory.mktemp("sweep") / "run"
        use_standins(mp, out.parent / "no-neuron-bin")
        mp.setenv("STANDIN_UNPAIRED", "1")
        result = capture("--batch", SWEEP, "--out", str(out), "--", *TRAIN)
    return out, result


def test_sweep_exits_0_and_reports_the_upper_bound(swept):
    _, result = swept
    assert result.exit_code == 0, result.output
    assert "b64  out-of-memory" in result.stdout
    assert "upper bound: batch 64 ran out of device memory (asked for 6.000 GiB of tensors)" in result.stdout


def test_sweep_writes_one_summary_json_per_captured_batch(swept):
    out, _ = swept
    written = sorted(p.name for p in out.glob("b*.json") if p.name.count(".") == 1)
    assert written == ["b16.json", "b2.json", "b32.json", "b4.json", "b8.json"]
    for label, source in (("b2", "b2.json"), ("b8", "baseline.json"), ("b32", "b32.json")):
        (values,) = json.loads((out / f"{label}.json").read_text()).values()
        assert values == bundled(source)  # what the tool printed, unchanged


def test_diff_accepts_the_captured_folder(swept):
    out, _ = swept
    result = CliRunner().invoke(cli, ["diff", str(out), "--no-color", "--metric", "total_time"])
    assert result.exit_code == 0, result.output
    assert "b2 (bs 2) vs b4 (bs 4), b8 (bs 8), b16 (bs 16), b32 (bs 32)" in result.output


def test_loaded_profiles_carry_batch_size_memory_and_trainer_metrics(swept):
    out, _ = swept
    profiles = {p.label: p for p in neuroncmp.load(out)}
    assert list(profiles) == ["b2", "b4", "b8", "b16", "b32"]
    b32 = profiles["b32"]
    assert b32.batch_size == 32 and not b32.batch_size_inferred
    assert b32.metrics["total_time"].value == bundled("b32.json")["total_time"]
    assert b32.memory_by_type()["shared_scratchpad"] == round(3.5 * GiB)  # b32.memory.md: 3.5 GiB
    trainer = json.loads((RUN / "b32.all_results.json").read_text())
    assert b32.training["train_runtime"].value == trainer["train_runtime"]
    assert b32.metadata["instance_type"] == "trn1.2xlarge"


def test_each_profile_states_when_it_was_captured_and_the_store_dates_it_so(swept, tmp_path):
    pytest.importorskip("duckdb")
    from neuroncmp.store import Store

    out, _ = swept
    manifest = json.loads((out / "manifest.json").read_text())
    started = {e["label"]: e["started"] for e in manifest["profiles"]}
    profiles = {p.label: p for p in neuroncmp.load(out)}
    assert {label: p.metadata["captured_at"] for label, p in profiles.items()} == started
    report = Store(tmp_path / "s").add(out)
    assert {a.time_source for a in report.added} == {"profile"}
    runs = {r.label: r.time.strftime("%Y-%m-%dT%H:%M:%S") for r in Store(tmp_path / "s").runs()}
    assert runs == {label: when[:19] for label, when in started.items()}


def test_manifest_records_command_env_versions_and_raw_files(swept):
    out, _ = swept
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["schema"] == "neuroncmp.manifest/1"
    assert manifest["command"] == TRAIN
    assert manifest["env"] == {"NEURON_RT_INSPECT_ENABLE": "1", "NEURON_RT_INSPECT_DEVICE_PROFILE": "1",
                               "NEURON_RT_INSPECT_OUTPUT_DIR": "raw/{label}/inspect"}
    assert manifest["tool"]["name"] == "neuron-explorer"
    assert manifest["tool"]["version"] == "neuron-explorer version 2.33.0.0 (stand-in)"
    assert manifest["tool"]["profile_schema"] == "12.0.1"  # from `view --show-profile-schema` (SDK 2.33)
    assert manifest["instance_type"] == "trn1.2xlarge"
    assert set(manifest["packages"]) >= {"torch-neuronx", "neuronx-cc"}
    entry = next(e for e in manifest["profiles"] if e["label"] == "b16")
    assert entry["exit_status"] == 0 and entry["started"] <= entry["ended"]
    assert entry["command"][-3:] == ["16", "--output_dir", str(out.resolve() / "raw" / "b16")]
    raw = entry["raw"]
    assert raw["log"] == "raw/b16/command.log" and (out / raw["log"]).is_file()
    assert raw["pairs"] == 3 and len(raw["unpaired_ntff"]) == 1  # the NTFF with no NEFF is listed
    neff = out / raw["neff"]  # the training step: the biggest of the three NEFFs
    assert max(p.stat().st_size for p in neff.parent.glob("*.neff")) == neff.stat().st_size
    assert (out / raw["ntff"]).name == neff.name.removeprefix("neff_").replace(".neff", "_instid_0_vnc_0.ntff")
    assert entry["memory"] == "b16.memory.md" and entry["training"] == "b16.all_results.json"


def test_manifest_keeps_the_oom_table_as_the_upper_bound(swept):
    out, _ = swept
    manifest = json.loads((out / "manifest.json").read_text())
    (failed,) = manifest["failed"]
    assert (failed["label"], failed["status"], failed["exit_status"]) == ("b64", "out-of-memory", 1)
    bound = manifest["upper_bound"]
    # the stand-in asks for 64 x 96 MiB of tensors with 64 x 160 MiB already in use (fake_train.py)
    assert (bound["batch_size"], bound["requested_bytes"], bound["requested_usage"]) == (64, 6 * GiB, "tensors")
    assert bound["device_bytes_by_type"]["tensors"] == 10 * GiB
    assert bound["device_bytes_by_type"]["profiler_buffers"] == 2 * GiB
    assert bound["log"] == "raw/b64/command.log"


def test_no_half_written_files(swept):
    out, _ = swept
    assert [p for p in out.rglob("*") if p.name.endswith((".tmp", ".part"))] == []


# ---- interruption and --resume ---------------------------------------------------------------

def test_interrupted_sweep_keeps_what_finished_and_resume_completes_it(standin_path, tmp_path):
    from neuroncmp.capture import session

    out = tmp_path / "run"

    def interrupt_b8(event):
        if event.label == "b8" and event.kind == "line":
            raise KeyboardInterrupt  # Ctrl-C while b8's command is running

    with pytest.raises(KeyboardInterrupt):
        session.sweep(out, tuple(TRAIN), "2,4,8,16,64", on_event=interrupt_b8)
    assert [p.label for p in neuroncmp.load(out)] == ["b2", "b4"]  # usable as it is
    manifest = json.loads((out / "manifest.json").read_text())
    assert [(f["label"], f["status"]) for f in manifest["failed"]] == [("b8", "interrupted")]
    assert (out / "raw/b8/command.log.part").is_file() and not (out / "b8.json").exists()
    kept = (out / "b2.json").stat().st_mtime_ns

    refused = capture("--batch", "2,4,8,16,64", "--out", str(out), "--", *TRAIN)
    assert refused.exit_code == 2 and "--resume" in refused.output
    resumed = capture("--batch", "2,4,8,16,64", "--out", str(out), "--resume", "--", *TRAIN)
    assert resumed.exit_code == 0, resumed.output
    assert "b2  skipped" in resumed.stdout and "b8  captured" in resumed.stdout
    assert "b64  out-of-memory" in resumed.stdout
    assert (out / "b2.json").stat().st_mtime_ns == kept
    assert [p.label for p in neuroncmp.load(out)] == ["b2", "b4", "b8", "b16"]
    failed = json.loads((out / "manifest.json").read_text())["failed"]
    assert [(f["label"], f["status"]) for f in failed] == [("b64", "out-of-memory")]
    again = capture("--batch", "2,4,8,16,64", "--out", str(out), "--resume", "--", *TRAIN)
    assert again.exit_code == 0 and "b64  skipped" in again.stdout  # an OOM is a result, kept


def test_resume_with_another_command_is_refused(standin_path, tmp_path):
    out = tmp_path / "run"
    assert capture("--batch", "2", "--out", str(out), "--", *TRAIN).exit_code == 0
    other = capture("--batch", "2,4", "--out", str(out), "--resume", "--", *TRAIN, "--max_steps", "5")
    assert other.exit_code == 2 and "another command" in other.output


# ---- failures: each a clear message, what was captured stays usable --------------------------

def test_without_neuron_tools_one_line_says_what_to_install(standin_path, tmp_path):
    standin_path.setenv("PATH", str(Path(sys.executable).parent))
    result = capture("--batch", "2", "--out", str(tmp_path / "run"), "--", *TRAIN)
    assert result.exit_code == 1
    (line,) = result.output.strip().splitlines()
    assert "neuron-explorer or neuron-profile not found" in line and "aws-neuronx-tools" in line


def test_without_a_neuron_device(standin_path, tmp_path):
    standin_path.setenv("STANDIN_NO_DEVICE", "1")
    result = capture("--batch", "2", "--out", str(tmp_path / "run"), "--", *TRAIN)
    assert result.exit_code == 1 and "no Neuron device" in result.output
    assert not (tmp_path / "run").exists()


def test_placeholder_torch_neuronx_stops_the_sweep(standin_path, tmp_path):
    standin_path.setenv("STANDIN_PLACEHOLDER", "1")
    result = capture("--batch", "2,4", "--out", str(tmp_path / "run"), "--", *TRAIN)
    assert result.exit_code == 1
    assert "placeholder torch-neuronx" in result.output
    assert "--extra-index-url=https://pip.repos.neuron.amazonaws.com" in result.output
    manifest = json.loads((tmp_path / "run/manifest.json").read_text())
    assert [(f["label"], f["status"]) for f in manifest["failed"]] == [("b2", "placeholder")]


def test_failed_no_ntff_and_tool_error_variants_are_reported_and_the_rest_kept(standin_path, tmp_path):
    standin_path.setenv("STANDIN_FAIL", "2")
    standin_path.setenv("STANDIN_NO_NTFF", "4")
    standin_path.setenv("STANDIN_VIEW_FAIL", "16")
    out = tmp_path / "run"
    result = capture("--batch", "2,4,8,16", "--out", str(out), "--", *TRAIN)
    assert result.exit_code == 1
    last = result.output.strip().splitlines()[-1]
    assert last.startswith("Error: 3 of 4 batch sizes captured nothing (b2: failed; b4: no-ntff; "
                           "b16: tool-error)")
    failed = {f["label"]: f for f in json.loads((out / "manifest.json").read_text())["failed"]}
    assert failed["b2"]["reason"] == "exit status 1: ValueError: tokenizer vocabulary file not found"
    assert "no NEFF/NTFF pair" in failed["b4"]["reason"]
    assert "trace is truncated" in failed["b16"]["reason"]
    assert (out / "raw/b16/view.stderr").read_text().startswith("ERROR: failed to process")
    assert [p.label for p in neuroncmp.load(out)] == ["b8"]


def test_oom_table_read_from_the_runtime_file_when_the_log_is_cut(standin_path, tmp_path):
    from neuroncmp.capture.sweep import Options, capture_sweep

    standin_path.setenv("STANDIN_TABLE_DIR", str(tmp_path))
    found, about = tools.locate(), {"instance_type": None}
    built = plan.build(tmp_path / "run", tuple(TRAIN), (64,))
    result = capture_sweep(built, found, about, Options(mem_table_dir=tmp_path))
    assert result.upper_bound["device_bytes_by_type"]["tensors"] == 10 * GiB
    manifest = json.loads((tmp_path / "run/manifest.json").read_text())
    assert manifest["failed"][0]["raw"]["memory_table"] == str(tmp_path / "neuron_mem_table_device_0_hbm_0.log")


def test_profiler_only_capture_has_no_memory_sidecar(standin_path, tmp_path):
    out = tmp_path / "run"
    result = capture("--batch", "32", "--tool", "neuron-profile", "--out", str(out), "--", *TRAIN)
    assert result.exit_code == 0, result.output
    (entry,) = json.loads((out / "manifest.json").read_text())["profiles"]
    assert "memory" not in entry and entry["training"] == "b32.all_results.json"


def test_graph_rule_glob_that_matches_nothing(standin_path, tmp_path):
    out = tmp_path / "run"
    result = capture("--batch", "2", "--graph", "nothing*", "--out", str(out), "--", *TRAIN)
    assert result.exit_code == 1 and "b2: no-graph" in result.output


# ---- single graph mode -------------------------------------------------------------------------

def standin_neff(folder: Path, batch: int) -> Path:
    neff = folder / f"MODULE_{batch}_SyncTensorsGraph.neff"
    neff.write_text(json.dumps({"standin": "neff", "hash": f"h{batch}", "graph": "train_step", "batch": batch}))
    return neff


def test_single_graph_capture_and_view(standin_path, tmp_path):
    out = tmp_path / "graphs"
    for batch in (16, 32):
        neff = standin_neff(tmp_path, batch)
        result = capture("--neff", str(neff), "--num-exec", "2", "--profile-nth-exec", "2",
                         "--batch", str(batch), "--out", str(out))
        assert result.exit_code == 0, result.output
        assert (out / f"raw/b{batch}/profile_exec_2.ntff").is_file()
    assert [p.label for p in neuroncmp.load(out)] == ["b16", "b32"]
    (values,) = json.loads((out / "b32.json").read_text()).values()
    assert values == bundled("b32.json")
    entry = json.loads((out / "manifest.json").read_text())["profiles"][1]
    assert (entry["num_exec"], entry["profile_nth_exec"], entry["raw"]["ntff"]) == (
        2, 2, "raw/b32/profile_exec_2.ntff")
    assert CliRunner().invoke(cli, ["diff", str(out), "--no-color"]).exit_code == 0


def test_single_graph_refuses_a_label_twice_and_a_command(standin_path, tmp_path):
    neff = standin_neff(tmp_path, 16)
    assert capture("--neff", str(neff), "--out", str(tmp_path / "g")).exit_code == 0
    again = capture("--neff", str(neff), "--out", str(tmp_path / "g"))
    assert again.exit_code == 2 and "already holds a profile labelled" in again.output
    both = capture("--neff", str(neff), "--", "python", "x.py")
    assert both.exit_code == 2


# ---- the stand-ins behave like the documented tools --------------------------------------------

def test_standin_capture_names_the_trace_profile_exec_n(standin_path, tmp_path):
    import subprocess

    neff = standin_neff(tmp_path, 8)
    done = subprocess.run(["neuron-profile", "capture", "-n", str(neff), "-s", str(tmp_path / "profile.ntff"),
                           "--profile-nth-exec=2"], capture_output=True, text=True)
    assert done.returncode == 0 and (tmp_path / "profile_exec_2.ntff").is_file()
    bad = subprocess.run(["neuron-profile", "view", "-n", str(neff), "-s", str(tmp_path / "none.ntff"),
                          "--output-format", "summary-json"], capture_output=True, text=True)
    assert bad.returncode == 1 and bad.stdout == "" and "does not exist" in bad.stderr
    usage = subprocess.run(["neuron-profile", "view", "--bogus"], capture_output=True, text=True)
    assert usage.returncode == 2


# ---- the pieces ------------------------------------------------------------------------------

@pytest.mark.skipif(not SAMPLE.is_file(), reason="AWS's runtime sample is in shared/")
def test_oom_parser_on_aws_sample():
    report = oom.parse(SAMPLE.read_text())
    assert (report.requested_bytes, report.requested_usage, report.where) == (4 * GiB, "tensors", "ND 0:NC 4")
    assert report.columns[:4] == ("TOTAL", "Model Code", "Model Constants", "Tensors")
    device = dict(report.device_row().bytes_by_type)
    assert device["tensors"] == 20 * GiB and device["model_code"] == round(192.102 * MiB)
    parts = sum(v for k, v in device.items() if k != "total")
    assert abs(parts - device["total"]) < 0.001 * GiB  # binary units: the row sums to its TOTAL
    neff = next(r for r in report.rows if r.neff == 1001)
    assert (neff.device, neff.core, dict(neff.bytes_by_type)["tensors"]) == (0, 4, None)  # n/a
    assert [r.core for r in report.rows if r.level == "core"] == [4, 5]
    assert dict(report.neff_names)[1003] == "1.0.41235.0+df4a714bb-/local/out-test0_meta_concat3"


def test_oom_parser_ignores_other_logs():
    assert oom.parse("RuntimeError: something else\nTraceback ...") is None


def write_pair(folder: Path, digest: str, neff_bytes: int, vnc: int = 0) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"neff_{digest}.neff").write_bytes(b"x" * neff_bytes)
    (folder / f"{digest}_instid_0_vnc_{vnc}.ntff").write_bytes(b"t" * (1000 - neff_bytes // 10))


def test_discovery_pairs_by_hash_and_picks_the_largest_neff(tmp_path):
    pid = tmp_path / "i-0abc_pid_42"
    write_pair(pid, "111", 500)
    write_pair(pid, "222", 9000)
    write_pair(pid, "333", 800)
    (pid / "999_instid_0_vnc_0.ntff").write_text("orphan")
    found = discovery.find(tmp_path)
    assert sorted(p.neff.name for p in found.pairs) == ["neff_111.neff", "neff_222.neff", "neff_333.neff"]
    assert [p.name for p in found.unpaired] == ["999_instid_0_vnc_0.ntff"]
    assert discovery.pick(found.pairs).neff.name == "neff_222.neff"
    assert discovery.pick(found.pairs, "largest-ntff").neff.name == "neff_111.neff"
    assert discovery.pick(found.pairs, "*333*").ntff.name == "333_instid_0_vnc_0.ntff"
    assert discovery.pick(found.pairs, "nope*") is None


def test_discovery_pairs_tool_named_traces_by_stem(tmp_path):
    (tmp_path / "profile.neff").write_text("n")
    (tmp_path / "profile_rank_0_exec_2.ntff").write_text("t")
    (pair,) = discovery.find(tmp_path).pairs
    assert pair.neff.name == "profile.neff"


def test_plan_placeholders_env_and_folders(tmp_path):
    built = plan.build(tmp_path, ("python", "t.py", "--bs={batch}", "--out", "{out}", "--steps", "{steps}",
                                  "{keep}"), (4, 16), steps=7, warmup=1, extra_env=(("XLA_IR_DEBUG", "1"),))
    b16 = built.variants[1]
    assert b16.command == ("python", "t.py", "--bs=16", "--out", str(tmp_path.resolve() / "raw/b16"),
                           "--steps", "7", "{keep}")
    assert dict(b16.env) == {"NEURON_RT_INSPECT_ENABLE": "1", "NEURON_RT_INSPECT_DEVICE_PROFILE": "1",
                             "NEURON_RT_INSPECT_OUTPUT_DIR": str(tmp_path.resolve() / "raw/b16/inspect"),
                             "NEURON_RT_INSPECT_DEVICE_PROFILE_NUM_WARMUP": "1", "XLA_IR_DEBUG": "1"}


@pytest.mark.parametrize("batches, message", [("2,x", "positive integers"), ("0", "positive"),
                                              ("4,4", "listed twice")])
def test_bad_batch_lists(batches, message):
    with pytest.raises(UsageError, match=message):
        plan.parse_batches(batches)


@pytest.mark.parametrize("template, steps, env, message", [
    (("python", "t.py"), None, (), "no {batch}"),
    (("t", "{batch}"), 5, (), "no {steps}"),
    ((), None, (), "no command"),
    (("t", "{batch}"), None, (("NEURON_RT_INSPECT_OUTPUT_DIR", "/x"),), "set by capture"),
])
def test_bad_plans(tmp_path, template, steps, env, message):
    with pytest.raises(UsageError, match=message):
        plan.build(tmp_path, template, (2,), steps=steps, extra_env=env)


def test_cli_usage_errors_exit_2(standin_path, tmp_path):
    assert capture("--batch", "2,two", "--", *TRAIN).exit_code == 2
    assert capture("--batch", "2", "--env", "NOEQUALS", "--", *TRAIN).exit_code == 2
    assert capture("--num-exec", "2", "--batch", "2", "--", *TRAIN).exit_code == 2


def test_pypis_own_placeholder_metadata_is_recognised(monkeypatch):
    """``fixtures/pypi-placeholder``: the METADATA of PyPI's torch-neuronx 1.0 wheel, as downloaded
    (``pip download torch-neuronx --no-deps``); on sys.path it is an installed distribution."""
    from neuroncmp.errors import InputError

    monkeypatch.syspath_prepend(str(ROOT / "tests" / "fixtures" / "pypi-placeholder"))
    with pytest.raises(InputError, match="PyPI's placeholder"):
        preflight.check_not_placeholder()


def test_placeholder_detection():
    log = (STANDINS / "fake_train.py").read_text().split("PLACEHOLDER = (", 1)[1]
    assert preflight.placeholder_in_log(log)
    assert not preflight.placeholder_in_log("ImportError: No module named 'torch_neuronx'")


def test_trainer_block_is_cut_out_of_a_log():
    log = ("step 1\n***** train metrics *****\n  epoch                    =        3.0\n"
           "  train_runtime            = 0:04:14.32\n[INFO] done\n")
    assert keep.trainer_block(log) == ("***** train metrics *****\n  epoch                    =        3.0\n"
                                           "  train_runtime            = 0:04:14.32\n")


def test_locate_prefers_explorer_and_falls_back(tmp_path):
    only_profiler = tmp_path / "bin"
    only_profiler.mkdir()
    (only_profiler / "neuron-profile").symlink_to(STANDINS / "neuron-profile")
    assert tools.locate(search_path=str(STANDINS), extra_dirs=()).kind == "neuron-explorer"
    assert tools.locate(search_path=str(only_profiler), extra_dirs=()).kind == "neuron-profile"
    with pytest.raises(MissingDependencyError, match="aws-neuronx-tools"):
        tools.locate(search_path=str(tmp_path), extra_dirs=())


def test_no_device_without_neuron_ls_checks_dev_nodes(tmp_path):
    without_ls = tools.Tools("neuron-profile", STANDINS / "neuron-profile", None)
    with pytest.raises(InputError, match="no Neuron device"):
        preflight.check_device(without_ls, tmp_path)
    (tmp_path / "neuron0").write_text("")
    assert preflight.check_device(without_ls, tmp_path).devices is None


def test_help_documents_every_option():
    text = CliRunner().invoke(cli, ["capture", "--help"]).output
    for param in cli.commands["capture"].params:
        for opt in param.opts:
            if opt.startswith("-"):
                assert opt in text, opt
    assert "{batch}" in text and "profile_exec_M.ntff" in text


def test_manifest_writer_checks_what_load_needs(tmp_path):
    from neuroncmp.errors import ParseError
    from neuroncmp.ingest.manifest import MANIFEST_SCHEMA, profile_entry, write_manifest

    with pytest.raises(ParseError, match='"file" and "label"'):
        write_manifest(tmp_path, {"schema": MANIFEST_SCHEMA, "profiles": [{"label": "b2"}]})
    with pytest.raises(ParseError, match="schema"):
        write_manifest(tmp_path, {"profiles": []})
    assert not (tmp_path / "manifest.json").exists()
    (tmp_path / "b32.json").write_text((RUN / "b32.json").read_text())
    entry = profile_entry("b32.json", "b32", {"batch_size": 32}, memory=None, extra_field=[1])
    write_manifest(tmp_path, {"schema": MANIFEST_SCHEMA, "profiles": [entry], "upper_bound": None})
    (profile,) = neuroncmp.load(tmp_path)
    assert (profile.label, profile.batch_size) == ("b32", 32)

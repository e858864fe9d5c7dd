"""Capture on the current SDK (issue 20, item 10): Explorer's capture and schema flag (SDK 2.32-2.33),
session-mode traces, Trn2 layouts. The file layouts are the ones AWS's Neuron Explorer "Capture
profiles" guide shows (named in each test); the stand-ins (tests/standins/) follow the same docs.
"""

from __future__ import annotations

import json
import stat
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import TRAIN

from neuroncmp.capture import discovery, tools
from neuroncmp.cli import cli


def test_a_session_trace_is_refused_with_one_clear_line(standin_path, tmp_path):
    out = tmp_path / "run"
    result = CliRunner().invoke(cli, ["capture", "--batch", "8", "--out", str(out),
                                      "--env", "NEURON_RT_INSPECT_DEVICE_PROFILE=session", "--", *TRAIN])
    assert result.exit_code == 1
    assert "profile_nc_0_session_0.ntff is a session-mode trace" in result.output
    (failed,) = json.loads((out / "manifest.json").read_text())["failed"]
    assert failed["status"] == "session-trace"
    assert failed["raw"]["session_ntff"][0].endswith("profile_nc_0_session_0.ntff")
    assert not (out / "b8.json").exists()  # never taken for the training step


def test_a_session_trace_is_never_paired_even_with_the_only_neff(tmp_path):
    # Explorer's "Expected output": neff_<hash>_vnc_0.neff beside profile_nc_0_session_0.ntff
    folder = tmp_path / "i-0abc_pid_7" / "20261125T101500"
    folder.mkdir(parents=True)
    (folder / "neff_395760075800974_vnc_0.neff").write_text("n")
    (folder / "profile_nc_0_session_0.ntff").write_text("t")
    found = discovery.find(tmp_path)
    assert found.pairs == () and found.unpaired == ()
    assert [p.name for p in found.sessions] == ["profile_nc_0_session_0.ntff"]


def test_model_mode_pairs_a_neff_named_with_its_vnc(tmp_path):
    (tmp_path / "neff_395760075800974_vnc_1.neff").write_text("n")
    (tmp_path / "395760075800974_instid_0_vnc_1.ntff").write_text("t")
    (pair,) = discovery.find(tmp_path).pairs
    assert (pair.neff.name, pair.vnc) == ("neff_395760075800974_vnc_1.neff", 1)


def test_a_trn2_layout_pairs_every_logical_core_and_picks_the_lowest(tmp_path):
    # the guide's trn2 `neuron-explorer inspect` tree: one NEFF, one NTFF per logical core (vnc)
    pid = tmp_path / "i-012590440bb9fd263_pid_98399"
    pid.mkdir()
    (pid / "neff_14382885777943380728.neff").write_text("n" * 100)
    for vnc in (0, 1, 10, 11, 8, 9):
        (pid / f"14382885777943380728_instid_0_vnc_{vnc}.ntff").write_text("t")
    found = discovery.find(tmp_path)
    assert sorted(p.vnc for p in found.pairs) == [0, 1, 8, 9, 10, 11]
    assert discovery.pick(found.pairs).vnc == 0


def test_single_graph_mode_runs_neuron_explorer_capture(standin_path, tmp_path):
    neff = tmp_path / "model.neff"
    neff.write_text(json.dumps({"standin": "neff", "hash": "77", "graph": "train_step", "batch": 8}))
    out = tmp_path / "graphs"
    result = CliRunner().invoke(cli, ["capture", "--neff", str(neff), "--batch", "8", "--out", str(out)])
    assert result.exit_code == 0, result.output
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["tool"]["name"] == "neuron-explorer" and manifest["profiles"][0]["tool"] == "neuron-explorer"
    assert manifest["tool"]["profile_schema"] == "12.0.1"


def _script(path: Path, body: str) -> Path:
    path.write_text(f"#!{sys.executable}\nimport sys\nargs = sys.argv[1:]\n{body}\n")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return path


def test_the_schema_flag_before_it_moved_under_view(tmp_path):
    # SDK 2.31-2.32: `neuron-explorer --show-profile-schema`; `view` does not know the flag
    old = _script(tmp_path / "neuron-explorer", "if args == ['--show-profile-schema']:\n"
                  "    print('info:\\n  version: 7.4.0')\nelse:\n    sys.exit('unknown flag')")
    assert tools.profile_schema(tools.Tools(tools.EXPLORER, old, None)) == "7.4.0"
    broken = _script(tmp_path / "broken", "sys.exit('no schema here')")
    assert tools.profile_schema(tools.Tools(tools.EXPLORER, broken, None)).startswith("unknown (")
    assert tools.profile_schema(tools.Tools(tools.PROFILER, broken, None)) is None


NEURON_LS = Path(__file__).parent / "data" / "third_party" / "neuron-ls"


@pytest.mark.parametrize("name, devices, instance", [
    # device rows and instance-type lines counted by hand in each real output (gather's SOURCES.md)
    ("inf2.48xlarge_neuron-ls_table_connected-devices_optimum-neuron-benchmark.txt", 12, "inf2.48xlarge"),
    ("trn1.2xlarge_neuron-ls-2.28.23_table_xtts-article.txt", 1, "trn1.2xlarge"),
    ("trn1.2xlarge_neuron-ls_table_4-column_optimum-neuron-ec2-setup.txt", 1, "trn1.2xlarge"),
    ("trn2.3xlarge_neuron-ls_table_qwen25vl-article.txt", 1, None),  # this output has no instance-type line
])
def test_real_neuron_ls_tables_are_read_by_the_same_rules(tmp_path, monkeypatch, name, devices, instance):
    from neuroncmp.capture import preflight

    monkeypatch.setattr(preflight, "DMI_PRODUCT_NAME", tmp_path / "no-dmi")
    text = (NEURON_LS / name).read_text(encoding="utf-8")
    script = _script(tmp_path / "neuron-ls", f"sys.stdout.write({text!r})")
    machine = preflight.check_device(tools.Tools(tools.EXPLORER, script, script))
    assert (machine.devices, machine.instance_type) == (devices, instance)

"""The reference workload (scripts/train_bert_neuron.py): its guard against a missing or placeholder
torch-neuronx runs anywhere; the tiny CPU training runs only where torch and transformers are
installed (skipped otherwise). The test suite never imports the script."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import ROOT

from neuroncmp.capture import tools
from neuroncmp.cli import cli

SCRIPT = ROOT / "scripts" / "train_bert_neuron.py"
STANDINS = Path(__file__).resolve().parent / "standins"
# PyPI's torch-neuronx 1.0, its whole __init__.py (downloaded and read for this test)
PLACEHOLDER = ('raise ImportError("WRONG PACKAGE. Please install the package from Neuron Repository - '
               'pip.repos.neuron.amazonaws.com")\n')


@pytest.fixture()
def placeholder(tmp_path):
    package = tmp_path / "site" / "torch_neuronx"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(PLACEHOLDER)
    return tmp_path / "site"


def run(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, timeout=600)


def test_help_needs_no_torch():
    done = run("--help")
    assert done.returncode == 0 and "--batch" in done.stdout and "--tiny" in done.stdout


def test_placeholder_torch_neuronx_gives_the_install_line(placeholder):
    done = run("--batch", "8", env={"PYTHONPATH": str(placeholder)})
    assert done.returncode == 1
    (line,) = done.stderr.strip().splitlines()
    assert "torch-neuronx is PyPI's placeholder" in line
    assert "--extra-index-url=https://pip.repos.neuron.amazonaws.com" in line


def test_capture_stops_on_the_placeholder_in_the_job(placeholder, tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", os.pathsep.join([str(STANDINS), str(Path(sys.executable).parent),
                                                os.environ.get("PATH", "")]))
    monkeypatch.setenv("PYTHONPATH", str(placeholder))
    monkeypatch.setattr(tools, "NEURON_BIN", tmp_path / "none")
    result = CliRunner().invoke(cli, ["capture", "--batch", "8,16", "--out", str(tmp_path / "run"), "--",
                                      sys.executable, str(SCRIPT), "--batch", "{batch}"])
    assert result.exit_code == 1 and "b8: the job imported PyPI's placeholder" in result.output
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert [f["status"] for f in manifest["failed"]] == ["placeholder"]  # b16 never ran


def test_tiny_training_on_cpu(tmp_path):
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    pytest.importorskip("accelerate")
    done = run("--tiny", "--batch", "4", "--max-steps", "2", "--output-dir", str(tmp_path))
    assert done.returncode == 0, done.stderr[-2000:]
    assert "***** train metrics *****" in done.stdout + done.stderr
    results = json.loads((tmp_path / "all_results.json").read_text())
    assert results["train_samples"] == 64 and results["train_runtime"] > 0

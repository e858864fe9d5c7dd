"""Shared fixtures: paths to the bundled real data."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
RUN = ROOT / "profiles" / "trn1-2xlarge-bs-sweep"
SEED = RUN / "003_a8d02f199ef107f4.txt"
FIXTURES = Path(__file__).resolve().parent / "fixtures"
THIRD_PARTY = Path(__file__).resolve().parent / "data" / "third_party"
# Every real input at hand that ``load`` may read: the bundled run and the third-party files.
LOADABLE = sorted([*RUN.glob("*.json"), *RUN.glob("*.md"), *THIRD_PARTY.rglob("*.json"), *THIRD_PARTY.rglob("*.txt"),
                   *THIRD_PARTY.rglob("*.md"), *THIRD_PARTY.rglob("*.log")])
VARIANT_FILES = ["baseline.json", "b2.json", "b4.json", "b16.json", "b32.json",
                 "b32-cc-optim.json", "b48.json", "b64.json"]


@pytest.fixture(autouse=True)
def terminal_width(monkeypatch):
    """Every terminal view 100 columns wide unless a test says otherwise: rich takes the width from
    COLUMNS, else from a terminal on standard input or output, so a run at a desk would read differently."""
    monkeypatch.setenv("COLUMNS", "100")


def loaded(path: Path) -> list:
    """The profiles ``neuroncmp.load`` reads from ``path``; none from a file it refuses."""
    import neuroncmp
    import neuroncmp.errors

    try:
        return neuroncmp.load(path)
    except neuroncmp.errors.NeuroncmpError:
        return []


# The capture tests' stand-ins for the Neuron tools and a training job (tests/standins/)
STANDINS = Path(__file__).resolve().parent / "standins"
TRAIN = [sys.executable, str(STANDINS / "fake_train.py"), "--per_device_train_batch_size", "{batch}",
         "--output_dir", "{out}"]


def use_standins(mp: pytest.MonkeyPatch, no_neuron_bin: Path) -> None:
    """The stand-ins first on PATH (with this interpreter's folder, for their ``python3``); no
    real /opt/aws/neuron/bin fallback; no leftover STANDIN_ switches."""
    from neuroncmp.capture import tools

    mp.setenv("PATH", os.pathsep.join([str(STANDINS), str(Path(sys.executable).parent),
                                       os.environ.get("PATH", "")]))
    mp.setattr(tools, "NEURON_BIN", no_neuron_bin)
    for name in [n for n in os.environ if n.startswith("STANDIN_")]:
        mp.delenv(name)


@pytest.fixture()
def standin_path(monkeypatch, tmp_path):
    use_standins(monkeypatch, tmp_path / "no-neuron-bin")
    return monkeypatch


@pytest.fixture(scope="session")
def seed_profiles():
    import neuroncmp

    return neuroncmp.load(SEED)


def pytest_addoption(parser):
    parser.addoption("--update-golden", action="store_true",
                     help="Rewrite tests/golden/* from the current output (then review the diff).")


@pytest.fixture()
def update_golden(request):
    return request.config.getoption("--update-golden")

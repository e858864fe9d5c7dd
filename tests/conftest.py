"""Shared fixtures: paths to the bundled real data."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
RUN = ROOT / "profiles" / "trn1-2xlarge-bs-sweep"
SEED = RUN / "003_a8d02f199ef107f4.txt"
FIXTURES = Path(__file__).resolve().parent / "fixtures"
VARIANT_FILES = ["baseline.json", "b2.json", "b4.json", "b16.json", "b32.json",
                 "b32-cc-optim.json", "b48.json", "b64.json"]


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

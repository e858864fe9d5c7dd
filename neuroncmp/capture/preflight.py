"""Checks before anything runs on the device (a Neuron device, not PyPI's placeholder
torch-neuronx), and what the manifest records about the machine; how each is decided:
docs/commands/capture.md ("When something fails", "The tools' flags"). The placeholder is checked
here and in each job's log (``placeholder_in_log``): the job may run another interpreter.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from ..errors import InputError
from .tools import Tools

PLACEHOLDER_MARK = "WRONG PACKAGE"
PLACEHOLDER_TEXT = "WRONG PACKAGE. Please install the package from Neuron Repository"
NEURON_PIP = "https://pip.repos.neuron.amazonaws.com"
PLACEHOLDER_FIX = (f"pip install --force-reinstall torch-neuronx neuronx-cc "
                   f"--extra-index-url={NEURON_PIP}")
PACKAGES = ("torch-neuronx", "neuronx-cc", "torch", "torch-xla", "transformers")
# Where an EC2 machine names its instance type when neuron-ls prints none (tests point it elsewhere).
DMI_PRODUCT_NAME = Path("/sys/devices/virtual/dmi/id/product_name")


@dataclass(frozen=True, slots=True)
class Machine:
    """What the manifest says about where the capture ran."""

    instance_type: str | None
    devices: int | None  # device rows neuron-ls listed (None: not asked)
    neuron_ls: str | None  # its output, kept for the record


def check_device(tools: Tools, dev_dir: Path = Path("/dev")) -> Machine:
    """The machine, or InputError when it has no Neuron device."""
    if tools.neuron_ls is None:
        if not any(dev_dir.glob("neuron[0-9]*")):
            raise InputError(f"no Neuron device: no {dev_dir}/neuron* node and no neuron-ls to "
                             "ask; capture runs on a Trainium/Inferentia instance (trn1.2xlarge)")
        return Machine(_dmi_instance(), None, None)
    output, ok = _neuron_ls(tools.neuron_ls)
    rows = [ln for ln in output.splitlines() if ln.lstrip().startswith("|")
            and ln.split("|")[1].strip().isdigit()]
    if not ok or not rows:
        last = output.strip().splitlines()[-1] if output.strip() else "no output"
        raise InputError(f"no Neuron device: neuron-ls lists none ({last}); capture runs on a "
                         "Trainium/Inferentia instance (trn1.2xlarge) with the Neuron driver loaded")
    return Machine(_instance_type(output) or _dmi_instance(), len(rows), output)


def _neuron_ls(path: Path) -> tuple[str, bool]:
    try:
        done = subprocess.run([str(path)], capture_output=True, text=True, timeout=60,
                              stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"neuron-ls: {type(exc).__name__}", False
    return done.stdout + done.stderr, done.returncode == 0


def _instance_type(neuron_ls: str) -> str | None:
    for line in neuron_ls.splitlines():
        key, sep, value = line.partition(":")
        if sep and key.strip() == "instance-type" and value.strip():
            return value.strip()
    return None


def _dmi_instance() -> str | None:
    try:
        text = DMI_PRODUCT_NAME.read_text().strip()
    except OSError:
        return None
    return text if "." in text else None  # "trn1.2xlarge"; a non-EC2 machine names its model


def check_not_placeholder() -> None:
    """InputError when this interpreter has PyPI's placeholder torch-neuronx installed."""
    try:
        dist = metadata.distribution("torch-neuronx")
    except metadata.PackageNotFoundError:
        return
    if PLACEHOLDER_MARK in (dist.read_text("METADATA") or ""):  # its description says so
        raise InputError(f"torch-neuronx {dist.version} is PyPI's placeholder (its import raises "
                         f"'{PLACEHOLDER_MARK}'): {PLACEHOLDER_FIX}")


def placeholder_in_log(log_text: str) -> bool:
    """Did the job die importing a placeholder package (in whatever interpreter it ran)? The
    placeholders' one sentence, however the job reported the ImportError."""
    return PLACEHOLDER_TEXT in log_text


def package_versions() -> dict[str, str | None]:
    """Versions of the Neuron Python packages as this interpreter sees them (None: absent)."""
    found: dict[str, str | None] = {}
    for name in PACKAGES:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            found[name] = None
    return found

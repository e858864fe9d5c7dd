"""The sweep plan: which batch sizes, which command line per variant (its placeholders:
docs/commands/capture.md), where its files go, which environment variables turn the Neuron
runtime's device profiling on. Nothing runs here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ..errors import UsageError
from ..escape import clip

RAW = "raw"  # DIR/raw/<label>/: the command's log, the runtime's inspect output, tool output
INSPECT = "inspect"
LOG = "command.log"
_PLACEHOLDER = re.compile(r"\{(\w+)\}")

# Documented in AWS's Neuron Explorer "Capture profiles" guide (CLI / environment-variable
# capture) and formats.md 9: profiling for the whole process lifetime, device traces of the
# first execution of each NEFF per NeuronCore, written under OUTPUT_DIR/<instance>_pid_<pid>/.
INSPECT_ENABLE = "NEURON_RT_INSPECT_ENABLE"
INSPECT_DEVICE = "NEURON_RT_INSPECT_DEVICE_PROFILE"
INSPECT_OUTPUT = "NEURON_RT_INSPECT_OUTPUT_DIR"
# Neuron Explorer environment-variable reference (SDK 2.33): skip the first N executions of each
# model and profile the (N+1)-th; model mode only. Earlier pages do not list it: an older
# runtime may ignore it (not verified).
INSPECT_WARMUP = "NEURON_RT_INSPECT_DEVICE_PROFILE_NUM_WARMUP"


@dataclass(frozen=True, slots=True)
class Variant:
    """One run of the command: batch size, label (``b8``) and its files."""

    batch_size: int
    label: str
    command: tuple[str, ...]
    env: tuple[tuple[str, str], ...]  # only the variables capture sets, never the whole environ
    raw_dir: Path

    @property
    def inspect_dir(self) -> Path:
        return self.raw_dir / INSPECT

    @property
    def log(self) -> Path:
        return self.raw_dir / LOG


@dataclass(frozen=True, slots=True)
class Plan:
    """A whole sweep: the command template, the output folder and one variant per batch size."""

    out_dir: Path
    template: tuple[str, ...]
    variants: tuple[Variant, ...]
    steps: int | None
    extra_env: tuple[tuple[str, str], ...]


MAX_BATCH = 2 ** 31 - 1  # far beyond any device's memory; keeps labels and arithmetic small


def parse_batches(text: str) -> tuple[int, ...]:
    """``"2,4,8"`` -> (2, 4, 8): positive integers, no repeats, in the order given."""
    batches: dict[int, None] = {}
    for part in (p.strip() for p in text.split(",")):
        # ASCII digits only: str.isdigit() accepts '²' and other digits int() refuses
        if not (part.isascii() and part.isdigit() and len(part) <= 10) or not 0 < int(part) <= MAX_BATCH:
            raise UsageError(f"--batch: expected positive integers (ASCII digits, at most {MAX_BATCH}) "
                             f"separated by commas (2,4,8), found {clip(repr(part), 40)}")
        if int(part) in batches:
            raise UsageError(f"--batch: batch size {int(part)} is listed twice")
        batches[int(part)] = None
    return tuple(batches)


def parse_env(pairs: tuple[str, ...] | list[str]) -> tuple[tuple[str, str], ...]:
    """``["A=1", "B=x"]`` -> (("A", "1"), ("B", "x")) for ``--env``."""
    out = []
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
            raise UsageError(f"--env: expected NAME=VALUE, found {pair!r}")
        out.append((name, value))
    return tuple(out)


def substitute(template: tuple[str, ...], values: dict[str, str]) -> tuple[str, ...]:
    """Fill ``{batch}``, ``{out}``, ``{steps}`` in every argument; other braces stay as they are."""
    return tuple(_PLACEHOLDER.sub(lambda match: values.get(match[1], match[0]), arg) for arg in template)


def check_template(template: tuple[str, ...], steps: int | None) -> None:
    """The command must take the batch size, and ``--steps`` needs a ``{steps}`` to fill."""
    if not template:
        raise UsageError("no command given: put it after '--', e.g. "
                         "neuroncmp capture --batch 2,4 -- python train.py --batch {batch}")
    used = {m.group(1) for arg in template for m in _PLACEHOLDER.finditer(arg)}
    if "batch" not in used:
        raise UsageError("the command has no {batch} placeholder: every variant would run the "
                         "same batch size")
    if steps is not None and "steps" not in used:
        raise UsageError("--steps was given but the command has no {steps} placeholder to fill")


def inspect_env(inspect_dir: Path, warmup: int | None) -> tuple[tuple[str, str], ...]:
    """The runtime variables that make the job write NEFF/NTFF pairs into ``inspect_dir``."""
    env = [(INSPECT_ENABLE, "1"), (INSPECT_DEVICE, "1"), (INSPECT_OUTPUT, str(inspect_dir))]
    if warmup is not None:
        env.append((INSPECT_WARMUP, str(warmup)))
    return tuple(env)


def build(out_dir: Path, template: tuple[str, ...], batches: tuple[int, ...], *,
          steps: int | None = None, warmup: int | None = None,
          extra_env: tuple[tuple[str, str], ...] = ()) -> Plan:
    """The plan for ``batches``: variant ``b{N}`` runs in ``out_dir/raw/b{N}/``."""
    check_template(template, steps)
    if any(name == INSPECT_OUTPUT for name, _ in extra_env):
        raise UsageError(f"--env: {INSPECT_OUTPUT} is set by capture (each variant writes into "
                         f"its own raw folder); choose the folder with --out")
    out_dir = out_dir.resolve()
    variants = []
    for batch in batches:
        label = f"b{batch}"
        raw_dir = out_dir / RAW / label
        values = {"batch": str(batch), "out": str(raw_dir), "steps": str(steps)}
        env = inspect_env(raw_dir / INSPECT, warmup) + extra_env
        variants.append(Variant(batch, label, substitute(template, values), env, raw_dir))
    return Plan(out_dir, template, tuple(variants), steps, extra_env)

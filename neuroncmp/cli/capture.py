"""``neuroncmp capture``: a batch-size sweep (or one graph) captured on trn1 into a run folder."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from ..choices import TOOLS
from ..errors import InputError, UsageError
from .app import BoundaryCommand

DEFAULT_OUT = "neuroncmp-capture"
EPILOG = """\b
Examples:
  neuroncmp capture --batch 2,4,8,16,32 --out runs/bert -- \\
      python scripts/train_bert_neuron.py --batch {batch} --output-dir {out}
  neuroncmp capture --neff model.neff --num-exec 2 --profile-nth-exec 2 --out runs/graph

\b
Placeholders in COMMAND: {batch} (the batch size), {out} (the variant's raw folder,
DIR/raw/b{N}: give it to the Trainer as its output folder so its all_results.json is kept),
{steps} (--steps). DIR gets b{N}.json per captured batch size, manifest.json, and raw/b{N}/
(command.log, the runtime's inspect/ output, the tool's output). A batch size that runs out of
device memory is recorded in the manifest as the sweep's upper bound and the sweep goes on.
Profiling itself reserves about 2 GB of device memory (AWS); see docs/commands/capture.md."""


@click.command(cls=BoundaryCommand,
               context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False}, epilog=EPILOG)
@click.option("--batch", "batches", metavar="N[,N...]", default=None,
              help="Batch sizes to sweep, comma-separated (2,4,8,16,32); with --neff, the one "
                   "batch size of the graph (recorded, used in its label).")
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default=DEFAULT_OUT,
              show_default=True, help="Run folder to write (b{N}.json, manifest.json, raw/).")
@click.option("--steps", type=click.IntRange(min=1), default=None,
              help="Value for the command's {steps} placeholder (e.g. --max_steps {steps}).")
@click.option("--warmup", type=click.IntRange(min=0), default=None,
              help="Executions of each graph to skip before the profiled one "
                   "(NEURON_RT_INSPECT_DEVICE_PROFILE_NUM_WARMUP, SDK 2.33 docs); default: the "
                   "runtime's, the first execution.")
@click.option("--resume", is_flag=True,
              help="Continue the sweep in --out: skip batch sizes already captured or recorded "
                   "out of memory, rerun the rest.")
@click.option("--graph", "graph_rule", default="largest", show_default=True, metavar="RULE",
              help="Which NEFF/NTFF pair is the training step: 'largest' (biggest NEFF file), "
                   "'largest-ntff' (biggest trace), or a glob on the NEFF/NTFF file name.")
@click.option("--tool", type=click.Choice(TOOLS),
              default="auto", show_default=True,
              help="Profile tool; auto: neuron-explorer if installed, else neuron-profile.")
@click.option("--env", "env", multiple=True, metavar="NAME=VALUE",
              help="Extra environment variable for the command (repeatable; recorded).")
@click.option("--neff", type=click.Path(dir_okay=False), default=None,
              help="Single graph mode: capture and view this compiled graph instead of a sweep.")
@click.option("--num-exec", type=click.IntRange(min=1), default=None,
              help="With --neff: executions to run (neuron-profile capture --num-exec).")
@click.option("--profile-nth-exec", "nth", type=click.IntRange(min=1), default=None,
              help="With --neff: the execution to profile; its trace is profile_exec_M.ntff.")
@click.option("--label", default=None,
              help="With --neff: the profile's label (default b{N} with --batch, else the NEFF's name).")
@click.argument("command", nargs=-1, type=click.UNPROCESSED)
def capture(batches: str | None, out_dir: str, steps: int | None, warmup: int | None,
            resume: bool, graph_rule: str, tool: str, env: tuple[str, ...], neff: str | None,
            num_exec: int | None, nth: int | None, label: str | None,
            command: tuple[str, ...]) -> None:
    """Capture device profiles on a Neuron instance into a run folder 'neuroncmp diff' reads.

    Runs COMMAND (after '--') once per --batch size with the Neuron runtime's device profiling
    on (NEURON_RT_INSPECT_*), keeps the training step's profile of each as summary-json, and
    writes DIR/manifest.json. Needs the Neuron tools (aws-neuronx-tools) and a Neuron device.
    """
    from ..capture import session

    _check_mode(neff, command, num_exec, nth, label)
    with _progress() as listener:
        if neff is not None:
            path = session.graph(Path(neff), Path(out_dir), label=label, batch=batches,
                                 num_exec=num_exec, nth=nth, tool=tool, on_event=listener)
            click.echo(f"{path}\nnext: neuroncmp show {path}")
            return
        if batches is None:
            raise UsageError("give --batch N[,N...] with a command after '--', or --neff FILE")
        result = session.sweep(Path(out_dir), command, batches, steps=steps, warmup=warmup,
                               env=env, graph=graph_rule, resume=resume, tool=tool,
                               on_event=listener)
    click.echo(_summary(result))
    _raise_on_failures(result)


def _check_mode(neff: str | None, command: tuple[str, ...],
                num_exec: int | None, nth: int | None, label: str | None) -> None:
    if neff is not None and command:
        raise UsageError("--neff captures one compiled graph and runs no command: drop one")
    if neff is None and (num_exec or nth or label):
        raise UsageError("--num-exec, --profile-nth-exec and --label go with --neff")


class _progress:
    """A rich progress bar across variants on stderr (rich imported only here), as a listener."""

    def __enter__(self) -> Any:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

        self.bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                            console=Console(stderr=True), transient=False)
        self.task: Any = None  # the bar starts with the first event: a check that fails first prints alone
        return self.listen

    def listen(self, event: Any) -> None:
        if self.task is None:
            self.bar.start()
            self.task = self.bar.add_task("capture", total=event.total)
        text = f"{event.label}: {event.detail or event.kind}"[:70]
        advance = 1 if event.kind in ("done", "skip") else 0
        if advance:
            text = f"{event.label}: {event.status or 'skipped'}"
        self.bar.update(self.task, description=text, advance=advance)

    def __exit__(self, *exc: object) -> None:
        if self.task is not None:
            self.bar.stop()
        if exc[0] is KeyboardInterrupt:  # not caught: the hint only, the interrupt goes on
            click.echo("interrupted: finished variants are kept; rerun with --resume", err=True)


def _summary(result: Any) -> str:
    lines = [f"{o.label:>6}  {o.status:<14} {o.file or o.reason}" for o in result.outcomes]
    bound = result.upper_bound
    if bound:
        lines.append(f"upper bound: batch {bound['batch_size']} ran out of device memory{_bound_detail(bound)}")
        lines += _in_use(bound)
    lines.append(f"manifest: {result.manifest}")
    if _captured(result):  # 'diff DIR' needs at least one profile in the folder
        lines.append(f"next: neuroncmp diff {result.out_dir}")
    return "\n".join(lines)


def _bound_detail(bound: dict[str, Any]) -> str:
    """`` (asked for 6.000 GiB of tensors)`` at run time; `` at compile time (neuronx-cc [XCG815]
    estimated 16.80 GiB, over its 16.00 GiB limit)``: the sizes as the table above prints them."""
    from ..units import BYTE, format_value

    if bound.get("stage") == "compile":
        estimate, limit = bound.get("estimate_bytes"), bound.get("limit_bytes")
        sizes = (f" estimated {format_value(estimate, BYTE)}, over its {format_value(limit, BYTE)} limit"
                 if estimate and limit else "")
        return f" at compile time (neuronx-cc [{bound.get('code')}]{sizes})"
    asked = bound.get("requested_bytes")
    return f" (asked for {format_value(asked, BYTE)} of {bound.get('requested_usage')})" if asked else ""


def _in_use(bound: dict[str, Any]) -> list[str]:
    """The memory in use when the runtime failed, by usage type, as its report gave it."""
    from .. import units

    by_type = bound.get("bytes_by_type") or {}
    shown = [f"{usage} {units.format_value(amount, units.BYTE)}" for usage, amount in by_type.items()
             if isinstance(amount, int) and amount > 0]
    where = "the device" if bound.get("bytes_level") == "device" else (bound.get("where") or "the core")
    return [f"in use on {where}: {', '.join(shown)}"] if shown else []


def _captured(result: Any) -> bool:
    """Whether the folder holds a profile: captured now, or kept from an earlier run (a resumed
    run lists those as skipped, so the manifest it just wrote says)."""
    from ..ingest.manifest import manifest_document

    if any(o.status == "captured" for o in result.outcomes):
        return True
    # read within the input limits, as every manifest is: a resumed run keeps what the file held
    return bool((manifest_document(Path(result.manifest).parent) or {}).get("profiles"))


def _raise_on_failures(result: Any) -> None:
    failed = result.failures
    if not _captured(result):
        bound = result.upper_bound
        why = (f"every batch size ran out of device memory, the smallest (batch {bound['batch_size']}) "
               "included: try smaller batch sizes" if bound and not failed else
               "see the reasons above and manifest.json")
        raise InputError(f"no batch size was captured, so {result.out_dir} holds no profile to compare: "
                         f"{why}")
    if failed:
        named = "; ".join(f"{o.label}: {o.status}" for o in failed)
        raise InputError(f"{len(failed)} of {len(result.outcomes)} batch sizes captured nothing "
                         f"({named}); the others are in {result.out_dir}, see manifest.json")

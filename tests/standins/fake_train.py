"""Offline stand-in for a torch-neuronx training job run under NEURON_RT_INSPECT_* (tests only).

What the Neuron runtime does, as AWS documents it: with NEURON_RT_INSPECT_ENABLE=1 and
NEURON_RT_INSPECT_DEVICE_PROFILE=1 it writes, under NEURON_RT_INSPECT_OUTPUT_DIR,
``<instance-id>_pid_<pid>/neff_<hash>.neff`` and ``<hash>_instid_0_vnc_0.ntff`` for the first
execution of each graph. This job "compiles" three graphs (a small initialisation graph, the
training step, by far the largest, and a small loss graph), prints Trainer-style lines and the
``***** train metrics *****`` block, and writes ``all_results.json`` into --output-dir (values
from the bundled real profiles where they have Trainer metrics). At or above STANDIN_OOM_AT
(default 64) it fails like the runtime out of device memory: the log lines and table layout of
AWS's sample (``shared/samples/neuron-runtime/oom_memory_usage_table.txt``), numbers scaled
with the batch size.

With NEURON_RT_INSPECT_DEVICE_PROFILE=session (SDK 2.32-2.33: "captures all device activity per
core in a single NTFF") it lays out what AWS's "Expected output" shows instead:
``<instance-id>_pid_<pid>/<timestamp>/neff_<hash>_vnc_0.neff`` per graph and one
``profile_nc_0_session_0.ntff`` holding every graph.

With STANDIN_OOM_KIND=XCG815 or EOOM002 it fails at compile time instead, the way neuronx-cc stops a
graph too large for a core's 16 GiB and torch-neuronx raises it (``RuntimeError: Failed compilation
with [...]: ... [XCG815]  Estimated peak HBM usage (N) exceeds 16GB. ...``, or the later
``[NCC_EOOM002] Maximum peak HBM usage of NGB exceeds HBM limit of 16.00GB for Trn1.``: the real
messages are in tests/fixtures, README there), the estimate 1.05 x 16 GB x batch / STANDIN_OOM_AT.

Switches: STANDIN_OOM_AT, STANDIN_OOM_KIND, STANDIN_NO_NTFF=<batch> (exit 0, nothing written),
STANDIN_PLACEHOLDER=1 (dies importing PyPI's placeholder torch-neuronx), STANDIN_UNPAIRED=1 (an
extra NTFF with no NEFF), STANDIN_SLEEP=<seconds> (before exiting), STANDIN_FAIL=<batch> (a plain
Python error, exit 1), STANDIN_TABLE_DIR=<dir> (the OOM table goes to
``<dir>/neuron_mem_table_device_0_hbm_0.log``, the log keeps only the failed allocation).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
from pathlib import Path

PROFILES = Path(__file__).resolve().parents[2] / "profiles" / "trn1-2xlarge-bs-sweep"
BUNDLED = {2: "b2", 4: "b4", 8: "baseline", 16: "b16", 32: "b32", 48: "b48", 64: "b64"}
GRAPHS = (("init", 2_048), ("train_step", 65_536), ("loss", 4_096))  # NEFF sizes in bytes
PLACEHOLDER = ("Traceback (most recent call last):\n"
               '  File "train.py", line 3, in <module>\n    import torch_neuronx\n'
               '  File "/venv/lib/python3.10/site-packages/torch_neuronx/__init__.py", line 1, in <module>\n'
               '    raise ImportError("WRONG PACKAGE. Please install the package from Neuron Repository'
               ' - pip.repos.neuron.amazonaws.com")\n'
               "ImportError: WRONG PACKAGE. Please install the package from Neuron Repository - "
               "pip.repos.neuron.amazonaws.com")
HEADER = """\
              |          |  Model   |  Model   |          |  Shared  |          |          |DMA Rings |DMA Rings | DMA Rings |DMA Rings |           |          | Profiler |
              |  TOTAL   |   Code   |Constants | Tensors  |Scratchpad|Scratchpad| Runtime  |    IO    |  Spill   |Collectives| Runtime  |Collectives|  XT CC   | Buffers  |"""
KI = 1024


def size(n: int) -> str:
    """The runtime's binary size text: 3 decimals, B/KB/MB/GB."""
    for unit, factor in (("GB", KI**3), ("MB", KI**2), ("KB", KI)):
        if n >= factor:
            return f"{n / factor:.3f}{unit}"
    return f"{n:.3f}B"


def oom_log(batch: int) -> str:
    tensors, code, scratch, profiler = batch * 160 * KI**2, 192 * KI**2, 3584 * KI**2, 2 * KI**3
    values = [code, 82 * KI, tensors, scratch, 0, 350 * KI, 179 * KI, 64 * KI, 0, 68 * KI, 0, 0, profiler]
    core = [v // 2 if i != 2 else tensors for i, v in enumerate(values)]

    def row(name: str, cells: list[int]) -> str:
        return f"{name:<14}|" + "|".join(f"{size(v):^10}" for v in [sum(cells)] + cells) + "|"

    stamp = "2025-May-15 20:58:33.897479 224822:224822 ERROR  TDRV:"
    return "\n".join([
        f"{stamp}log_dev_mem                             Failed to allocate {size(batch * 96 * KI**2)} "
        "(alignment: none, usage: tensors) on ND 0:NC 0",
        f"{stamp}log_dev_mem_usage_table                 Displaying Current Memory Utilization:",
        "(NOTE: the lines are LONG, and NEFF id to name mapping is printed after)", "", HEADER,
        row("ND 0 Overall", values), row("\\_NC 0", core), "",
        "NEFF id to name mapping:", '1001: "2.21.18209.0+043b1bf7-/tmp/MODULE_train_step"',
        "RuntimeError: Bad StatusOr access: RESOURCE_EXHAUSTED: nrt_tensor_allocate failed"])


def compile_oom_log(batch: int, kind: str, oom_at: int) -> str:
    """neuronx-cc's refusal of the training step's graph, as torch-neuronx raises it."""
    estimate = 1.05 * 16 * batch / oom_at
    workdir = "/tmp/no-user/neuroncc_compile_workdir/0fe2f6bd/model.MODULE_1323+55d6a20f"
    command = (f"['neuronx-cc', 'compile', '--target=trn1', '--framework=XLA', '{workdir}.hlo_module.pb', "
               f"'--output', '{workdir}.neff', '--model-type=transformer', '--verbose=35']")
    if kind == "EOOM002":
        message = (f"[NCC_EOOM002] Maximum peak HBM usage of {estimate:.2f}GB exceeds HBM limit of 16.00GB "
                   "for Trn1.")
    else:
        message = (f"[XCG815]  Estimated peak HBM usage ({estimate:.6f}) exceeds 16GB. Neff won't be able to "
                   "load on chip - Please open a support ticket at https://github.com/aws-neuron/aws-neuron-sdk/"
                   "issues/new")
    return f"RuntimeError: Failed compilation with {command}: 2025-05-15T20:58:33Z {message}"


def write_graphs(batch: int) -> None:
    out = Path(os.environ["NEURON_RT_INSPECT_OUTPUT_DIR"]) / f"i-0123456789abcdef0_pid_{os.getpid()}"
    out.mkdir(parents=True, exist_ok=True)
    for graph, nbytes in GRAPHS:
        digest = str(int(hashlib.sha1(f"{graph}{batch}".encode()).hexdigest()[:12], 16))
        neff = {"standin": "neff", "hash": digest, "graph": graph, "batch": batch}
        text = json.dumps(neff)
        (out / f"neff_{digest}.neff").write_text(text + " " * (nbytes + batch * KI - len(text)))
        ntff = {"standin": "ntff", "neff_hash": digest, "graph": graph, "batch": batch}
        (out / f"{digest}_instid_0_vnc_0.ntff").write_text(json.dumps(ntff))
    if os.environ.get("STANDIN_UNPAIRED"):
        (out / "424242_instid_0_vnc_1.ntff").write_text('{"standin": "ntff"}')


def write_session(batch: int) -> None:
    out = (Path(os.environ["NEURON_RT_INSPECT_OUTPUT_DIR"]) / f"i-0123456789abcdef0_pid_{os.getpid()}"
           / "20261125T101500")
    out.mkdir(parents=True, exist_ok=True)
    for graph, nbytes in GRAPHS:
        digest = str(int(hashlib.sha1(f"{graph}{batch}".encode()).hexdigest()[:12], 16))
        text = json.dumps({"standin": "neff", "hash": digest, "graph": graph, "batch": batch})
        (out / f"neff_{digest}_vnc_0.neff").write_text(text + " " * (nbytes - len(text)))
    (out / "profile_nc_0_session_0.ntff").write_text(json.dumps({"standin": "ntff", "session": True,
                                                                 "batch": batch}))


def trainer(batch: int, output_dir: str | None) -> None:
    file = PROFILES / f"{BUNDLED.get(batch, '')}.all_results.json"
    if not file.is_file():
        return
    metrics = json.loads(file.read_text())
    print("***** train metrics *****")
    for key in sorted(k for k in metrics if not k.startswith("eval")):
        print(f"  {key:<24} = {metrics[key]}")
    if output_dir:
        Path(output_dir).mkdir(parents=True, exist_ok=True)
        (Path(output_dir) / "all_results.json").write_text(json.dumps(metrics, indent=4))


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--per_device_train_batch_size", "--batch", dest="batch", type=int, required=True)
    parser.add_argument("--output_dir", "--output-dir", dest="output_dir")
    parser.add_argument("--max_steps", type=int, default=10)
    args = parser.parse_args()
    if os.environ.get("STANDIN_PLACEHOLDER"):
        print(PLACEHOLDER, file=sys.stderr)
        return 1
    print(f"***** Running training *****\n  Instantaneous batch size per device = {args.batch}")
    print(f"  Total optimization steps = {args.max_steps}", flush=True)
    time.sleep(float(os.environ.get("STANDIN_SLEEP", "0")))
    if str(args.batch) == os.environ.get("STANDIN_FAIL"):
        print("ValueError: tokenizer vocabulary file not found", file=sys.stderr)
        return 1
    oom_at = int(os.environ.get("STANDIN_OOM_AT", "64"))
    kind = os.environ.get("STANDIN_OOM_KIND", "runtime")
    if args.batch >= oom_at and kind != "runtime":
        print(compile_oom_log(args.batch, kind, oom_at), file=sys.stderr)
        return 1
    if args.batch >= oom_at:
        log = oom_log(args.batch)
        table_dir = os.environ.get("STANDIN_TABLE_DIR")
        if table_dir:  # the log line cut short; the whole table in the runtime's own file
            (Path(table_dir) / "neuron_mem_table_device_0_hbm_0.log").write_text(log)
            log = log.splitlines()[0]
        print(log, file=sys.stderr)
        return 1
    mode = os.environ.get("NEURON_RT_INSPECT_DEVICE_PROFILE") if \
        os.environ.get("NEURON_RT_INSPECT_ENABLE") == "1" else None
    if mode in ("1", "model") and str(args.batch) != os.environ.get("STANDIN_NO_NTFF"):
        write_graphs(args.batch)
    elif mode == "session":
        write_session(args.batch)
    trainer(args.batch, args.output_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main())

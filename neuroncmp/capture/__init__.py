"""Capture on trn1: run a training job once per batch size with the Neuron runtime's device
profiling on, and leave a run folder that ``load`` and ``neuroncmp diff`` read directly.

The pipeline, one module per step: ``plan`` (batch sizes, ``{batch}``/``{out}``/``{steps}``
placeholders, per-variant folders, the runtime's inspect variables) -> ``preflight`` (a Neuron
device, not PyPI's placeholder torch-neuronx, the instance type) -> ``runner`` (the command, its
output streamed to a log) -> ``discovery`` (NEFF/NTFF pairs; the training-step graph) -> ``tools``
(``neuron-profile``/``neuron-explorer`` ``view`` and ``capture``) -> ``keep`` / ``sidecars`` (the
summary-json, Explorer's tables, memory and Trainer sidecars) -> ``oom`` (the runtime's
out-of-memory table) -> ``record`` (the manifest, written through ``ingest.manifest``). ``sweep``
runs a whole sweep (resumable, atomic); ``single`` captures one NEFF; ``session`` holds the two
entry points the CLI calls. Progress goes to a callback
(``events``); nothing here prints.
"""

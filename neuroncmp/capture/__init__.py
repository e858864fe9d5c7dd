"""Capture on trn1: run a training job once per batch size with the Neuron runtime's device
profiling on, and leave a run folder that ``load`` and ``neuroncmp diff`` read directly
(docs/commands/capture.md). ``session`` holds the two entry points the CLI calls, ``sweep`` and
``single`` run them; progress goes to a callback (``events``): nothing here prints.
"""

"""The top-level commands, each by its module (``neuroncmp.cli.<name>``, whose command object has the
same name) with the first line of its docstring: ``neuroncmp --help`` lists them from here and imports
none of them (a command's module, and what it imports, loads when it runs or shows its own help).
``tests/test_cli_commands.py`` checks each line against the command's docstring and that every
command module is listed.
"""

from __future__ import annotations

COMMANDS: dict[str, str] = {
    "capture": "Capture device profiles on a Neuron instance into a run folder 'neuroncmp diff' reads.",
    "convert": "Split a multi-profile REPORT (the profiler UI's export) into one file per variant.",
    "diff": "Compare a baseline against variants: FILES are profiles, multi-section exports or run folders.",
    "formats": "List the input formats neuroncmp reads (and the output formats it writes).",
    "history": "Show METRIC's history: one series per distinct tag set, shifts marked (term, json, or a",
    "mcp": "Serve show, diff, sweep, ops, ranks, history and regressions as MCP tools for coding agents,",
    "metrics": "List the metric catalog (name, group, unit, better direction, kind, meaning), or the",
    "ops": "Compare operators: FILES are view JSONs (--output-format json), Explorer Parquet folders or",
    "ranks": "The ranks of one distributed step: FILES are one profile per rank or core (or their folder);",
    "regressions": "List level shifts in every series: changes for the worse first (by the catalog's direction).",
    "report": "Write a static site of the store's history to DIR: the regressions worst first, every",
    "show": "Show every profile in FILES, grouped by catalog group, in human units, with what bounds its step",
    "store": "Keep profiles in a store (a folder of Parquet tables) for history and regressions.",
    "sweep": "Analyse a batch-size sweep: FILES are profiles or run folders (one profile per batch size).",
}

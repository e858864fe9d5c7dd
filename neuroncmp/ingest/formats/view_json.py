"""The full ``neuron-profile view --output-format json`` document: what is read from which section, and
the per-event sections decoded by the plain C decoder, counted and dropped: docs/formats.md ("The view
JSON"). Its sections come in no fixed order (the profiler writes them from a Go map). The ``dma`` and
``instruction`` rows are summed for the bounds as they are dropped (``view_rows``); the header's hardware
facts are kept under Explorer's ``Metadata`` names for the peaks (``analysis/peaks.py``).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ... import catalog
from ...errors import ParseError
from ...model import MemoryRow, Profile, Skipped
from .. import shapes
from ..decode import sections, skip_space
from ..memory_types import canonical_usage
from ..registry import Parser
from ..tool_notes import add_note, tool_warning
from ..values import add_metric, raw_metric
from .summary_json import profile_from_mapping
from .view_rows import RowSums

NAME = "view-json"
_READ = frozenset({"summary", "nc_mem_usage", "warnings", "metadata", "profile_info", "neff_header"})
# Every section seen in profiler 2.27 and 2.28 documents: the sniff knows the format by its
# first key, whichever the map order put first.
SECTIONS = _READ | {"instruction", "instruction_usage", "dma", "pending_dma", "dma_queues_info",
                    "dma_throughput", "layer_summary", "active_time", "summary_groups",
                    "summary_group_order", "terminology", "model_info", "neff_node",
                    "semaphore_update", "ham"}
# (section, field) -> where the value goes: a metadata key (identity of the run) or a metric
# the summary may lack (the catalog's system facts).
_IDENTITY = {("profile_info", "profiler_version"): "profiler_version",
             ("profile_info", "profile_name"): "profile_name",
             ("profile_info", "ntff_filename"): "ntff",
             ("profile_info", "neff_name"): "neff",
             ("neff_header", "network_name"): "neff",
             ("neff_header", "hash"): "neff_hash",
             ("neff_header", "uuid"): "neff_uuid",
             ("neff_header", "number_of_neuroncores_per_lnc"): "lnc_config",
             ("metadata", "instance_type"): "instance_type",
             ("metadata", "hbm_ddr_bandwidth"): "hbm_ddr_bandwidth",
             ("metadata", "num_physical_cores"): "num_physical_cores",
             ("metadata", "vnc_enabled"): "vnc_enabled",
             ("metadata", "dma_ddr_bandwidth"): "dma_ddr_bandwidth",
             ("metadata", "pe_num_rows"): "tensor_engine_num_rows",
             ("metadata", "pe_num_cols"): "tensor_engine_num_cols",
             ("metadata", "pe_clock_freq"): "tensor_engine_clock_freq"}
_FIRST_KEY = r'\s*\{\s*"([^"\\]{1,64})"\s*:\s*(\[?)'  # compiled on first sniff (re's cache)


def parse(text: str, path: str) -> list[Profile]:
    profiles: list[Profile] = []
    index, number = 0, 0
    while number == 0 or skip_space(text, index) < len(text):
        number += 1
        sums = RowSums()
        kept, dropped, index = sections(text, path, _READ, index, sums.on_drop)
        profiles += _document(kept, dropped, path, number, sums)
    if number > 1:  # several documents: tell their profiles apart
        for at, profile in enumerate(profiles, 1):
            profile.label = f"{profile.label}-{at}"
    return profiles


def _document(kept: dict[str, Any], dropped: dict[str, int], path: str, number: int,
              sums: RowSums) -> list[Profile]:
    where = f"document {number}, " if number > 1 else ""
    summary = shapes.items(kept.get("summary"), path, f"{where}section 'summary'", "a list of profiles")
    if not summary:
        raise ParseError(path, f"{where}section 'summary'", "a list of one or more profile objects",
                         "none" if "summary" not in kept else "an empty list")
    stem = Path(path).stem
    profiles = []
    for at, block in enumerate(summary):
        block = shapes.obj(block, path, f"{where}summary[{at}]", "a JSON object of metrics")
        name = stem if len(summary) == 1 else f"{stem}-{at}"
        profiles.append(profile_from_mapping(block, path, f"summary[{at}]", name, NAME))
    first = profiles[0]  # several summaries (not seen yet): the run's facts go with the first
    _memory(kept.get("nc_mem_usage"), path, where, first)
    _warnings(kept.get("warnings"), path, where, first)
    _identity(kept, path, where, first)
    sums.apply(first, path, where)
    first.skipped += [Skipped(f"{where}section '{name}'", f"{rows:,} row{'' if rows == 1 else 's'}",
                              "not read yet (the operator-level comparison will)" + sums.reason(name))
                      for name, rows in dropped.items()]
    return profiles


def _memory(rows: Any, path: str, where: str, profile: Profile) -> None:
    for at, row in enumerate(shapes.items(rows, path, f"{where}section 'nc_mem_usage'")):
        place = f"{where}nc_mem_usage[{at}]"
        row = shapes.obj(row, path, place)
        label, amount = str(row.get("usage_type", "")), row.get("amount_bytes")
        if type(amount) is not int or amount < 0:
            profile.skipped.append(Skipped(place, f"{label[:40]}={amount!r:.40}",
                                           "amount_bytes is not a whole number of bytes"))
            continue
        device = None if row.get("nd") is None else shapes.index(row["nd"], path, f"{place}, nd")
        core = None if row.get("nc") is None else shapes.index(row["nc"], path, f"{place}, nc")
        profile.memory.append(MemoryRow(device, core, canonical_usage(label), label, amount, str(amount)))


def _warnings(rows: Any, path: str, where: str, profile: Profile) -> None:
    for at, row in enumerate(shapes.items(rows, path, f"{where}section 'warnings'")):
        row = shapes.obj(row, path, f"{where}warnings[{at}]")
        message = row.get("message")
        if isinstance(message, str) and message.strip():
            add_note(profile.notes, tool_warning(message, str(row.get("category") or "")))
        else:
            profile.skipped.append(Skipped(f"{where}warnings[{at}]", f"{row!r:.60}", "no message"))


def _identity(kept: dict[str, Any], path: str, where: str, profile: Profile) -> None:
    """The fields that name the run: a catalogued system fact becomes a metric when the summary
    lacks it; the others (NEFF name and hash, NTFF) are metadata. Other fields are skipped."""
    for section in ("profile_info", "neff_header", "metadata"):
        rows = shapes.items(kept.get(section), path, f"{where}section '{section}'")
        for at, row in enumerate(rows):
            row = shapes.obj(row, path, f"{where}{section}[{at}]")
            for field, value in row.items():
                _one_fact(profile, path, f"{where}{section}[{at}]", _IDENTITY.get((section, field)),
                          field, value)


def _one_fact(profile: Profile, path: str, place: str, key: str | None, field: str, value: Any) -> None:
    if key is None or value in (None, ""):
        profile.skipped.append(Skipped(f"{place}, key '{field}'", f"{value!r:.60}",
                                       "not needed to identify the run"))
        return
    spec = catalog.lookup(key)
    if spec.catalogued and spec.group == "system":
        if key not in profile.metrics:
            value = int(value) if isinstance(value, str) and value.isascii() and value.isdigit() else value
            add_metric(profile, raw_metric(path, place, key, value), place)
    else:
        profile.metadata.setdefault(key, value)


# Keys only a view JSON has: a document whose first section is one we do not know yet (a later
# profiler) is still known by any of these in its first 64 KiB.
_ONLY_VIEW = ('"nc_mem_usage":', '"neff_header":', '"profile_info":', '"summary_group_order":',
              '"dma_queues_info":')


def sniff(head: str) -> bool:
    match = re.match(_FIRST_KEY, head)
    if match is None:
        return False
    if match.group(1) in SECTIONS:
        return True
    # every section is a list: a summary-json (an object or a number first) is not searched
    return match.group(2) == "[" and any(key in head for key in _ONLY_VIEW)


PARSER = Parser(NAME, "neuron-profile view --output-format json (the full document: summary, "
                "nc_mem_usage, warnings, run identity)", (".json",), sniff, parse,
                signature=f"a JSON object whose first key is a view JSON section ({', '.join(sorted(_READ))}, ...)")

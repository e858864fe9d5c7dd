"""The Neuron profiler UI's markdown export: one ``# Title`` section per profile (formats.md 5).

Quirks handled: the summary table whose first row of a group is shifted one column right; the
memory table with or without a header row; the Trainer block in a code fence; neuron-top lines
(with a stray ``****``); the Logical NeuronCore line; free text kept as notes. A file without
``#`` sections (a memory sidecar) is one untitled section. A ``#`` section whose ``## Sub``
parts each hold their own tables or Trainer block (one run per part: ``# Batch 32`` with ``##
Padding 16``, ``## Padding 32``, ...) is one profile per part, titled ``Batch 32 Padding 16``:
read as one, their Trainer blocks would collide.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from ... import units as u
from ...errors import ParseError
from ...model import MemoryRow, Profile, Skipped, Source
from .. import shapes
from ..memory_types import canonical_usage
from ..naming import params_from_name
from ..registry import Parser
from ..values import add_metric, display_metric
from . import trainer

NAME = "ui-markdown"
# Every pattern here matches in time linear in the line: no lazy group before optional space.
_LNC = re.compile(r"Logical NeuronCore config\s*=\s*(\d{1,9})(?!\d)", re.IGNORECASE)
_TOP_LINE = re.compile(r"^\s*(Host|Device) Used Memory\b(.*)$")
_TOP_AMOUNT = re.compile(r":\s*([\d.]+\s*[KMGT]?i?B)")
_TOP_KEYS = {"total": "total", "tensors": "tensors", "constants": "constants",
             "app. memory": "app", "dma buffers": "dma_buffers"}
_SEPARATOR = re.compile(r"^:?-+:?$")


class _Section(NamedTuple):
    title: str | None
    first_line: int
    lines: list[str]


def parse(text: str, path: str) -> list[Profile]:
    sections, preamble = _split_sections(text.splitlines())
    profiles: list[Profile] = []
    leftovers: list[Skipped] = list(preamble)
    for section in sections:
        profile = _parse_section(section, path)
        if profile.metrics or profile.memory or profile.training:
            profiles.append(profile)
        else:
            leftovers.append(Skipped(f"line {section.first_line}", section.title or "(untitled)",
                                     "section holds no summary, memory or Trainer table"))
    if not profiles:
        raise ParseError(path, "whole file", "a profiler summary table (| Group | Name | Value |), "
                         "a memory table (| ND Idx | NC Idx | Usage Type | Amount |) or a Trainer "
                         "metrics block", "none")
    profiles[0].skipped[:0] = leftovers
    return profiles


def _split_sections(lines: list[str]) -> tuple[list[_Section], list[Skipped]]:
    sections: list[_Section] = []
    preamble: list[Skipped] = []
    for number, line in enumerate(lines, 1):
        title = _heading(line)
        if title is not None:
            sections.append(_Section(title, number + 1, []))
        elif sections:
            sections[-1].lines.append(line)
        elif line.strip():
            preamble.append(Skipped(f"line {number}", line.strip()[:80], "before the first section"))
    if not sections:  # a file without headings is one untitled section
        return [_Section(None, 1, lines)], []
    return [part for section in sections for part in _sub_sections(section)], preamble


def _sub_sections(section: _Section) -> list[_Section]:
    """The ``## Sub`` parts of a section, as sections of their own, when two or more of them
    hold content (a table or a Trainer block); else the section as it is."""
    parts = [_Section(section.title, section.first_line, [])]
    for offset, line in enumerate(section.lines):
        if line.startswith("## ") and line[3:].strip():
            parts.append(_Section(f"{section.title} {line[3:].strip()}", section.first_line + offset + 1, []))
        else:
            parts[-1].lines.append(line)
    if sum(1 for part in parts[1:] if _has_content(part.lines)) < 2:
        return [section]
    return parts if _has_content(parts[0].lines) or any(ln.strip() for ln in parts[0].lines) else parts[1:]


def _has_content(lines: list[str]) -> bool:
    return any(line.lstrip().startswith("|") or trainer.HEADER.match(line) for line in lines)


def _heading(line: str) -> str | None:
    """The title of a ``# Title`` line (one ``#``, then space), else None."""
    return line[1:].strip() if line.startswith("#") and line[1:2].isspace() else None


def _parse_section(section: _Section, path: str) -> Profile:
    if section.title is None:
        label, params = params_from_name(Path(path).stem.split(".")[0], "file name")
    else:
        label, params = params_from_name(section.title, "section title")
    profile = Profile(Source(path, NAME, section.title), label, params)
    lines, i = section.lines, 0
    while i < len(lines):
        i = _consume(lines, i, section.first_line, path, profile)
    return profile


def _consume(lines: list[str], i: int, first: int, path: str, profile: Profile) -> int:
    """Handle the construct starting at ``lines[i]``; return the index after it."""
    line, number = lines[i], first + i
    stripped = line.strip()
    if stripped.startswith("```"):
        end = _block_end(lines, i + 1, lambda s: s.strip().startswith("```"))
        _fenced(lines[i + 1:end], number + 1, path, profile)
        return end + 1
    if stripped.startswith("|"):
        end = _block_end(lines, i, lambda s: not s.strip().startswith("|"))
        _table(lines[i:end], number, path, profile)
        return end
    if trainer.HEADER.match(line):
        end = _block_end(lines, i + 1, lambda s: not s.strip() or "=" not in s)
        trainer.parse_block(lines[i:end], path, number, profile)
        return end
    _line(stripped, number, path, profile)
    return i + 1


def _block_end(lines: list[str], start: int, stops: Callable[[str], bool]) -> int:
    """Index of the first line from ``start`` on that ends the block (or the end of the text)."""
    for j in range(start, len(lines)):
        if stops(lines[j]):
            return j
    return len(lines)


def _fenced(block: list[str], first: int, path: str, profile: Profile) -> None:
    if any(trainer.HEADER.match(line) for line in block):
        trainer.parse_block(block, path, first, profile)
    else:
        profile.skipped += [Skipped(f"line {first + k}", ln.strip()[:80], "code block, not metrics")
                            for k, ln in enumerate(block) if ln.strip()]


def _line(stripped: str, number: int, path: str, profile: Profile) -> None:
    if not stripped:
        return
    lnc = _LNC.search(stripped)
    top = _TOP_LINE.match(stripped)
    if lnc:
        profile.metadata["lnc_config"] = int(lnc.group(1))
    elif top:
        _neuron_top(top.group(1).lower(), top.group(2), number, path, profile)
    else:
        profile.notes.append(stripped)


def _neuron_top(side: str, rest: str, number: int, path: str, profile: Profile) -> None:
    """``Device Used Memory  Total: 10.6GB  Tensors: 2.4GB ...`` (GB here are GiB)."""
    rest = rest.rstrip("* ")
    where, start = f"line {number}", 0
    for match in _TOP_AMOUNT.finditer(rest):
        key, amount, start = rest[start:match.start()].strip(), match.group(1), match.end()
        short = _TOP_KEYS.get(key.lower())
        if short is None:
            profile.skipped.append(Skipped(where, f"{key[:60]}: {amount[:20]}", "unknown neuron-top field"))
            continue
        name = f"{side}_used_memory_{short}"
        add_metric(profile, display_metric(path, where, name, amount, binary_si=True), where)
    if rest[start:].strip():
        profile.skipped.append(Skipped(where, rest[start:].strip()[:80], "not 'Field: amount'"))


def _cells(row: str) -> list[str]:
    return [cell.strip() for cell in row.strip().strip("|").split("|")]


def _unbold(cell: str) -> str:
    return " ".join(cell.replace("**", " ").split())


def _table(rows: list[str], first: int, path: str, profile: Profile) -> None:
    parsed = [(first + k, _cells(row)) for k, row in enumerate(rows)]
    has_header = len(parsed) > 1 and all(_SEPARATOR.match(x) for x in parsed[1][1] if x)
    header = [_unbold(c).lower() for c in parsed[0][1]] if has_header else []
    body = parsed[2:] if has_header else parsed
    width = len(parsed[0][1])
    if {"group", "name", "value"} <= set(header):
        _summary_rows(body, path, profile)
    elif width == 4 and (not any(header) or "usage type" in header):
        _memory_rows(body, path, profile)  # the export sometimes leaves the header row blank
    elif width == 4 and _is_amount(parsed[0][1][3]):
        _memory_rows(parsed[:1] + body, path, profile)  # ... or puts the first data row there
    else:
        profile.skipped += [Skipped(f"line {n}", " | ".join(c)[:80], "table of unknown shape")
                            for n, c in parsed]


def _is_amount(cell: str) -> bool:
    parsed = u.parse_display(_unbold(cell))
    return parsed is not None and parsed[1] == u.BYTE


def _summary_rows(body: list[tuple[int, list[str]]], path: str, profile: Profile) -> None:
    for number, cells in body:
        where = f"line {number}"
        if any(cells[3:]):
            profile.skipped.append(Skipped(where, " | ".join(cells[3:])[:80], "cells beyond the third"))
        cells = cells + [""] * (3 - len(cells))
        if cells[0] and not cells[0].startswith("**") and cells[1].startswith("**"):
            name, value = cells[1], cells[2]  # first row of a group: group name in column 1
        elif cells[0].startswith("**"):
            name, value = cells[0], cells[1]  # the shifted rows: metric in column 1
        elif not cells[0] and cells[1]:
            name, value = cells[1], cells[2]  # a well-formed continuation row
        else:
            profile.skipped.append(Skipped(where, " | ".join(cells)[:80], "summary row without a metric"))
            continue
        metric = display_metric(path, where, _unbold(name), _unbold(value))
        add_metric(profile, metric, where)  # the catalog, not the export, decides the group


def _memory_rows(body: list[tuple[int, list[str]]], path: str, profile: Profile) -> None:
    for number, cells in body:
        where = f"line {number}"
        if len(cells) != 4:
            raise ParseError(path, where, "4 memory table cells (ND Idx, NC Idx, Usage Type, Amount)",
                             f"{len(cells)} cells")
        device, core, label, amount = cells[0], cells[1], _unbold(cells[2]), _unbold(cells[3])
        parsed = u.parse_display(amount)
        if parsed is None or parsed[1] != u.BYTE or not math.isfinite(parsed[0]):
            raise ParseError(path, f"{where}, usage type '{label}'", "an amount in bytes (e.g. 64 KiB)",
                             repr(amount))
        profile.memory.append(MemoryRow(_index(device, path, where), _index(core, path, where),
                                        canonical_usage(label), label, int(parsed[0]), amount))


def _index(text: str, path: str, where: str) -> int | None:
    text = _unbold(text)
    return shapes.index(text, path, where, "a device or core index") if text else None


def memory_table(rows: list[MemoryRow]) -> list[str]:
    """The rows as the memory table this parser reads back (``convert``'s and ``capture``'s sidecar)."""
    cells = [f"| {_index_text(r.device)} | {_index_text(r.core)} | {r.label} | {_amount(r)} |" for r in rows]
    return ["| ND Idx | NC Idx | Usage Type | Amount |", "| --- | --- | --- | --- |", *cells]


def _index_text(value: int | None) -> str:
    return "" if value is None else str(value)


def _amount(row: MemoryRow) -> str:
    """The amount as read when it carries its unit (``3.5 GiB``), else in bytes: neuron-monitor
    and Explorer give bare integers, which the memory table would not read back."""
    parsed = u.parse_display(row.raw) if row.raw else None
    return row.raw if parsed is not None and parsed[1] == u.BYTE else f"{row.bytes} B"


def sniff(head: str) -> bool:
    has_table = "| Group" in head or "Usage Type" in head or re.search(r"^\|.*\*\*", head, re.M)
    return bool(has_table) or (bool(re.search(r"^# \S", head, re.M)) and "|" in head)


PARSER = Parser(NAME, "Neuron profiler UI markdown export (multi-section, summary + memory tables)",
                (".md", ".markdown", ".txt"), sniff, parse,
                signature="a markdown '| Group | Name | Value |' or 'Usage Type' table")

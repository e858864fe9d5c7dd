"""Out-of-memory reports read from a job's log: the Neuron runtime's (the failed allocation and the
memory table, or from older runtimes the bullet list, after it) and neuronx-cc's (the compiler refuses
a graph whose estimated peak device memory exceeds one NeuronCore's, before anything runs; a
torch-neuronx job compiles as it runs, so that message is in the job's log too). Their forms, traps and
why sizes are binary: docs/commands/capture.md ("Device memory"); samples in
``shared/samples/neuron-runtime/oom_memory_usage_table.txt``, ``tests/data/third_party/runtime-oom/``
and ``tests/fixtures/README.md``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, NamedTuple

from .. import units
from ..ingest.memory_types import canonical_usage
from ..units import BYTE, format_value

_FAILED = re.compile(r"Failed to allocate\s+(?P<size>[\d.]+\s*[KMGT]?B)\s*\((?P<details>[^)]*)\)"
                     r"(?:\s+on\s+(?P<where>ND\s*\d+\s*:\s*NC\s*\d+))?")
_TABLE = "log_dev_mem_usage_table"
_ROW = re.compile(r"^\s*(?:\\_)?\s*(?P<kind>ND|NC|NEFF)\s+(?P<index>\d+)(?P<rest>[^|]*)\|")
_NAME = re.compile(r'^\s*(\d+):\s*"(.*)"\s*$')
_SIZE = r"[\d.]+\s*[KMGT]?i?B"
_BULLET = re.compile(rf"^\s*\*\s*(?:(?P<label>[A-Za-z][\w ]*?)\s*:\s*(?P<size>{_SIZE})"
                     rf"|(?P<size2>{_SIZE})\s*:\s*(?P<label2>[A-Za-z][\w ]*?))\s*$")
_PLACE = re.compile(r"ND\s*(\d+)\s*:\s*NC\s*(\d+)")
_CODE = re.compile(r"(?:\[|\b)(?:NCC_)?(?P<code>XCG815|EOOM001|EOOM002|EXSP001)\]")
_ESTIMATED = re.compile(rf"Estimated peak HBM usage\s*\((?P<usage>[\d.]+)\)\s*exceeds\s+(?P<limit>{_SIZE})")
_MAXIMUM = re.compile(rf"Maximum peak HBM usage of\s+(?P<usage>{_SIZE})(?:\s*\(at instruction[^)]*\))?\s+"
                      rf"exceeds HBM limit of\s+(?P<limit>{_SIZE})(?:\s+for\s+(?P<target>\w+))?")
_UNIT = re.compile(r"[KMGT]?i?B$")


@dataclass(frozen=True, slots=True)
class Row:
    """One table row: the device total, one core, or one NEFF on that core."""

    level: str  # "device" | "core" | "neff"
    device: int | None
    core: int | None
    neff: int | None
    bytes_by_type: tuple[tuple[str, int | None], ...]  # canonical usage type -> bytes (None: n/a)

    def as_dict(self) -> dict[str, Any]:
        return {"level": self.level, "nd": self.device, "nc": self.core, "neff": self.neff,
                "bytes": dict(self.bytes_by_type)}


@dataclass(frozen=True, slots=True)
class OomReport:
    """What the runtime failed to allocate, and the memory in use when it did."""

    requested_bytes: int | None
    requested_usage: str | None
    where: str | None  # "ND 0:NC 4"
    columns: tuple[str, ...]  # raw column names ("Model Code", ...)
    rows: tuple[Row, ...]
    neff_names: tuple[tuple[int, str], ...]

    def device_row(self) -> Row | None:
        return next((r for r in self.rows if r.level == "device"), None)

    def breakdown(self) -> Row | None:
        """The widest row the report has: the device's (table form), else the core's (bullets)."""
        return self.device_row() or next((r for r in self.rows if r.level == "core"), None)

    def asked(self) -> str:
        """``4.000 GiB of tensors``: the allocation that failed, or ``memory`` when no size is given."""
        if self.requested_bytes is None:
            return "memory"
        return f"{units.format_value(self.requested_bytes, units.BYTE)} of {self.requested_usage}"

    def as_dict(self) -> dict[str, Any]:
        device, widest = self.device_row(), self.breakdown()
        return {"stage": "runtime", "requested_bytes": self.requested_bytes, "requested_usage": self.requested_usage,
                "where": self.where, "columns": list(self.columns),
                "device_bytes_by_type": dict(device.bytes_by_type) if device else None,
                "bytes_by_type": dict(widest.bytes_by_type) if widest else None,
                "bytes_level": widest.level if widest else None,
                "rows": [r.as_dict() for r in self.rows],
                "neff_names": {str(k): v for k, v in self.neff_names}}


def size_bytes(text: str) -> int | None:
    """``"20.188GB"`` -> 21676163000-ish bytes (binary), ``"n/a"`` -> None."""
    parsed = units.parse_display(text.strip(), binary_si=True)
    if parsed is None or parsed[1] != units.BYTE:
        return None
    return int(parsed[0])


def parse(text: str) -> OomReport | None:
    """The out-of-memory report in ``text``, or None when it holds neither the failed allocation
    nor the memory table."""
    lines = text.splitlines()
    at = next((i for i, line in enumerate(lines) if _FAILED.search(line)), None)
    failed = _FAILED.search(lines[at]) if at is not None else None
    start = next((i for i, line in enumerate(lines) if _TABLE in line), None)
    if failed is None and start is None:
        return None
    columns, rows = _table(lines, start) if start is not None else ((), ())
    if not rows and at is not None:
        columns, rows = _bullets(lines, at)
    usage = re.search(r"usage:\s*([\w ]+)", failed["details"]) if failed else None
    return OomReport(size_bytes(failed["size"]) if failed else None,
                     usage.group(1).strip() if usage else None,
                     re.sub(r"\s+", " ", failed["where"]) if failed and failed["where"] else None,
                     columns, rows, _names(lines, start or 0))


def _table(lines: list[str], start: int) -> tuple[tuple[str, ...], tuple[Row, ...]]:
    headers = [ln for ln in lines[start + 1:start + 8] if ln.lstrip().startswith("|")][:2]
    cells = [[c.strip() for c in h.strip().strip("|").split("|")] for h in headers]
    joined = zip(*cells, strict=False)  # a header cell per column on each of the two lines
    columns = tuple(" ".join(p for p in parts if p).strip() for parts in joined) if cells else ()
    canonical = [canonical_usage(c) for c in columns]
    rows: list[Row] = []
    device: int | None = None
    core: int | None = None
    for line in lines[start + 1:]:
        match = _ROW.match(line)
        if match is None:
            if rows and not line.strip():
                break  # the blank line that ends the table
            continue
        kind, index = match["kind"], int(match["index"])
        values = [c.strip() for c in line.split("|")[1:len(columns) + 1]]
        if kind == "ND":
            device, core = index, None
        elif kind == "NC":
            core = index
        sizes = tuple(zip(canonical, (size_bytes(v) for v in values), strict=False))  # a cut row: fewer
        level = {"ND": "device", "NC": "core", "NEFF": "neff"}[kind]
        rows.append(Row(level, device, core if kind != "ND" else None,
                        index if kind == "NEFF" else None, sizes))
    return columns, tuple(rows)


def _bullets(lines: list[str], at: int) -> tuple[tuple[str, ...], tuple[Row, ...]]:
    """The ``* label: size`` list after the failed allocation at line ``at``, as one core row."""
    pairs: list[tuple[str, int | None]] = []
    for line in lines[at + 1:]:
        match = _BULLET.match(line)
        if match is None:
            break  # the blank line (or the next log line) that ends the list
        label = (match["label"] or match["label2"]).strip()
        pairs.append((label, size_bytes(match["size"] or match["size2"])))
    if not pairs:
        return (), ()
    place = _PLACE.search(lines[at])
    device, core = (int(place.group(1)), int(place.group(2))) if place else (None, None)
    typed = tuple((canonical_usage(label), amount) for label, amount in pairs)
    return tuple(label for label, _ in pairs), (Row("core", device, core, None, typed),)


def _names(lines: list[str], start: int) -> tuple[tuple[int, str], ...]:
    names = []
    for line in lines[start:]:
        match = _NAME.match(line)
        if match:
            names.append((int(match.group(1)), match.group(2)))
    return tuple(names)


class CompileOom(NamedTuple):
    """The compiler's refusal: its code, its estimate of the graph's peak device memory and the
    limit it held it to (bytes; None when the message gives none), the target it names, the line."""

    code: str
    estimate_bytes: int | None
    limit_bytes: int | None
    target: str | None
    message: str

    def as_dict(self) -> dict[str, Any]:
        return {"stage": "compile", "code": self.code, "estimate_bytes": self.estimate_bytes,
                "limit_bytes": self.limit_bytes, "target": self.target, "message": self.message}

    def reason(self) -> str:
        """``neuronx-cc [XCG815] estimated the graph's peak device memory at 22.84 GiB, over its 16 GiB limit``."""
        if self.estimate_bytes is None or self.limit_bytes is None:
            return f"neuronx-cc [{self.code}]: the graph's peak device memory exceeds the limit (no size given)"
        return (f"neuronx-cc [{self.code}] estimated the graph's peak device memory at "
                f"{format_value(self.estimate_bytes, BYTE)}, over its {format_value(self.limit_bytes, BYTE)} limit")


def parse_compiler(text: str) -> CompileOom | None:
    """The first compile-time out-of-memory message in ``text``, or None."""
    found = _CODE.search(text)
    if found is None:
        return None
    line = text[found.start():].partition("\n")[0].strip()
    after = text[found.end():found.end() + 600]  # the message, even where a log wrapped it
    usage, limit, target = _sizes(after)
    return CompileOom(found["code"], usage, limit, target, line[:400])


def _sizes(message: str) -> tuple[int | None, int | None, str | None]:
    """(estimate, limit, target) as the message states them; Nones where it states none."""
    estimated = _ESTIMATED.search(message)
    if estimated is not None:
        limit = estimated["limit"].replace(" ", "")
        unit = _UNIT.search(limit)
        return size_bytes(estimated["usage"] + (unit.group(0) if unit else "")), size_bytes(limit), None
    maximum = _MAXIMUM.search(message)
    if maximum is not None:
        return size_bytes(maximum["usage"]), size_bytes(maximum["limit"]), maximum["target"]
    return None, None, None

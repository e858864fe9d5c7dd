"""What a capture could not profile: the run folder's ``failed`` entries, for ``sweep`` and ``diff``.

``load`` reads only the profiles; ``failures_of`` reads the entries ``capture`` records
(``capture/record.py``; docs/commands/capture.md) from the manifests the given profiles were listed in.
An entry that is not what capture writes is left out with a note naming the manifest and the entry
(the profiles still load: the list is capture's record, not part of the schema ``load`` checks).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any, NamedTuple

from ..errors import ParseError
from ..model import Profile
from ..units import BYTE, format_value, text_or_none
from .manifest import MANIFEST, entry_for, manifest_document, remembered
from .shapes import found

OUT_OF_MEMORY = "out-of-memory"  # the status capture writes (capture/record.py reads it from here)
COMPILE = "compile"
REASON_SHOWN = 80  # characters of a failure's reason on the axis line


class Failed(NamedTuple):
    """One batch size the capture could not profile, as its manifest records it."""

    label: str
    batch_size: int
    status: str                   # "out-of-memory", "failed", "no-ntff", "tool-error", ...
    reason: str
    stage: str | None = None      # out of memory: "runtime" or "compile"
    code: str | None = None       # compile: neuronx-cc's message code (XCG815, EOOM002, ...)
    requested_bytes: int | None = None   # runtime: the allocation that failed
    requested_usage: str | None = None
    estimate_bytes: int | None = None    # compile: the compiler's estimate of the graph's peak memory
    limit_bytes: int | None = None       # compile: the limit it held the estimate to
    manifest: str = ""

    @property
    def out_of_memory(self) -> bool:
        return self.status == OUT_OF_MEMORY

    @property
    def at_compile(self) -> bool:
        return self.out_of_memory and self.stage == COMPILE

    def detail(self) -> str:
        """What the runtime asked for, or what the compiler estimated: ``the runtime failed to
        allocate 6.000 GiB of tensors``; ``neuronx-cc [XCG815] estimated 16.80 GiB, over its 16.00 GiB
        limit``; '' when the manifest holds neither."""
        if self.at_compile:
            if self.estimate_bytes is None or self.limit_bytes is None:
                return f"neuronx-cc [{self.code}] gave no sizes" if self.code else ""
            return (f"neuronx-cc [{self.code}] estimated {format_value(self.estimate_bytes, BYTE)}, over its "
                    f"{format_value(self.limit_bytes, BYTE)} limit")
        if self.out_of_memory and self.requested_bytes is not None:
            usage = f" of {self.requested_usage}" if self.requested_usage else ""
            return f"the runtime failed to allocate {format_value(self.requested_bytes, BYTE)}{usage}"
        return ""

    def phrase(self) -> str:
        """``out of device memory at capture``, ``... at compile time``, or the status and the
        start of the reason for any other failure."""
        if self.at_compile:
            return "out of device memory at compile time"
        if self.out_of_memory:
            return "out of device memory at capture"
        reason = self.reason if len(self.reason) <= REASON_SHOWN else self.reason[:REASON_SHOWN - 3] + "..."
        return f"no profile at capture ({self.status}: {reason})"

    def axis_text(self) -> str:
        """``b64: out of device memory at capture``."""
        return f"{self.label}: {self.phrase()}"


class Failures(NamedTuple):
    """The failed batch sizes of the run folders a set of profiles came from, by batch size, and a
    note for each entry left out."""

    entries: tuple[Failed, ...] = ()
    notes: tuple[str, ...] = ()

    @property
    def out_of_memory(self) -> tuple[Failed, ...]:
        return tuple(f for f in self.entries if f.out_of_memory)


def failures_of(profiles: Iterable[Profile]) -> Failures:
    """The ``failed`` entries of every manifest that lists one of ``profiles``, each manifest once,
    in batch-size order; a manifest that cannot be read now (moved, edited) gives none."""
    folders: dict[str, Path] = {}
    with remembered():
        for profile in profiles:
            path = Path(profile.source.path)
            if entry_for(path) is not None:  # the folder's manifest lists this profile
                folders.setdefault(os.path.abspath(path.parent), path.parent)  # one folder however named
    entries: list[Failed] = []
    notes: list[str] = []
    for folder in folders.values():
        found_here, said = _read(folder)
        entries += found_here
        notes += said
    return Failures(tuple(sorted(entries, key=lambda f: (f.batch_size, f.label))), tuple(notes))


def _read(folder: Path) -> tuple[list[Failed], list[str]]:
    where = str(folder / MANIFEST)
    try:
        document = manifest_document(folder) or {}
    except (OSError, ParseError) as exc:
        return [], [f"{where}: its failed batch sizes not read ({exc})"]
    listed = document.get("failed") or []
    if not isinstance(listed, list):
        return [], [f"{where}: failed: expected a list of capture failures, found {found(listed)}; not read"]
    out, notes = [], []
    for index, entry in enumerate(listed):
        made = _entry(entry, where)
        if isinstance(made, str):
            notes.append(f"{where}: failed[{index}]: {made}; left out")
        else:
            out.append(made)
    return out, notes


_TEXTS = ("label", "status", "reason")


def _entry(entry: Any, where: str) -> Failed | str:
    """The entry as a ``Failed``, or what is wrong with it."""
    if not isinstance(entry, dict):
        return f"expected an object, found {found(entry)}"
    for key in _TEXTS:
        if not isinstance(entry.get(key), str):
            return f"{key}: expected text, found {found(entry.get(key))}"
    size = entry.get("batch_size")
    if type(size) is not int or size < 1:
        return f"batch_size: expected a whole number >= 1, found {found(size)}"
    recorded = entry.get("oom")
    oom: dict[str, Any] = recorded if isinstance(recorded, dict) else {}
    return Failed(entry["label"], size, entry["status"], entry["reason"], text_or_none(oom.get("stage")),
                  text_or_none(oom.get("code")), byte_count(oom.get("requested_bytes")),
                  text_or_none(oom.get("requested_usage")), byte_count(oom.get("estimate_bytes")),
                  byte_count(oom.get("limit_bytes")), where)


def byte_count(value: Any) -> int | None:
    """A byte count as capture writes it (a whole number >= 0), else None: an edited manifest's
    other values are not shown as sizes."""
    return value if type(value) is int and value >= 0 else None

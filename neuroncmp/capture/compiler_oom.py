"""neuronx-cc's own out-of-memory stop, read from a job's log: the compiler refuses a graph whose
estimated peak device memory exceeds one NeuronCore's, before anything runs (a torch-neuronx job
compiles as it runs, so the message is in the job's log, inside torch-neuronx's ``RuntimeError``).
Its forms and traps: docs/commands/capture.md ("Device memory"); sources: ``tests/fixtures/README.md``.
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from ..units import BYTE, format_value
from .oom import size_bytes

_SIZE = r"[\d.]+\s*[KMGT]?i?B"
_CODE = re.compile(r"(?:\[|\b)(?:NCC_)?(?P<code>XCG815|EOOM001|EOOM002|EXSP001)\]")
_ESTIMATED = re.compile(rf"Estimated peak HBM usage\s*\((?P<usage>[\d.]+)\)\s*exceeds\s+(?P<limit>{_SIZE})")
_MAXIMUM = re.compile(rf"Maximum peak HBM usage of\s+(?P<usage>{_SIZE})(?:\s*\(at instruction[^)]*\))?\s+"
                      rf"exceeds HBM limit of\s+(?P<limit>{_SIZE})(?:\s+for\s+(?P<target>\w+))?")
_UNIT = re.compile(r"[KMGT]?i?B$")


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


def parse(text: str) -> CompileOom | None:
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

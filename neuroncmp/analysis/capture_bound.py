"""The batch-size bound a capture found: the smallest batch size that ran out of device memory, weighed
against the sweep's own memory forecast (``fits.MemoryForecast``). A batch size that ran out of memory
while profiled may still fit in training, where the profiler's buffers are not allocated; neuronx-cc's
refusal (``stage: compile``) estimates the graph alone, with no profiler in it. The verdicts:
docs/findings.md (``capture-bound``)."""

from __future__ import annotations

from typing import NamedTuple

from ..ingest.failures import Failed
from ..units import BYTE, format_value
from . import fits

COMPILER, NO_FORECAST, CONTRADICTED, MAY_FIT, AGREES = "compiler", "no-forecast", "contradicted", "may-fit", "agrees"


class OomBound(NamedTuple):
    """The smallest batch size that ran out of memory at capture, and what the forecast says of it."""

    failure: Failed
    verdict: str                  # COMPILER, NO_FORECAST, CONTRADICTED, MAY_FIT or AGREES
    profiled: float | None        # the forecast's device memory at the bound, as profiled (bytes)
    unprofiled: float | None      # ... without the profiler's buffers
    hbm: float | None             # one core's device memory
    profiler: float               # the profiler's buffers the forecast counts (bytes)

    @property
    def batch_size(self) -> int:
        return self.failure.batch_size

    @property
    def label(self) -> str:
        return self.failure.label

    @property
    def basis(self) -> str:
        """What the forecast the bound is weighed by counts: the compiler's estimate holds no profiler."""
        return "without the profiler's buffers" if self.failure.at_compile else "as profiled"

    @property
    def margin(self) -> float | None:
        """What the core's memory leaves over the forecast without the profiler (MAY_FIT only)."""
        if self.verdict != MAY_FIT or self.hbm is None or self.unprofiled is None:
            return None
        return self.hbm - self.unprofiled

    def sentence(self) -> str:
        """The bound and the forecast's word on it, one sentence (the finding's title)."""
        failure = self.failure
        detail = failure.detail()
        said = f"{failure.label} ran {failure.phrase()}"
        if self.verdict == COMPILER:
            return f"{said}: {detail}, so it does not fit with or without the profiler" if detail else said
        said += f" ({detail})" if detail else ""
        return said + self.judgement()

    def judgement(self) -> str:
        """The forecast's word on the bound (``; without them ...``), '' without a forecast."""
        if self.verdict in (COMPILER, NO_FORECAST) or self.hbm is None:
            return ""
        hbm = f"{_gib(self.hbm)} per core"
        if self.verdict == CONTRADICTED:
            forecast = self.unprofiled if self.failure.at_compile else self.profiled
            return (f", though the memory forecast puts it at {_gib(forecast)} of {hbm} {self.basis}: "
                    "the forecast does not hold there")
        if self.verdict == MAY_FIT:
            return (f" with the profiler's {_gib(self.profiler)} of buffers; without them the memory forecast "
                    f"puts it at {_gib(self.unprofiled)} of {hbm} ({_gib(self.margin)} to spare): it may fit "
                    "in training, untested")
        return (f"; the memory forecast agrees: {_gib(self.unprofiled)} even without the profiler's buffers, "
                f"over the {hbm}")

    def short(self) -> str:
        """The bound for the models' ``largest batch`` line: ``b64 ran out of device memory at capture``
        and, where the forecast may fit, that (where it does not hold, the line says so first)."""
        said = f"{self.label} ran {self.failure.phrase()}"
        if self.verdict == MAY_FIT:
            return said + f" (may fit without the profiler's buffers, {_gib(self.margin)} to spare: untested)"
        return said


def _gib(value: float | None) -> str:
    return format_value(value, BYTE) if value is not None else "?"


def oom_bound(failed: tuple[Failed, ...], memory: fits.MemoryForecast | None) -> OomBound | None:
    """The bound of the smallest batch size that ran out of memory (None when none did)."""
    smallest = min((f for f in failed if f.out_of_memory), key=lambda f: f.batch_size, default=None)
    if smallest is None:
        return None
    if memory is None:
        return OomBound(smallest, COMPILER if smallest.at_compile else NO_FORECAST, None, None, None, 0.0)
    profiled, unprofiled = memory.at(smallest.batch_size), memory.at(smallest.batch_size, profiled=False)
    if smallest.at_compile:  # the compiler's estimate has no profiler in it: weighed without the buffers
        verdict = CONTRADICTED if unprofiled <= memory.hbm else AGREES
    else:
        verdict = CONTRADICTED if profiled <= memory.hbm else MAY_FIT if unprofiled <= memory.hbm else AGREES
    return OomBound(smallest, verdict, profiled, unprofiled, memory.hbm, memory.profiler_buffers)

"""Hardware facts per instance family, for analyses that need them when a profile does not carry them.

Values a profile carries win; this table is the fallback, and every analysis says which source it used.
Rows are per *physical* NeuronCore; ``for_instance`` scales them to one *logical* core at the LNC. Each
figure's AWS source, and which one wins where two disagree: docs/bounds.md ("Hardware facts", "Where neuroncmp
differs from AWS": Peaks per profile).
"""

from __future__ import annotations

import re
from typing import NamedTuple

GIB = 2**30
_TRN1_RESERVE = ("about 2 GB of profiler buffers (AWS, neuron-runtime/explore/device-memory.rst)", 2e9)
_HEADER_DMA = (435e9, "the dma_ddr_bandwidth real {} profiler headers state")  # (docs/bounds.md)
_CHIP_DMA = (500e9, "AWS's 1 TB/s of DMA bandwidth per Trainium chip over its 2 cores, theoretical")
_TRN3_DMA = (612.5e9, "AWS's 4.9 TB/s of DMA bandwidth per Trainium3 chip over its 8 cores, theoretical")
# (rows, cols, GHz) of one core's tensor engine in the profiler's headers: its peak is rows x cols x 2 x clock
_NC_V2, _NC_V3 = (128, 128, 2.8), (128, 128, 2.4)
_TRN23_RESERVE = (("about 5 GB reserved by device profiling on Trn2/Trn3 (AWS, "
                   "tools/neuron-explorer/troubleshooting.rst)"), 5e9)


class Hardware(NamedTuple):
    """What one NeuronCore offers; ``source`` says where each number came from."""

    family: str
    hbm_bytes: float          # device memory one core can use (bytes)
    peak_flops: float         # dense BF16 FLOP/s of one core
    hbm_bandwidth: float      # bytes/s of the HBM one core reads (one stack on trn1)
    clock_hz: float | None    # None: the docs give no NeuronCore clock
    source: str
    core: str = "NeuronCore-v2"
    default_lnc: int | None = None      # None: LNC does not apply to the family
    profiler_reserve: float = 2e9       # bytes device profiling takes (docs/bounds.md)
    reserve_source: str = _TRN1_RESERVE[0]
    dma_bandwidth: float | None = None  # bytes/s of one core's DMA engines (None: no source known)
    dma_source: str = ""                # what that figure is and where it comes from
    tensor: tuple[int, int, float] | None = None  # the profiler's tensor engine: rows, cols, GHz (None: unknown)

    @property
    def tensor_peak(self) -> float | None:
        """One physical core's tensor-engine peak by the profiler's formula, rows x cols x 2 x clock."""
        return self.tensor[0] * self.tensor[1] * 2 * self.tensor[2] * 1e9 if self.tensor else None


FAMILIES = {
    "trn1": Hardware("trn1", 16 * GIB, 95e12, 410e9, 1.4e9, "trn1 table (AWS Trainium architecture page)",
                     dma_bandwidth=_CHIP_DMA[0], dma_source=_CHIP_DMA[1], tensor=_NC_V2),
    "trn1n": Hardware("trn1n", 16 * GIB, 95e12, 410e9, 1.4e9, "trn1 table (AWS Trainium architecture page)",
                      dma_bandwidth=_CHIP_DMA[0], dma_source=_CHIP_DMA[1], tensor=_NC_V2),
    "inf2": Hardware("inf2", 16 * GIB, 95e12, 410e9, 1.4e9, "inf2 table (AWS Inferentia2 architecture page)",
                     dma_bandwidth=_HEADER_DMA[0], dma_source=_HEADER_DMA[1].format("inf2"), tensor=_NC_V2),
    "trn2": Hardware("trn2", 12 * GIB, 79e12, 362.5e9, 1.2e9, "trn2 table (AWS Trainium2 architecture pages)",
                     "NeuronCore-v3", 2, _TRN23_RESERVE[1], _TRN23_RESERVE[0], _HEADER_DMA[0],
                     _HEADER_DMA[1].format("trn2"), _NC_V3),
    "trn3": Hardware("trn3", 18 * GIB, 79e12, 612.5e9, None, "trn3 table (AWS Trainium3 architecture pages)",
                     "NeuronCore-v4", 2, _TRN23_RESERVE[1], _TRN23_RESERVE[0], _TRN3_DMA[0], _TRN3_DMA[1]),
}
DEFAULT_FAMILY = "trn1"  # the bundled profiles' family; used (and said) when the instance is unknown

# What no NeuronCore can do, for telling a value that cannot be a measurement (a FLOP count of 1e300)
# from one that is merely large. A profile is of one logical core, at most two physical cores (LNC=2);
# the bounds are 10x the fastest such core in the table above, so no real profile comes near them
# (docs/profile-json.md states their values).
IMPOSSIBLE_MARGIN = 10
MAX_FLOP_RATE = IMPOSSIBLE_MARGIN * 2 * max(f.peak_flops for f in FAMILIES.values())  # 1.9e15 FLOP/s
MAX_BYTE_RATE = IMPOSSIBLE_MARGIN * 2 * max(max(f.hbm_bandwidth, f.dma_bandwidth or 0) for f in FAMILIES.values())
# Times: the profiler counts them in nanoseconds (``*_ns`` fields, formats.md) on a 64-bit clock, which
# ends at 2**64 ns (584 years); no duration, summed or not, is longer. FLOPs and bytes at the rates
# above for that long are the absolute bounds of a count (1e300 FLOPs is past them whatever the step).
MAX_SECONDS = 2**64 * 1e-9
MAX_FLOPS = MAX_FLOP_RATE * MAX_SECONDS
MAX_BYTES = MAX_BYTE_RATE * MAX_SECONDS
# Instance types whose name extends a family's: trn2u/trn2n (UltraServer, networking), trn3pd/pds.
_FAMILY = re.compile(r"^(trn1n|trn1|inf2|trn2|trn3)[a-z]*$")


# neuron-monitor's neuron_device_type, for a profile that names no instance (the guide's Trn2
# example, and real trn1 and inf2 reports: tests/fixtures/README.md).
_DEVICE_TYPES = {"trainium": "trn1", "trainium2": "trn2", "inferentia2": "inf2"}


def family_of(instance_type: object) -> str | None:
    """``trn1.2xlarge`` -> ``trn1``, ``trn2u.48xlarge`` -> ``trn2``, a device type ``trainium2`` ->
    ``trn2``; None when unknown."""
    text = str(instance_type or "").lower()
    if text in _DEVICE_TYPES:
        return _DEVICE_TYPES[text]
    match = _FAMILY.match(text.split(".")[0])
    return match[1] if match else None


def for_instance(instance_type: object, lnc: object = None) -> Hardware:
    """The table row for an instance type, per logical core at ``lnc`` (the family's default
    when not stated; ignored where LNC does not apply), or trn1's with a note saying it was assumed."""
    family = family_of(instance_type)
    if family is None:
        base = FAMILIES[DEFAULT_FAMILY]
        return base._replace(source=f"{base.source}, assumed: instance type {instance_type or 'unknown'}")
    row = FAMILIES[family]
    if row.default_lnc is None:
        return row
    stated = stated_lnc(lnc)
    factor = stated or row.default_lnc
    said = f"LNC={factor}" if stated else f"LNC={factor}, the family's default (the profile states none)"
    return row._replace(hbm_bytes=row.hbm_bytes * factor, peak_flops=row.peak_flops * factor,
                        hbm_bandwidth=row.hbm_bandwidth * factor,
                        dma_bandwidth=row.dma_bandwidth * factor if row.dma_bandwidth else None,
                        source=f"{row.source}, per logical core at {said}")


def stated_lnc(value: object) -> int | None:
    """A stated LNC of 1 or 2 (the only values AWS supports), else None."""
    try:
        number = int(str(value).strip())
    except ValueError:
        return None
    return number if number in (1, 2) else None


def clock_hz(instance_type: object) -> float | None:
    family = family_of(instance_type)
    return FAMILIES[family].clock_hz if family else None

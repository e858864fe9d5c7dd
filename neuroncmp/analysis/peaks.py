"""The hardware numbers one profile's bounds are measured against, each from the profile when it can.

AWS's bounds (``analysis/bounds.py``) take two constants "per NeuronCore": the tensor engine's peak
``tensor_engine_num_rows x tensor_engine_num_cols x 2 x tensor_engine_clock_freq`` and the DMA bandwidth
``dma_ddr_bandwidth``, both from the profile's own ``Metadata`` (a view JSON's ``metadata``: ``pe_num_rows``,
``pe_num_cols``, ``pe_clock_freq``). Here, for one profile:

- **cores**, the physical cores the ideal times assume: the profile's LNC (``lnc_config``: a view JSON's
  ``number_of_neuroncores_per_lnc``, an Explorer profile's ``num_physical_cores``), else the LNC its HFU
  implies (the peak ``hardware_flops / (hfu_estimated_percent x total_time)`` over one core's, 1 or 2
  within 5 %), else the family's default (LNC=2 on trn2 and trn3; trn1 and inf2 have none). Where a view
  JSON shows that all MATMULs (or all data DMA) ran on fewer physical cores than that (an LNC=2 NEFF whose
  NKI kernel was launched on one core: ``ingest/formats/view_rows.py``), the tensor peak (or DMA bandwidth)
  is that of those cores: AWS's method assumes single-core kernels, and this is how we tell one.
- **peak FLOP/s**: the header's per-core peak x the tensor cores; else the peak HFU implies, else the
  one MFU implies (``model_flops / (mfu_estimated_percent x total_time)``), else the instance table's.
- **DMA bandwidth**: the header's ``dma_ddr_bandwidth`` x the DMA cores; else the table's (435 GB/s a core,
  ``hardware.py``), else none (the bounds that need it say so).
- **HBM bandwidth** (for HBM bytes, never for DMA bytes): ``roofline.roof``'s rule for one profile.

The user's ``--peak-tflops``, ``--dma-gbps`` and ``--hbm-gbps`` win over all, used as given (one
logical core's figures, no LNC applied).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from .. import hardware
from .roofline import Values, implied_peak, roof

Info = Callable[[str], Any]   # a profile fact by name (``Profile.info``), None when not stated
CLOSE = 0.05                  # an implied peak within 5 % of a whole number of cores names that number


class Peaks(NamedTuple):
    """What one profile's ideal times divide by, and where each number came from."""

    peak_flops: float              # FLOP/s of the tensor engines the kernel ran on
    dma_bandwidth: float | None    # bytes/s of the DMA engines it ran on (None: no source)
    hbm_bandwidth: float           # bytes/s of HBM (for HBM bytes)
    lnc: int                       # physical cores per logical core (1 where LNC does not apply)
    sources: tuple[str, str, str, str]   # LNC, peak, DMA bandwidth, HBM bandwidth


def peaks_of(values: Values, info: Info, peak: float | None = None, dma: float | None = None,
             hbm: float | None = None) -> Peaks:
    """One profile's peaks (see the module docstring); ``peak``, ``dma``, ``hbm``: the user's overrides."""
    instance = info("instance_type") or info("neuron_device_type")
    row = hardware.FAMILIES.get(hardware.family_of(instance) or hardware.DEFAULT_FAMILY)
    assert row is not None  # DEFAULT_FAMILY is a key of FAMILIES
    one = _header_peak(info)
    lnc, lnc_said = _lnc(values, info, row, one)
    table = hardware.for_instance(instance, lnc)
    flops, flops_said = _peak(values, info, table, one, lnc, peak)
    moved, moved_said = _dma(info, table, lnc, dma)
    top = roof([values], table, None, hbm)
    return Peaks(flops, moved, top.bandwidth, lnc, (lnc_said, flops_said, moved_said, top.sources[1]))


def _header_peak(info: Info) -> tuple[float, str] | None:
    """One physical core's tensor-engine peak from the profiler's header, with its formula."""
    rows, cols, ghz = (info(f"tensor_engine_{key}") for key in ("num_rows", "num_cols", "clock_freq"))
    if not all(type(v) in (int, float) and 0 < v < 1e6 for v in (rows, cols, ghz)):
        return None
    return (rows * cols * 2 * ghz * 1e9,
            f"tensor_engine_num_rows x num_cols x 2 x clock ({rows:g} x {cols:g} x 2 x {ghz:g} GHz, "
            "the profiler's header)")


def _lnc(values: Values, info: Info, row: hardware.Hardware, one: tuple[float, str] | None) -> tuple[int, str]:
    if row.default_lnc is None:
        return 1, f"LNC does not apply to {row.family} (one physical core a logical core)"
    stated = hardware.stated_lnc(info("lnc_config"))
    if stated:
        return stated, f"LNC={stated}, as the profile states (lnc_config)"
    implied = implied_peak([values], "hardware_flops", "hfu_estimated_percent")
    core = one[0] if one else row.peak_flops
    if implied is not None and round(implied / core) in (1, 2) and \
            abs(implied / core - round(implied / core)) <= CLOSE * round(implied / core):
        cores = round(implied / core)
        return cores, (f"LNC={cores}, implied by HFU (hardware_flops / (hfu_estimated_percent x total_time) = "
                       f"{implied / 1e12:.1f} TFLOP/s, {implied / core:.2f} x one core's {core / 1e12:.1f})")
    return row.default_lnc, f"LNC={row.default_lnc}, {row.family}'s default (the profile states and implies none)"


def _cores(info: Info, key: str, lnc: int, what: str) -> tuple[int, str]:
    """The physical cores ``what`` ran on: fewer than the LNC when the profile's rows show it."""
    ran = info(key)
    if type(ran) is int and 1 <= ran < lnc:
        return ran, f"{ran} core{'s' * (ran > 1)}: the profile's {what} ran on {ran} of its LNC={lnc} cores"
    return lnc, f"{lnc} core{'s' * (lnc > 1)}"


def _peak(values: Values, info: Info, table: hardware.Hardware, one: tuple[float, str] | None, lnc: int,
          given: float | None) -> tuple[float, str]:
    if given is not None:
        return given, "peak FLOP/s from the command line"
    if one is not None:
        cores, said = _cores(info, "matmul_cores", lnc, "MATMULs")
        return one[0] * cores, f"peak FLOP/s: {one[1]} x {said}"
    for flops, share, name in (("hardware_flops", "hfu_estimated_percent", "HFU"),
                               ("model_flops", "mfu_estimated_percent", "MFU")):
        implied = implied_peak([values], flops, share)
        if implied is not None:
            return implied, f"peak FLOP/s implied by {name} in the profile ({flops} / ({share} x total_time))"
    return table.peak_flops, f"peak FLOP/s: {table.source}"


def _dma(info: Info, table: hardware.Hardware, lnc: int, given: float | None) -> tuple[float | None, str]:
    if given is not None:
        return given, "DMA bandwidth from the command line"
    header = info("dma_ddr_bandwidth")
    if type(header) in (int, float) and 0 < header < 1e15:
        cores, said = _cores(info, "dma_cores", lnc, "data DMA")
        return header * cores, (f"DMA bandwidth: dma_ddr_bandwidth {header / 1e9:g} GB/s (the profiler's header, "
                                f"one core) x {said}")
    if table.dma_bandwidth:
        return table.dma_bandwidth, (f"DMA bandwidth: {table.dma_bandwidth / lnc / 1e9:g} GB/s a core ({table.family} "
                                     f"table: the profiler header's dma_ddr_bandwidth, hardware.py) x {lnc}")
    return None, f"no DMA bandwidth: the profile states no dma_ddr_bandwidth and the {table.family} table has none"

"""The hardware numbers one profile's bounds are measured against, each from the profile when it can: one
derivation of the peak FLOP/s, the DMA and HBM bandwidths and the cores they count, for every place that
prints or divides by them (``show``, ``diff``, ``sweep``'s bounds and roofline, the findings). The order
of sources and the formulas: docs/bounds.md ("Where neuroncmp differs": Peaks per profile; "Hardware facts"). The user's
``--peak-tflops``, ``--dma-gbps`` and ``--hbm-gbps`` win over all, used as given (no LNC applied)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from .. import hardware
from ..units import format_value, is_number
from .roofline import Values, implied_rate, roof

Info = Callable[[str], Any]   # a profile fact by name (``Profile.info``), None when not stated
CLOSE = 0.05                  # an implied peak within 5 % of a whole number of cores names that number


class Peaks(NamedTuple):
    """What one profile's ideal times divide by, and where each number came from."""

    peak_flops: float              # FLOP/s of the tensor engines the kernel ran on
    dma_bandwidth: float | None    # bytes/s of the DMA engines it ran on (None: no source)
    hbm_bandwidth: float           # bytes/s of HBM (for HBM bytes)
    lnc: int                       # physical cores per logical core (1 where LNC does not apply)
    sources: tuple[str, str, str, str]   # LNC, peak, DMA bandwidth, HBM bandwidth
    flops_cores: int | None = None  # physical cores the peak counts (None: the user's, or implied, not counted)
    dma_cores: int | None = None    # and the DMA bandwidth

    @property
    def basis(self) -> str:
        """What the ideal times are of: ``1 physical core of LNC=2`` (the tensor peak's cores, the DMA's when
        they differ), ``peaks from the command line``, or ``an implied peak`` (a number of no whole cores)."""
        if self.flops_cores is None:
            return "peaks from the command line" if "command line" in self.sources[1] else "an implied peak"
        text = f"{self.flops_cores} physical core{'s' * (self.flops_cores > 1)}"
        text += f" of LNC={self.lnc}" if self.flops_cores < self.lnc else ""
        return text + (f" (DMA: {self.dma_cores})" if self.dma_cores not in (None, self.flops_cores) else "")


class Derived(NamedTuple):
    """A profile's own peak FLOP/s (no override) and what it counts."""

    flops: float
    source: str
    cores: int | None      # physical cores it counts (None: an implied value not a whole number of cores)
    stated: bool           # the profile states or implies it (False: the instance table's)
    lnc: int
    lnc_source: str

    @property
    def own(self) -> tuple[float, str] | None:
        """The peak and its source for ``roofline.roof`` when the profile states or implies it."""
        return (self.flops, self.source) if self.stated else None


def peaks_of(values: Values, info: Info, peak: float | None = None, dma: float | None = None,
             hbm: float | None = None) -> Peaks:
    """One profile's peaks (docs/bounds.md); ``peak``, ``dma``, ``hbm``: the user's overrides."""
    own = derived_peak([values], info)
    table = hardware.for_instance(_instance(info), own.lnc)
    moved, moved_said, moved_cores = _dma(info, table, own.lnc, dma)
    top = roof([values], table, None, hbm, own=own.own)
    flops, said = (peak, "peak FLOP/s from the command line") if peak is not None else (own.flops, own.source)
    return Peaks(flops, moved, top.bandwidth, own.lnc, (own.lnc_source, said, moved_said, top.sources[1]),
                 None if peak is not None else own.cores, moved_cores)


def derived_peak(points: Sequence[Values], info: Info) -> Derived:
    """The peak FLOP/s these steps' profiles state or imply (the median over ``points``), with its LNC."""
    row = hardware.FAMILIES.get(hardware.family_of(_instance(info)) or hardware.DEFAULT_FAMILY)
    assert row is not None  # DEFAULT_FAMILY is a key of FAMILIES
    one = _header_peak(info) or _formula_peak(row)
    lnc, lnc_said = _lnc(points, info, row, one)
    table = hardware.for_instance(_instance(info), lnc)
    return Derived(*_peak(points, info, table, one, lnc), lnc, lnc_said)


def _instance(info: Info) -> Any:
    return info("instance_type") or info("neuron_device_type")


def _header_peak(info: Info) -> tuple[float, str] | None:
    """One physical core's tensor-engine peak from the profiler's header, with its formula."""
    rows, cols, ghz = (info(f"tensor_engine_{key}") for key in ("num_rows", "num_cols", "clock_freq"))
    if not all(is_number(v) and 0 < v < 1e6 for v in (rows, cols, ghz)):
        return None
    return (rows * cols * 2 * ghz * 1e9,
            f"tensor_engine_num_rows x num_cols x 2 x clock ({rows:g} x {cols:g} x 2 x {ghz:g} GHz, "
            "the profiler's header)")


def _formula_peak(row: hardware.Hardware) -> tuple[float, str] | None:
    """One physical core's peak by the profiler's formula with the family's tensor engine (no header)."""
    if row.tensor_peak is None or row.tensor is None:
        return None
    rows, cols, ghz = row.tensor
    return row.tensor_peak, f"{rows} x {cols} x 2 x {ghz:g} GHz ({row.core}'s tensor engine in real profiler headers)"


def _lnc(points: Sequence[Values], info: Info, row: hardware.Hardware,
         one: tuple[float, str] | None) -> tuple[int, str]:
    if row.default_lnc is None:
        return 1, f"LNC does not apply to {row.family} (one physical core a logical core)"
    stated = hardware.stated_lnc(info("lnc_config"))
    if stated:
        return stated, f"LNC={stated}, as the profile states (lnc_config)"
    implied = implied_rate(points, ("hardware_flops",), "hfu_estimated_percent")
    core = one[0] if one else row.peak_flops
    cores = _whole(implied, core, (1, 2))
    if implied is not None and cores is not None:
        return cores, (f"LNC={cores}, implied by HFU (hardware_flops / (hfu_estimated_percent x total_time) = "
                       f"{format_value(implied, 'FLOP/s')}, {implied / core:.2f} x one core's "
                       f"{format_value(core, 'FLOP/s')})")
    return row.default_lnc, f"LNC={row.default_lnc}, {row.family}'s default (the profile states and implies none)"


def _whole(implied: float | None, core: float, allowed: tuple[int, ...]) -> int | None:
    """The whole number of cores ``implied`` is of ``core``'s peak, within ``CLOSE`` (None: not one of ``allowed``)."""
    if implied is None:
        return None
    cores = round(implied / core)
    return cores if cores in allowed and abs(implied / core - cores) <= CLOSE * cores else None


def _cores(info: Info, key: str, lnc: int, what: str) -> tuple[int, str]:
    """The physical cores ``what`` ran on: fewer than the LNC when the profile's rows show it."""
    ran = info(key)
    if type(ran) is int and 1 <= ran < lnc:
        return ran, f"{ran} core{'s' * (ran > 1)}: the profile's {what} ran on {ran} of its LNC={lnc} cores"
    return lnc, f"{lnc} core{'s' * (lnc > 1)}"


def _peak(points: Sequence[Values], info: Info, table: hardware.Hardware, one: tuple[float, str] | None,
          lnc: int) -> tuple[float, str, int | None, bool]:
    """The profile's own peak (docs/bounds.md, Peaks per profile), its source, the cores it counts and whether the
    profile states or implies it."""
    header = _header_peak(info)
    if header is not None:
        cores, said = _cores(info, "matmul_cores", lnc, "MATMULs")
        return header[0] * cores, f"peak FLOP/s: {header[1]} x {said}", cores, True
    for flops, share, name in (("hardware_flops", "hfu_estimated_percent", "HFU"),
                               ("model_flops", "mfu_estimated_percent", "MFU")):
        implied = implied_rate(points, (flops,), share)
        if implied is None:
            continue
        whole = _whole(implied, one[0], (lnc,)) if one else None
        if one is not None and whole is not None:
            peak = one[0] * whole
            said = (f"peak FLOP/s: {one[1]} x {whole} core{'s' * (whole > 1)}: what {name} implies, within "
                    f"{abs(implied / peak - 1):.2%} (the rounding of the percent it is read back from)")
            return peak, said, whole, True
        return implied, f"peak FLOP/s implied by {name} in the profile ({flops} / ({share} x total_time))", None, True
    return table.peak_flops, f"peak FLOP/s: {table.source}", lnc, False


def _dma(info: Info, table: hardware.Hardware, lnc: int, given: float | None) -> tuple[float | None, str, int | None]:
    if given is not None:
        return given, "DMA bandwidth from the command line", None
    header = info("dma_ddr_bandwidth")
    if is_number(header) and 0 < header < 1e15:
        cores, said = _cores(info, "dma_cores", lnc, "data DMA")
        return header * cores, (f"DMA bandwidth: dma_ddr_bandwidth {format_value(header, 'B/s')} a physical core "
                                f"(the profiler's header) x {said}"), cores
    if table.dma_bandwidth:
        return table.dma_bandwidth, (f"DMA bandwidth: {format_value(table.dma_bandwidth / lnc, 'B/s')} a physical "
                                     f"core ({table.family} table, hardware.py: {table.dma_source}) x {lnc} "
                                     f"core{'s' * (lnc > 1)}"), lnc
    return None, (f"no DMA bandwidth: the profile states no dma_ddr_bandwidth and the {table.family} table has "
                  "none"), None

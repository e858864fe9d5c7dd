"""The metric catalog: what every known metric means, its unit and which direction is better.

Names are the summary-json keys (the profiler's own); aliases map other tool versions' names
(Neuron Explorer's ``neuroncore_idx``, ...) onto them. Per-core throttle keys fold the core
index into the name (``throttle_active_nc0_time_ns``) and are recognised by pattern. Anything
else is still kept: ``lookup`` returns an uncatalogued spec with a unit guessed from the suffix.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from functools import lru_cache
from typing import Any, NamedTuple

from . import units as u

# the direction words live in choices; re-exported (``as``) for the catalog's readers
from .choices import HIGHER as HIGHER
from .choices import LOWER as LOWER
from .choices import NEUTRAL as NEUTRAL
from .choices import SAMPLE, STEP, Better, ShownBasis
from .hardware import MAX_BYTES, MAX_FLOPS, MAX_SECONDS

# Display order of groups; after the derived throughput, the profiler's own (formats.md 2, 5).
GROUPS = ("throughput", "overall_stats", "data_movement", "tensor_engine", "vector_engine", "scalar_engine",
          "sync_engine", "gpsimd_engine", "cc_engine", "throttling", "memory", "host_memory",
          "monitor", "training", "system", "uncatalogued")

# Groups whose values grow with the batch by design (activations, scratchpad, spill rings, the
# instructions of a bigger graph): between sides of different batch sizes their change is shown,
# not scored, since a bigger batch must use more; between equal batch sizes it is scored.
GROWS_WITH_BATCH = frozenset({"memory", "host_memory"})

# The physical range of each kind's values in base units, (minimum, maximum), None: unbounded.
# Loading checks every value against it (ingest/validate.py) and flags what falls outside.
KIND_RANGES: dict[str, tuple[float | None, float | None]] = {
    "time": (0, MAX_SECONDS), "bytes": (0, MAX_BYTES), "count": (0, None), "cycles": (0, None),
    "flop": (0, MAX_FLOPS), "intensity": (0, None), "rate": (0, None), "index": (0, None),
    "fraction": (0, 1)}  # the upper bounds of times, bytes and FLOPs: what no NeuronCore can reach (hardware.py)

_KIND_OF_UNIT = {u.SECOND: "time", u.BYTE: "bytes", u.FLOP: "flop", u.CYCLE: "cycles",
                 u.COUNT: "count", u.FRACTION: "fraction", u.INTENSITY: "intensity",
                 u.FLOP_RATE: "rate", u.BYTE_RATE: "rate", u.SAMPLE_RATE: "rate",
                 u.STEP_RATE: "rate", u.HERTZ: "rate", u.DIMENSIONLESS: "ratio", u.TEXT: "text"}


class Formula(NamedTuple):
    """One way to compute a derived metric: the formula in words, its inputs, the computation."""

    text: str
    inputs: tuple[str, ...]
    compute: Callable[[Mapping[str, float]], float]


class MetricSpec(NamedTuple):
    """Catalog entry. ``raw_unit`` is the unit the summary-json stores (``ns`` for ``*_ns``);
    ``kind`` follows from the unit. Build entries with ``_spec``, which fills both in."""

    name: str
    group: str
    unit: str
    direction: Better = NEUTRAL
    extensive: bool = False
    meaning: str = ""
    aliases: tuple[str, ...] = ()
    raw_unit: str = ""
    kind: str = ""
    catalogued: bool = True
    formula: str = ""                     # derived metrics: how they are computed, in words
    inputs: tuple[str, ...] = ()          # derived metrics: what they need
    compute: Callable[[Mapping[str, float]], float] | None = None
    otherwise: tuple[Formula, ...] = ()   # derived metrics: formulas used, in order, when ``inputs`` are not all there

    @property
    def derived(self) -> bool:
        return self.compute is not None

    @property
    def formulas(self) -> tuple[Formula, ...]:
        """A derived metric's formulas in the order they are tried: the first whose inputs a
        profile has makes its value (none for a measured metric)."""
        if self.compute is None:
            return ()
        return (Formula(self.formula, self.inputs, self.compute), *self.otherwise)

    @property
    def every_input(self) -> tuple[str, ...]:
        """The inputs of every formula, each once."""
        return tuple(dict.fromkeys(name for formula in self.formulas for name in formula.inputs))

    @property
    def scored(self) -> bool:
        """Whether a change gets a better/worse verdict (a direction is known)."""
        return self.direction != NEUTRAL

    def __repr__(self) -> str:
        return f"<MetricSpec {self.name} [{self.unit}] {self.group} {self.direction}>"

    def __reduce__(self) -> tuple[Any, ...]:
        """A derived spec pickles as its name, read back from the catalog: its ``compute`` is a
        function made inside the catalog (a lambda), which pickle cannot name, so a Comparison
        or Sweep holding one could not be saved or sent to another process. Any other spec
        pickles field by field, as a NamedTuple does."""
        if self.compute is not None and catalog().get(self.name) is self:
            return lookup, (self.name,)
        return MetricSpec, tuple(self)


# Other tool versions' names of a catalogued metric (Neuron Explorer's), read as the catalog's.
_ALIASES = {"profiler_version": ("explorer_version",), "nc_idx": ("neuroncore_idx",),
            "nd_idx": ("neuron_device_idx",), "lnc_config": ("logical_neuroncore_config",)}
_CANONICAL = {alias: name for name, aliases in _ALIASES.items() for alias in aliases}
# Counts that name a place or a configuration: their kind is "index" (whole numbers, validated so).
_INDEXES = frozenset({"nc_idx", "nd_idx", "lnc_config", "num_physical_cores", "neuroncore_per_device_count",
                      "neuron_device_count"})

Row = tuple[str, str, Better, bool, str]  # a measured metric: name, unit, direction, extensive, meaning


def _spec(name: str, group: str, unit: str, direction: Better = NEUTRAL, extensive: bool = False,
          meaning: str = "", **extra: Any) -> MetricSpec:  # extra: MetricSpec's other fields, each its own type
    """A catalog entry with ``raw_unit`` (default: ``unit``), ``kind`` (from the unit) and its
    aliases filled in."""
    extra["raw_unit"] = extra.get("raw_unit") or unit
    extra["kind"] = extra.get("kind") or ("index" if name in _INDEXES else _KIND_OF_UNIT.get(unit, "ratio"))
    extra.setdefault("aliases", _ALIASES.get(name, ()))
    return MetricSpec(name, group, unit, direction, extensive, meaning, **extra)


def _specs(group: str, rows: list[Row]) -> list[MetricSpec]:
    return [_spec(name, group, unit, direction, extensive, meaning)
            for name, unit, direction, extensive, meaning in rows]


def _overall() -> list[MetricSpec]:
    return _specs("overall_stats", [
        ("event_count", u.COUNT, NEUTRAL, True, "trace events recorded in the profile"),
        ("trace_count", u.COUNT, NEUTRAL, True, "trace records in the profile"),
        ("total_time", u.SECOND, LOWER, True, "on-device time of the step, idle gaps included"),
        ("total_active_time", u.SECOND, LOWER, True, "time with any engine or DMA active"),
        ("total_active_time_percent", u.FRACTION, HIGHER, False, "share of total_time with any engine or DMA active"),
        ("neuroncore_cycle_count", u.CYCLE, LOWER, True, "total_time x NeuronCore clock"),
        ("model_flops", u.FLOP, NEUTRAL, True, "2 x MACs of the model's matmuls (a count)"),
        ("hardware_flops", u.FLOP, NEUTRAL, True, "all tensor-engine matmul work, transposes included (a count)"),
        ("transpose_flops", u.FLOP, LOWER, True, "tensor-engine work spent on transposes"),
        ("mm_arithmetic_intensity", u.INTENSITY, HIGHER, False, "(hardware - transpose FLOPs) / HBM bytes moved"),
        ("peak_flops_bandwidth_ratio", u.INTENSITY, NEUTRAL, False, "roofline ridge: peak FLOP/s over HBM bandwidth"),
    ])


def _data_movement() -> list[MetricSpec]:
    g = "data_movement"
    b, c, f, s = u.BYTE, u.COUNT, u.FRACTION, u.SECOND
    rows: list[Row] = [
        ("dma_active_cycles", u.CYCLE, LOWER, True, "cycles with at least one DMA in flight"),
        ("dma_active_time", s, LOWER, True, "time with at least one DMA in flight"),
        ("dma_active_time_percent", f, NEUTRAL, False, "share of total_time with a DMA in flight"),
        ("dma_packet_time", s, NEUTRAL, True, "summed DMA packet durations (overlaps counted)"),
        ("dma_queue_count", c, NEUTRAL, False, "DMA queues used"),
        ("dma_transfer_average_bytes", b, NEUTRAL, False, "mean size of one DMA transfer"),
        ("dma_transfer_count", c, NEUTRAL, True, "DMA transfers"),
        ("dma_transfer_time", s, LOWER, True, "summed DMA transfer durations (overlaps counted)"),
        ("dma_transfer_total_bytes", b, LOWER, True, "bytes moved by DMA"),
        ("dma_data_bytes", b, LOWER, True, "bytes of a view JSON's DMA rows outside the instruction queue "
         "(packets over 4 bytes; summed by neuroncmp: AWS's dma_transfer_bytes)"),
        ("dynamic_dma_packet_percent", f, NEUTRAL, False, "share of DMA packets issued dynamically"),
        ("dynamic_dma_size_percent", f, NEUTRAL, False, "share of DMA bytes issued dynamically"),
        ("hbm_read_bytes", b, LOWER, True, "bytes read from HBM"),
        ("hbm_write_bytes", b, LOWER, True, "bytes written to HBM"),
        ("input_queue_bytes", b, NEUTRAL, True, "bytes through the input queues"),
        ("inputs_and_weights_size_bytes", b, NEUTRAL, False, "size of inputs and weights"),
        ("mbu_estimated_percent", f, NEUTRAL, False,
         "HBM bytes / total_time / bandwidth of one HBM stack"),
        ("mbu_min_read_util_percent", f, NEUTRAL, False, "minimum HBM read utilization"),
        ("output_queue_bytes", b, NEUTRAL, True, "bytes through the output queues"),
        ("psum_read_bytes", b, NEUTRAL, True, "bytes read from PSUM"),
        ("psum_read_sbuf_write_bytes", b, NEUTRAL, True, "bytes copied from PSUM to SBUF"),
        ("psum_read_sbuf_write_count", c, NEUTRAL, True, "PSUM-to-SBUF copies"),
        ("psum_write_bytes", b, NEUTRAL, True, "bytes written to PSUM"),
        ("sbuf_read_bytes", b, NEUTRAL, True, "bytes read from SBUF"),
        ("sbuf_write_bytes", b, NEUTRAL, True, "bytes written to SBUF"),
        ("software_dynamic_dma_packet_count", c, NEUTRAL, True, "software dynamic DMA packets"),
        ("software_dynamic_dma_size", b, NEUTRAL, True, "bytes of software dynamic DMA"),
        ("spill_reload_bytes", b, LOWER, True, "bytes reloaded from HBM spills into SBUF"),
        ("spill_save_bytes", b, LOWER, True, "bytes spilled from SBUF to HBM"),
        ("static_dma_packet_count", c, NEUTRAL, True, "static DMA packets"),
        ("static_dma_size", b, NEUTRAL, True, "bytes of static DMA"),
        ("weight_queue_bytes", b, NEUTRAL, True, "bytes through the weight queues"),
        ("weight_size_bytes", b, NEUTRAL, False, "size of the weights"),
        # DMA by class, as profilers 2.27-2.29 write it (tests/data/third_party: inf2, trn2, trn1);
        # the time shares are of dma_active_time (RELATIONS.md: 64 of 64 real summaries)
        *_dma_classes(),
        ("inputs_outputs_weights_size_bytes", b, NEUTRAL, False, "size of inputs, outputs and weights"),
    ]
    return _specs(g, rows)


def _dma_classes() -> list[Row]:
    """Static, software-dynamic and hardware-dynamic DMA (and dynamic, their sum): active time,
    its share of ``dma_active_time``, packets and bytes and their shares of all DMA."""
    rows: list[Row] = []
    for kind, words in (("static", "static"), ("software_dynamic", "software dynamic"),
                        ("hardware_dynamic", "hardware dynamic"), ("dynamic", "dynamic")):
        rows += [
            (f"{kind}_dma_active_time", u.SECOND, NEUTRAL, True, f"time with a {words} DMA in flight"),
            (f"{kind}_dma_active_time_percent", u.FRACTION, NEUTRAL, False,
             f"share of dma_active_time with a {words} DMA in flight"),
        ]
        if kind in ("static", "software_dynamic", "hardware_dynamic"):
            rows += [(f"{kind}_dma_packet_percent", u.FRACTION, NEUTRAL, False,
                      f"share of DMA packets that are {words}"),
                     (f"{kind}_dma_size_percent", u.FRACTION, NEUTRAL, False, f"share of DMA bytes that are {words}")]
    rows += [("hardware_dynamic_dma_packet_count", u.COUNT, NEUTRAL, True, "hardware dynamic DMA packets"),
             ("hardware_dynamic_dma_size", u.BYTE, NEUTRAL, True, "bytes of hardware dynamic DMA")]
    return rows


def _engines() -> list[MetricSpec]:
    specs = []
    for engine in ("tensor", "vector", "scalar", "sync", "gpsimd"):
        busy: Better = HIGHER if engine == "tensor" else NEUTRAL
        specs += _specs(f"{engine}_engine", [
            (f"{engine}_engine_active_time", u.SECOND, NEUTRAL, True,
             f"time with at least one {engine}-engine instruction in flight"),
            (f"{engine}_engine_active_time_percent", u.FRACTION, busy, False,
             f"share of total_time the {engine} engine is active"),
            (f"{engine}_engine_instruction_count", u.COUNT, NEUTRAL, True, f"{engine}-engine instructions"),
            (f"{engine}_engine_instruction_time", u.SECOND, NEUTRAL, True,
             f"summed {engine}-engine instruction durations (may exceed total_time)"),
        ])
    f = u.FRACTION
    tensor = _specs("tensor_engine", [
        ("mfu_estimated_percent", f, HIGHER, False,
         "model FLOPs utilization: model_flops / (peak FLOP/s x total_time)"),
        ("hfu_estimated_percent", f, HIGHER, False,
         "hardware FLOPs utilization: hardware_flops / (peak FLOP/s x total_time)"),
        ("mfu_max_achievable_estimated_percent", f, HIGHER, False,
         "roofline bound on MFU at this arithmetic intensity"),
        ("matmul_instruction_count", u.COUNT, NEUTRAL, True, "matmul instructions"),
    ])
    scalar = _specs("scalar_engine", [
        ("activate_instruction_count", u.COUNT, NEUTRAL, True, "activation instructions"),
        ("activate_instruction_time", u.SECOND, NEUTRAL, True, "summed activation instruction durations"),
    ])
    # MFU from the HLO graph's FLOPs and from the instructions' (profilers 2.28-2.29; 0 when the
    # NEFF carries no HLO stats, which the profiler then warns about)
    by_source = _specs("tensor_engine", [
        ("mfu_hlo_estimated_percent", f, HIGHER, False, "MFU from the HLO graph's FLOP count"),
        ("mfu_hlo_max_achievable_estimated_percent", f, HIGHER, False, "roofline bound on the HLO-based MFU"),
        ("mfu_inst_estimated_percent", f, HIGHER, False, "MFU from the instructions' FLOP count"),
        ("mfu_inst_max_achievable_estimated_percent", f, HIGHER, False, "roofline bound on the instruction-based MFU"),
    ])
    return specs + tensor + scalar + by_source


def _collectives() -> list[MetricSpec]:
    return _specs("cc_engine", [
        ("cc_cores_instruction_active_time", u.SECOND, NEUTRAL, True,
         "time with a collective-core instruction in flight"),
        ("cc_cores_instruction_active_time_percent", u.FRACTION, NEUTRAL, False,
         "share of total_time with a collective-core instruction in flight"),
        ("cc_cores_instruction_count", u.COUNT, NEUTRAL, True, "collective-core instructions"),
        ("cc_cores_instruction_time", u.SECOND, NEUTRAL, True, "summed collective-core instruction durations"),
        ("cc_op_active_time", u.SECOND, LOWER, True, "time with a collective op in flight"),
        ("cc_op_active_time_percent", u.FRACTION, LOWER, False, "share of total_time with a collective op in flight"),
        ("cc_op_count", u.COUNT, NEUTRAL, False, "collective operations in the step"),
        ("cc_op_time", u.SECOND, LOWER, True, "summed collective op durations"),
    ])


def _system() -> list[MetricSpec]:
    t, c = u.TEXT, u.COUNT
    return _specs("system", [
        ("instance_type", t, NEUTRAL, False, "EC2 instance type"),
        ("compiler_version", t, NEUTRAL, False, "neuronx-cc version"),
        ("runtime_version", t, NEUTRAL, False, "Neuron runtime version"),
        ("driver_version", t, NEUTRAL, False, "Neuron driver version"),
        ("collectives_version", t, NEUTRAL, False, "Neuron collectives version"),
        ("profiler_version", t, NEUTRAL, False, "profiler version"),
        ("profile_schema_version", t, NEUTRAL, False, "Neuron Explorer profile schema version"),
        ("nc_idx", c, NEUTRAL, False, "NeuronCore index"),
        ("nd_idx", c, NEUTRAL, False, "Neuron device index"),
        ("lnc_config", c, NEUTRAL, False, "logical NeuronCore config"),
        ("num_physical_cores", c, NEUTRAL, False, "physical NeuronCores"),
        ("vnc_enabled", t, NEUTRAL, False, "virtual NeuronCore enabled"),
        ("hbm_ddr_bandwidth", u.BYTE_RATE, NEUTRAL, False, "bandwidth of one HBM stack"),
        ("neuroncore_frequency", u.HERTZ, NEUTRAL, False, "NeuronCore clock"),
        ("device_type", t, NEUTRAL, False, "Neuron device type"),
        ("neuroncore_per_device_count", c, NEUTRAL, False, "NeuronCores per device"),
        ("neuron_device_count", c, NEUTRAL, False, "Neuron devices"),
        ("neuron_device_memory_size", u.BYTE, NEUTRAL, False, "memory of one Neuron device"),
    ])


def _training() -> list[MetricSpec]:
    """Hugging Face Trainer metrics: end to end (host, data loading and every graph included), so
    they measure other things than the profile's one device step. Model quality (loss) and
    bookkeeping (epochs, sample counts) are shown, never scored as performance."""
    shown = "not a performance metric: shown, not scored"
    return _specs("training", [
        ("epoch", u.DIMENSIONLESS, NEUTRAL, False, f"epochs completed ({shown})"),
        ("train_runtime", u.SECOND, LOWER, False, "wall time of the whole training run, end to end (Trainer)"),
        ("train_samples_per_second", u.SAMPLE_RATE, HIGHER, False,
         "end-to-end training throughput (Trainer: host, data loading and every graph included)"),
        ("train_steps_per_second", u.STEP_RATE, NEUTRAL, False, "optimizer steps per second, end to end (Trainer)"),
        ("train_loss", u.DIMENSIONLESS, NEUTRAL, False, f"mean training loss ({shown})"),
        ("eval_runtime", u.SECOND, NEUTRAL, False,
         "wall time of evaluation (depends on the eval set's size; not scored)"),
        ("eval_samples_per_second", u.SAMPLE_RATE, HIGHER, False, "evaluation throughput, end to end (Trainer)"),
        ("eval_steps_per_second", u.STEP_RATE, NEUTRAL, False, "evaluation steps per second"),
        ("eval_loss", u.DIMENSIONLESS, NEUTRAL, False, f"evaluation loss ({shown})"),
        ("total_flos", u.FLOP, NEUTRAL, False,
         "FLOPs of the whole run as the Trainer counts them (not the profile's model_flops)"),
        ("train_samples", u.COUNT, NEUTRAL, False, "training samples"),
        ("eval_samples", u.COUNT, NEUTRAL, False, "evaluation samples"),
    ])


def _ratio(top: str, bottom: str) -> Formula:
    return Formula(f"{top} / {bottom}", (top, bottom), lambda v: v[top] / v[bottom])


def _derived_spec(name: str, group: str, unit: str, direction: Better, extensive: bool, meaning: str,
                  formula: Formula, otherwise: tuple[Formula, ...] = ()) -> MetricSpec:
    return _spec(name, group, unit, direction, extensive, meaning, formula=formula.text, inputs=formula.inputs,
                 compute=formula.compute, otherwise=otherwise)


def _derived() -> list[MetricSpec]:
    """Metrics computed from others once per profile, when their inputs exist (marked derived)."""
    d = _derived_spec
    return [
        d("device_throughput", "throughput", u.SAMPLE_RATE, HIGHER, False,
          "samples per second of device time (the profiled step only)", _ratio("batch_size", "total_time")),
        d("trainer_step_time", "throughput", u.SECOND, LOWER, True,
          "wall time of one training step, end to end (Trainer)",
          Formula("1 / train_steps_per_second", ("train_steps_per_second",),
                  lambda v: 1 / v["train_steps_per_second"])),
        d("device_share_of_step", "throughput", u.FRACTION, HIGHER, False,
          "share of the end-to-end training step spent in the profiled device graph",
          Formula("total_time / trainer_step_time = total_time x train_steps_per_second",
                  ("total_time", "train_steps_per_second"), lambda v: v["total_time"] * v["train_steps_per_second"])),
        # without model FLOPs (an NKI kernel's NEFF has no HLO statistics) the profiler's own advice:
        # "Consider the metrics (hardware_flops - transpose_flops)" (its warning, real trn2 view JSON)
        d("achieved_flop_rate", "throughput", u.FLOP_RATE, HIGHER, False,
          "FLOP/s achieved over the step: model FLOPs, else the tensor engine's non-transpose FLOPs",
          _ratio("model_flops", "total_time"),
          otherwise=(Formula("(hardware_flops - transpose_flops) / total_time",
                             ("hardware_flops", "transpose_flops", "total_time"),
                             lambda v: (v["hardware_flops"] - v["transpose_flops"]) / v["total_time"]),)),
        d("hbm_traffic_bytes", "data_movement", u.BYTE, LOWER, True, "bytes read from and written to HBM",
          Formula("hbm_read_bytes + hbm_write_bytes", ("hbm_read_bytes", "hbm_write_bytes"),
                  lambda v: v["hbm_read_bytes"] + v["hbm_write_bytes"])),
        d("spill_reload_share", "data_movement", u.FRACTION, LOWER, False,
          "share of HBM reads that reload spilled data", _ratio("spill_reload_bytes", "hbm_read_bytes")),
        d("collective_share", "cc_engine", u.FRACTION, LOWER, False,
          "summed collective op time as a share of the step", _ratio("cc_op_time", "total_time")),
        d("transpose_share", "tensor_engine", u.FRACTION, LOWER, False,
          "share of tensor-engine FLOPs spent on transposes", _ratio("transpose_flops", "hardware_flops")),
    ]


class Headline(NamedTuple):
    """One line of the headline every diff opens with: a metric, the basis it is shown in, a name;
    a per-sample line's name for its metric's values per step, where no per-step line has one
    (``headline_label``)."""

    metric: str
    basis: ShownBasis    # per sample needs batch sizes
    label: str
    step_label: str = ""


# The key numbers per variant, in order (design.md; issue 7). SAMPLE lines need batch sizes.
HEADLINE = (
    Headline("total_time", STEP, "step time (device)"),
    Headline("total_time", SAMPLE, "time per sample (device)"),
    Headline("device_throughput", STEP, "throughput (device)"),
    Headline("train_samples_per_second", STEP, "throughput (end to end, Trainer)"),
    Headline("mfu_estimated_percent", STEP, "MFU"),
    Headline("tensor_engine_active_time_percent", STEP, "tensor engine active"),
    Headline("vector_engine_active_time_percent", STEP, "vector engine active"),
    Headline("scalar_engine_active_time_percent", STEP, "scalar engine active"),
    Headline("gpsimd_engine_active_time_percent", STEP, "GpSimd engine active"),
    Headline("dma_active_time_percent", STEP, "DMA active"),
    Headline("spill_reload_bytes", SAMPLE, "spill reload per sample", "spill reload per step"),
    Headline("hbm_traffic_bytes", SAMPLE, "HBM traffic per sample", "HBM traffic per step"),
    Headline("cc_op_active_time_percent", STEP, "collectives share of step"),
    Headline("device_memory_workload", STEP, "device memory (no profiler buffers)"),
)


def headline_label(metric: str, basis: ShownBasis) -> str | None:
    """The headline's name of ``metric`` shown in ``basis`` (a store keeps values per step: the site
    names them so, never "per sample"); None for a metric the headline has no name of in it."""
    entries = [entry for entry in HEADLINE if entry.metric == metric]
    found = next((entry.label for entry in entries if entry.basis == basis), None)
    if found is None and basis == STEP:
        found = next((entry.step_label for entry in entries if entry.step_label), None)
    return found


def _host_memory() -> list[MetricSpec]:
    b = u.BYTE
    return _specs("host_memory", [
        ("host_used_memory_total", b, LOWER, False, "host memory used (neuron-top)"),
        ("host_used_memory_tensors", b, LOWER, False, "host memory for tensors"),
        ("host_used_memory_constants", b, LOWER, False, "host memory for constants"),
        ("host_used_memory_app", b, LOWER, False, "host application memory"),
        ("host_used_memory_dma_buffers", b, LOWER, False, "host memory for DMA buffers"),
        ("device_used_memory_total", b, LOWER, False, "device memory used (neuron-top)"),
        ("device_used_memory_tensors", b, LOWER, False, "device memory for tensors"),
        ("device_used_memory_constants", b, LOWER, False, "device memory for constants"),
    ])


def _memory() -> list[MetricSpec]:
    # the profiler's own buffers are most of a small kernel's table (4.76 of 4.76 GiB on a trn2 NKI
    # kernel): the total that holds them is shown, not scored; the workload's memory is scored
    return _specs("memory", [
        ("device_memory_total", u.BYTE, NEUTRAL, False,
         "device memory in use by type, summed (profiler's NC Memory Usage Info), the profiler's "
         "buffers included: not scored (device_memory_workload is)"),
        ("device_memory_workload", u.BYTE, LOWER, False,
         "device memory in use without the profiler's buffers: device_memory_total - memory.profiler_buffers"),
    ])


# ---- neuron-monitor (issue 20, item 4; branch monitor) ------------------------------------------
# Field names and units from AWS's neuron-monitor user guide (tools/neuron-sys-tools/
# neuron-monitor-user-guide.rst): latencies in seconds, vCPU and utilization in percent (stored
# as 0-1 fractions), memory in bytes; ``effective_flops`` is what runtime 2.30 writes for the
# guide's ``flops`` (a real inf2 capture, tests/fixtures/README.md). Counts are per sampling period.
_EXECUTION_OUTCOMES = (("completed_with_err", "executions that ended in an error other than a numeric one"),
                       ("completed_with_num_err", "executions that ended in a numeric (NaN) error"),
                       ("timed_out", "executions longer than the runtime's timeout"),
                       ("incorrect_input", "executions refused for incorrect input"),
                       ("failed_to_queue", "execution requests the runtime could not queue"))
EXECUTION_ERRORS = ("generic", "numerical", "transient", "model", "runtime", "hardware")
LATENCY_PERCENTILES = ("p0", "p1", "p25", "p50", "p75", "p99", "p100")
VCPU_FIELDS = ("user", "nice", "system", "idle", "io_wait", "irq", "soft_irq")
ECC_FIELDS = ("mem_ecc_corrected", "mem_ecc_uncorrected", "sram_ecc_corrected", "sram_ecc_uncorrected")
EXECUTION_FAILED = tuple(f"execution_{outcome}_count" for outcome, _ in _EXECUTION_OUTCOMES)


def _monitor() -> list[MetricSpec]:
    g, c, f = "monitor", u.COUNT, u.FRACTION
    specs = _specs(g, [
        ("execution_period", u.SECOND, NEUTRAL, False, "length of the execution_stats sampling period"),
        ("execution_completed_count", c, HIGHER, False, "executions completed in the period"),
        *[(f"execution_{outcome}_count", c, LOWER, False, meaning) for outcome, meaning in _EXECUTION_OUTCOMES],
        *[(f"execution_error_{kind}_count", c, LOWER, False, f"{kind} execution errors in the period")
          for kind in EXECUTION_ERRORS],
        *[(f"latency_{scope}_{p}", u.SECOND, LOWER, True,
           f"{p[1:]}th percentile of {what} latency per execution in the period")
          for scope, what in (("total", "runtime-measured"), ("device", "on-device"))
          for p in LATENCY_PERCENTILES],
        ("neuroncore_flops_total", u.FLOP_RATE, HIGHER, False,
         "FLOP/s of all NeuronCores in use, summed (neuroncores_in_use.*.flops)"),
        ("runtime_vcpu_user_percent", f, NEUTRAL, False, "vCPU time in user code by the Neuron application"),
        ("runtime_vcpu_system_percent", f, NEUTRAL, False, "vCPU time in kernel code by the Neuron application"),
        ("loaded_model_count", c, NEUTRAL, False, "models loaded by the runtime(s) (names in the metadata)"),
        ("system_memory_total_bytes", u.BYTE, NEUTRAL, False, "host memory size (system_data.memory_info)"),
        ("system_memory_used_bytes", u.BYTE, LOWER, False, "host memory in use, all processes"),
        ("system_swap_total_bytes", u.BYTE, NEUTRAL, False, "host swap size"),
        ("system_swap_used_bytes", u.BYTE, LOWER, False, "host swap in use"),
        *[(f"vcpu_{field}_percent", f, NEUTRAL, False, f"vCPU time ({field}), average of all vCPUs")
          for field in VCPU_FIELDS],
        ("vcpu_context_switch_count", c, NEUTRAL, False, "vCPU context switches in the period"),
        *[(f"{field}_count", c, LOWER, False, f"{field.replace('_', ' ')} events, all devices")
          for field in ECC_FIELDS],
    ])
    derived = [
        _derived_spec("execution_failed_count", g, c, LOWER, False, "executions that did not complete cleanly",
                      Formula(" + ".join(EXECUTION_FAILED), EXECUTION_FAILED,
                              lambda v: sum(v[n] for n in EXECUTION_FAILED))),
        _derived_spec("execution_rate", g, u.HERTZ, HIGHER, False, "completed executions per second",
                      _ratio("execution_completed_count", "execution_period")),
    ]
    return specs + derived


@lru_cache(maxsize=1)
def catalog() -> dict[str, MetricSpec]:
    """Every catalogued metric by canonical name."""
    specs = (_overall() + _data_movement() + _engines() + _collectives() + _system()
             + _training() + _host_memory() + _memory() + _derived() + _monitor())
    return {spec.name: spec for spec in specs}


# Per-core keys: the core index sits inside the name (formats.md 2). Order matters: first match.
# Each pattern matches in one pass (one ``.*`` at most, or a lookahead from the start): names
# come from input files and can be a megabyte long.
_CORE_PATTERNS: tuple[tuple[str, re.Pattern[str], str, str, Better, bool, str], ...] = (  # listing name first
    ("throttle_*_nc<N>_*_ns", re.compile(r"^throttle_(?=.*nc\d).*_ns$"), "throttling", u.SECOND, LOWER, True,
     "time the core was power-throttled"),
    ("throttle_*util_limit*_nc<N>_percent",
     re.compile(r"^throttle_(?=(?:(?!util_limit).)*util_limit.*nc\d).*_percent$"
                r"|^throttle_(?=.*max_achievable).*_percent$"),
     "throttling", u.FRACTION, HIGHER, False, "utilization cap imposed by throttling"),
    ("throttle_*_nc<N>_*_percent", re.compile(r"^throttle_(?=.*nc\d).*_percent$"), "throttling", u.FRACTION,
     LOWER, False, "share of the step the core was throttled"),
    ("neuroncore_utilization_nc<N>_percent", re.compile(r"^neuroncore_utilization_nc\d+_percent$"), "monitor",
     u.FRACTION, HIGHER, False, "NeuronCore utilization (neuron-monitor)"),
    ("neuroncore_utilization_nc<N>_pcore<M>_percent",
     re.compile(r"^neuroncore_utilization_nc\d+_pcore\d+_percent$"), "monitor", u.FRACTION, HIGHER, False,
     "utilization of one physical core of a logical NeuronCore (neuron-monitor v3d, Trn2)"),
    ("device_memory_workload.nc<N>", re.compile(r"^device_memory_workload\.(?:nd\d+\.)?nc\d+$"), "memory", u.BYTE,
     LOWER, False, "device memory of one core without the profiler's buffers (a memory table per core)"),
    ("memory.profiler_buffers", re.compile(r"^memory\.profiler_buffers$"), "memory", u.BYTE, NEUTRAL, False,
     "device memory reserved by the profiler (absent when not profiling)"),
    ("memory.<usage type>", re.compile(r"^memory\."), "memory", u.BYTE, LOWER, False,
     "device memory of one usage type"),
    ("neuroncore_flops_nc<N>", re.compile(r"^neuroncore_flops_nc\d+$"), "monitor", u.FLOP_RATE, HIGHER, False,
     "FLOP/s achieved by the core (neuron-monitor)"),
)

# Unknown metrics: unit guessed from the suffix (design.md), direction neutral.
_SUFFIX_UNITS = (("_percent", u.FRACTION, u.FRACTION), ("_time_ns", u.SECOND, "ns"),
                 ("_ns", u.SECOND, "ns"), ("_time", u.SECOND, u.SECOND),
                 ("_bytes", u.BYTE, u.BYTE), ("_size", u.BYTE, u.BYTE),
                 ("_count", u.COUNT, u.COUNT), ("_cycles", u.CYCLE, u.CYCLE),
                 ("_flops", u.FLOP, u.FLOP), ("_version", u.TEXT, u.TEXT),
                 ("_runtime", u.SECOND, u.SECOND), ("_samples_per_second", u.SAMPLE_RATE, u.SAMPLE_RATE),
                 ("_steps_per_second", u.STEP_RATE, u.STEP_RATE))


# Canonical device-memory usage types (the ingest maps every label it meets onto one of these; a
# test keeps the two in step). Each is compared as ``memory.<type>``.
MEMORY_TYPES = ("generic", "tensor_instructions", "scalar_instructions", "gpsimd_instructions",
                "vector_instructions", "sync_instructions", "io", "dram_spill", "weights", "profiler_buffers",
                "scalar_table", "shared_scratchpad", "tensors", "ucode", "gpsimd_stdio", "collectives",
                "scratchpad", "xt_cc", "dma_rings_runtime", "dma_rings_spill", "dma_rings_io",
                "dma_rings_collectives", "model_code", "constants", "runtime")


def listing(glob: str = "*") -> list[MetricSpec]:
    """Every catalogued metric, pattern family and memory type whose name matches ``glob``
    (``neuroncmp metrics``)."""
    from fnmatch import fnmatchcase

    families = [_spec(name, group, unit, direction, extensive, meaning)
                for name, _, group, unit, direction, extensive, meaning in _CORE_PATTERNS
                if not name.startswith("memory.")]
    memory = [lookup(f"memory.{usage}")._replace(name=f"memory.{usage}") for usage in MEMORY_TYPES]
    found = [spec for spec in [*catalog().values(), *families, *memory] if fnmatchcase(spec.name, glob)]
    return sorted(found, key=lambda spec: group_rank(spec.group))


def canonical_name(name: str) -> str:
    """The catalog's name for ``name`` (aliases resolved)."""
    return _CANONICAL.get(name, name)


@lru_cache(maxsize=4096)
def lookup(name: str) -> MetricSpec:
    """The spec of ``name``: catalogued, per-core pattern, or an uncatalogued guess."""
    name = canonical_name(name)
    spec = catalog().get(name)
    if spec is not None:
        return spec
    for _, pattern, group, unit, direction, extensive, meaning in _CORE_PATTERNS:
        if pattern.search(name):
            raw = "ns" if name.endswith("_ns") else unit
            return _spec(name, group, unit, direction, extensive, meaning, raw_unit=raw)
    return guess(name)


def guess(name: str) -> MetricSpec:
    """An uncatalogued spec with the unit its name suffix suggests (dimensionless if none)."""
    for suffix, unit, raw in _SUFFIX_UNITS:
        if name.endswith(suffix):
            return _spec(name, "uncatalogued", unit, raw_unit=raw, catalogued=False,
                         meaning=f"not in the catalog; unit guessed from '{suffix}'")
    return _spec(name, "uncatalogued", u.DIMENSIONLESS, catalogued=False,
                 meaning="not in the catalog; no unit could be guessed")


@lru_cache(maxsize=1)
def derived_specs() -> tuple[MetricSpec, ...]:
    return tuple(spec for spec in catalog().values() if spec.derived)


def closest(query: str, names: Iterable[str], n: int = 3) -> list[str]:
    """The names most like ``query`` (a typo or a prefix: ``mfu`` -> ``mfu_estimated_percent``)."""
    import difflib  # a typo's suggestions only

    names = list(dict.fromkeys(names))
    stem = query.strip("*?")
    prefixed = [name for name in names if stem and name.startswith(stem)]
    found = prefixed + difflib.get_close_matches(query, names, n=n, cutoff=0.5)
    found += [name for name in names if stem and stem in name]
    return list(dict.fromkeys(found))[:n]


def value_range(spec: MetricSpec) -> tuple[float | None, float | None]:
    """The range ``spec``'s values may take (``KIND_RANGES``). Throttle "percents" may exceed
    100 % (formats.md 2): kept and flagged ``percent-over-100``, never clamped."""
    low, high = KIND_RANGES.get(spec.kind, (None, None))
    if spec.kind == "fraction" and spec.name.startswith("throttle_"):
        high = None
    return low, high


def group_rank(group: str) -> int:
    return GROUPS.index(group) if group in GROUPS else len(GROUPS)


WILDCARDS = "*?["


def resolve_metric(text: str, present: Iterable[str] = ()) -> str:
    """The metric a user typed, the one rule of every place that takes a metric name (``--metric``,
    ``--fail-on``, ``--threshold KEY=``, ``history``'s METRIC, ``metrics``, the Python API): a glob is
    itself; a name among ``present`` (the rows, the store's metrics) or in the catalog is itself; else
    an alias (``mfu`` -> ``mfu_estimated_percent``), else the shortest catalogued name it begins
    (``tensor_engine_active`` -> ``tensor_engine_active_time``), else the shortest of ``present`` it
    begins; anything else unchanged, for the caller to refuse with ``suggestion``."""
    if not text or any(char in text for char in WILDCARDS):
        return text
    names = present if isinstance(present, (set, frozenset, dict)) else set(present)
    if text in names:
        return text
    name = canonical_name(text)
    known = catalog()
    if name in known or name in names:
        return name
    for pool in (known, names):
        begun = sorted((n for n in pool if n.startswith(name + "_")), key=lambda n: (len(n), n))
        if begun:
            return begun[0]
    return name


# The bases a metric name may name after a slash, as every place that takes a name reads them.
BASIS_SUFFIXES: dict[str, ShownBasis] = {"/step": STEP, "/sample": SAMPLE}
NAMED_FORM = "METRIC[/step|/sample]"  # how refusals spell what a name may be


def resolve_named(text: str, present: Iterable[str] = ()) -> tuple[str, ShownBasis | None]:
    """A metric and its basis as a user typed them: ``total_time/step`` -> (``total_time``, step),
    ``spill_reload_bytes/sample`` -> (.., sample), ``mfu`` -> (``mfu_estimated_percent``, None):
    the basis suffix (``BASIS_SUFFIXES``) split off, the name by ``resolve_metric``. A name among
    ``present`` is itself, slash and all."""
    names = present if isinstance(present, (set, frozenset, dict)) else set(present)
    name, basis = (text, None) if text in names else split_basis(text)
    return resolve_metric(name, names), basis


def split_basis(text: str) -> tuple[str, ShownBasis | None]:
    """``total_time/step`` -> (``total_time``, step): a basis suffix split off, the name as typed."""
    for suffix, basis in BASIS_SUFFIXES.items():
        if text.endswith(suffix) and len(text) > len(suffix):
            return text[:-len(suffix)], basis
    return text, None


def suggestion(text: str, names: Iterable[str]) -> str:
    """``"; did you mean a, b?"`` (the ``closest`` names), or ``""`` when none is near: what every
    refusal of a metric name ends with."""
    near = closest(text, names)
    return f"; did you mean {', '.join(near)}?" if near else ""

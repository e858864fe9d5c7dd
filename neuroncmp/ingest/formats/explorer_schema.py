"""Neuron Explorer's Parquet schema versions: which fields of a table to read, in which unit.

Schema 7.4.0 is mapped field by field (AWS's ``tools/neuron-explorer/profile-schema-reference.rst``); a
7.x profile is read that way. For any other MAJOR a field is read only when its name and unit are
confirmed (the profile's ``SchemaFields``, else 7.4.0's list) and the profile says so once; fields that
cannot be confirmed are listed in ``skipped``, never guessed. The rule: docs/formats.md ("Neuron
Explorer schema versions").
"""

from __future__ import annotations

from typing import Any, NamedTuple

from ... import catalog
from ... import units as u

DOCUMENTED_MAJOR = 7
DOCUMENTED = "7.4.0"


def _fields(**by_unit: str) -> dict[str, str]:
    """``seconds="a b"`` -> ``{"a": "seconds", "b": "seconds"}`` (``none``: no unit)."""
    return {field: ("" if unit == "none" else unit) for unit, names in by_unit.items() for field in names.split()}


# Schema 7.4.0's fields of the tables neuroncmp reads, by the unit the reference gives each.
SCHEMA_7_4_0: dict[str, dict[str, str]] = {
    "Summary": _fields(
        seconds=(
            "total_time dma_active_time static_dma_active_time dma_packet_time dma_transfer_time "
            "software_dynamic_dma_active_time hardware_dynamic_dma_active_time "
            "tensor_engine_instruction_time tensor_engine_active_time vector_engine_instruction_time "
            "vector_engine_active_time scalar_engine_instruction_time scalar_engine_active_time "
            "activate_instruction_time sync_engine_instruction_time sync_engine_active_time "
            "gpsimd_engine_instruction_time gpsimd_engine_active_time cc_op_time cc_op_active_time "
            "cc_cores_instruction_time cc_cores_instruction_active_time total_exec_time "
            "total_active_time"
        ),
        cycles=(
            "neuroncore_cycle_count dma_active_cycles"
        ),
        flops=(
            "model_flops hardware_flops transpose_flops adjusted_hardware_flops "
            "adjusted_transpose_flops"
        ),
        none=(
            "mm_arithmetic_intensity peak_flops_bandwidth_ratio trace_count event_count total_row_count "
            "dma_transfer_count dma_queue_count static_dma_packet_count psum_read_sbuf_write_count "
            "software_dynamic_dma_packet_count hardware_dynamic_dma_packet_count "
            "tensor_engine_instruction_count matmul_instruction_count vector_engine_instruction_count "
            "scalar_engine_instruction_count activate_instruction_count sync_engine_instruction_count "
            "gpsimd_engine_instruction_count cc_op_count cc_cores_instruction_count"
        ),
        percent=(
            "dma_active_time_percent dynamic_dma_active_time_percent static_dma_active_time_percent "
            "dynamic_dma_packet_percent static_dma_packet_percent dynamic_dma_size_percent "
            "static_dma_size_percent mbu_estimated_percent mbu_min_read_util_percent "
            "software_dynamic_dma_active_time_percent software_dynamic_dma_packet_percent "
            "software_dynamic_dma_size_percent hardware_dynamic_dma_active_time_percent "
            "hardware_dynamic_dma_packet_percent hardware_dynamic_dma_size_percent "
            "tensor_engine_active_time_percent mfu_estimated_percent "
            "mfu_max_achievable_estimated_percent mfu_hlo_estimated_percent "
            "mfu_hlo_max_achievable_estimated_percent mfu_inst_estimated_percent "
            "mfu_inst_max_achievable_estimated_percent hfu_estimated_percent "
            "vector_engine_active_time_percent scalar_engine_active_time_percent "
            "sync_engine_active_time_percent gpsimd_engine_active_time_percent "
            "cc_op_active_time_percent cc_cores_instruction_active_time_percent "
            "total_active_time_percent"
        ),
        bytes=(
            "dma_transfer_average_bytes dma_transfer_total_bytes inputs_and_weights_size_bytes "
            "inputs_outputs_weights_size_bytes weight_size_bytes static_dma_size hbm_write_bytes "
            "hbm_read_bytes sbuf_write_bytes sbuf_read_bytes spill_save_bytes spill_reload_bytes "
            "psum_write_bytes psum_read_bytes psum_read_sbuf_write_bytes input_queue_bytes "
            "output_queue_bytes weight_queue_bytes software_dynamic_dma_size hardware_dynamic_dma_size"
        ),
    ),
    "Metadata": _fields(
        none=(
            "profile_schema_version ntff_version num_physical_cores vnc_enabled first_ts last_ts "
            "num_dma_engines_per_neuroncore tensor_engine_num_rows tensor_engine_num_cols "
            "vector_engine_num_channels scalar_engine_num_channels gpsimd_engine_num_channels "
            "ticks_per_nanosec instance_type runtime_version collectives_version driver_version "
            "explorer_version compiler_version neuroncore_idx neuron_device_idx ultraserver_id "
            "ultraserver_type ultraserver_size ultraserver_instance_index s3_bucket_path profile_name "
            "explorer_build_time is_simulation"
        ),
        nanoseconds=(
            "first_hw_timestamp last_hw_timestamp"
        ),
        bytes_per_second=(
            "dma_ddr_bandwidth hbm_ddr_bandwidth"
        ),
        gigahertz=(
            "tensor_engine_clock_freq vector_engine_clock_freq scalar_engine_clock_freq "
            "gpsimd_engine_clock_freq neuroncore_clock_freq"
        ),
    ),
    "ThrottleSummary": _fields(
        none=(
            "nc_idx throttle_type"
        ),
        nanoseconds=(
            "throttle_active_time_ns"
        ),
        percent=(
            "throttle_active_time_percent max_achievable_util_with_throttling_percent"
        ),
    ),
    "HbmUsageSummaryByType": _fields(
        none=(
            "neuron_device_idx neuroncore_idx usage_type"
        ),
        bytes=(
            "usage_bytes"
        ),
    ),
    "Warning": _fields(
        none=(
            "message category"
        ),
    ),
}

# SchemaFields units -> (canonical unit, factor into it). Percent fields hold 0-1 fractions in
# 7.4.0 (``max_achievable_util_with_throttling_percent``: "1.0 means no throttling"), unless a
# field declares a maximum of 100.
UNITS = {"seconds": (u.SECOND, 1.0), "nanoseconds": (u.SECOND, 1e-9), "bytes": (u.BYTE, 1.0),
         "cycles": (u.CYCLE, 1.0), "flops": (u.FLOP, 1.0), "percent": (u.FRACTION, 1.0),
         "bytes_per_second": (u.BYTE_RATE, 1.0), "gigahertz": (u.HERTZ, 1e9)}
_UNITLESS_KINDS = frozenset({"count", "index", "intensity", "ratio", "text"})


class Field(NamedTuple):
    """A confirmed column: its unit as the schema names it ("" none, or not declared) and, for a
    percent declared 0-100, the scale into a fraction."""

    unit: str
    scale: float = 1.0


class Schema:
    """The fields of one profile's tables that neuroncmp reads, and what it says about them."""

    def __init__(self, version: str | None, declared: dict[tuple[str, str], dict[str, Any]]) -> None:
        self.version = version
        self.declared = declared          # (table, field) -> its SchemaFields row
        self.mapped = major(version) in (None, DOCUMENTED_MAJOR)

    def field(self, table: str, name: str) -> Field | None:
        """How to read ``table.name``; None when it cannot be confirmed."""
        row = self.declared.get((table, name))
        if row is not None:
            found = _confirmed(name, str(row.get("field_unit") or ""), row.get("field_maximum"))
            if found is not None or not self.mapped:
                return found  # a mapped version falls back to the documented list below
        documented = SCHEMA_7_4_0.get(table, {}).get(name)
        if documented is not None:
            return _confirmed(name, documented, None)
        return Field("") if self.mapped else None  # a 7.x MINOR addition: read as any new metric

    def note(self) -> str | None:
        """The one warning an unmapped version gets (None for a mapped one)."""
        if self.mapped:
            return None
        basis = ("names and units from the profile's SchemaFields table" if self.declared
                 else f"names and units of schema {DOCUMENTED}, as the profile has no SchemaFields table")
        return (f"Neuron Explorer profile schema {self.version} is not mapped by neuroncmp (documented: "
                f"{DOCUMENTED}): read only the fields whose name and unit are confirmed ({basis}); "
                "the others are listed as skipped")


def _confirmed(name: str, unit: str, maximum: Any) -> Field | None:
    """A field whose declared unit neuroncmp knows and that agrees with the catalog; else None."""
    if unit and unit not in UNITS:
        return None
    spec = catalog.lookup(name)
    if spec.catalogued and not _agrees(spec, unit):
        return None
    scale = 0.01 if unit == "percent" and isinstance(maximum, (int, float)) and maximum == 100 else 1.0
    return Field(unit, scale)


def _agrees(spec: catalog.MetricSpec, unit: str) -> bool:
    if not unit:
        return spec.kind in _UNITLESS_KINDS
    canonical = UNITS[unit][0]
    return spec.unit == canonical and (unit != "nanoseconds") == (spec.raw_unit != "ns")


def major(version: str | None) -> int | None:
    """``"12.0.1"`` -> 12; None for no version or one that does not start with a number."""
    head = str(version or "").strip().split(".")[0]
    return int(head) if head.isdigit() else None


def declared_fields(rows: list[dict[str, Any]]) -> dict[tuple[str, str], dict[str, Any]]:
    """``SchemaFields`` rows by (table, field)."""
    return {(str(r.get("table_name")), str(r.get("field_name"))): r for r in rows
            if r.get("table_name") is not None and r.get("field_name") is not None}

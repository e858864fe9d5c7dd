from __future__ import annotations

import pytest

from neuroncmp import catalog


def test_aliases_resolve_across_tool_versions():
    assert catalog.lookup("neuroncore_idx").name == "nc_idx"
    assert catalog.lookup("neuron_device_idx").name == "nd_idx"
    assert catalog.lookup("explorer_version").name == "profiler_version"


@pytest.mark.parametrize("name, unit, direction", [
    ("throttle_active_nc3_time_ns", "s", "lower"),
    ("throttle_activity_1_avg_util_limit_nc12_percent", "fraction", "higher"),
    ("throttle_periodic_active_time_nc1_percent", "fraction", "lower"),
    ("throttle_activity_0_max_achievable_util_nc0_percent", "fraction", "higher"),
])
def test_per_core_throttle_keys_by_pattern(name, unit, direction):
    spec = catalog.lookup(name)
    assert (spec.group, spec.unit, spec.direction, spec.catalogued) == ("throttling", unit, direction, True)
    if name.endswith("_ns"):
        assert spec.raw_unit == "ns"


@pytest.mark.parametrize("name, unit", [
    ("new_engine_time", "s"), ("foo_bytes", "B"), ("bar_percent", "fraction"), ("x_count", "count"),
    ("y_time_ns", "s"), ("z_cycles", "cycle"), ("mystery", "dimensionless"),
])
def test_unknown_metrics_get_a_guessed_unit_and_are_marked(name, unit):
    spec = catalog.lookup(name)
    assert (spec.unit, spec.catalogued, spec.direction, spec.group) == (unit, False, "neutral", "uncatalogued")


# Reviewed by hand: every catalogued metric's direction (which way is better), whether it grows
# with the batch (extensive: compared per sample) and its canonical unit. A metric added to or
# changed in the catalog must be added or changed here too, on purpose.
REVIEWED = [
    ('event_count', 'neutral', True, 'count'),
    ('trace_count', 'neutral', True, 'count'),
    ('total_time', 'lower', True, 's'),
    ('total_active_time', 'lower', True, 's'),
    ('total_active_time_percent', 'higher', False, 'fraction'),
    ('neuroncore_cycle_count', 'lower', True, 'cycle'),
    ('model_flops', 'neutral', True, 'FLOP'),
    ('hardware_flops', 'neutral', True, 'FLOP'),
    ('transpose_flops', 'lower', True, 'FLOP'),
    ('mm_arithmetic_intensity', 'higher', False, 'FLOP/B'),
    ('peak_flops_bandwidth_ratio', 'neutral', False, 'FLOP/B'),
    ('dma_active_cycles', 'lower', True, 'cycle'),
    ('dma_active_time', 'lower', True, 's'),
    ('dma_active_time_percent', 'neutral', False, 'fraction'),
    ('dma_packet_time', 'neutral', True, 's'),
    ('dma_queue_count', 'neutral', False, 'count'),
    ('dma_transfer_average_bytes', 'neutral', False, 'B'),
    ('dma_transfer_count', 'neutral', True, 'count'),
    ('dma_transfer_time', 'lower', True, 's'),
    ('dma_transfer_total_bytes', 'lower', True, 'B'),
    ('dma_data_bytes', 'lower', True, 'B'),
    ('dynamic_dma_packet_percent', 'neutral', False, 'fraction'),
    ('dynamic_dma_size_percent', 'neutral', False, 'fraction'),
    ('hbm_read_bytes', 'lower', True, 'B'),
    ('hbm_write_bytes', 'lower', True, 'B'),
    ('input_queue_bytes', 'neutral', True, 'B'),
    ('inputs_and_weights_size_bytes', 'neutral', False, 'B'),
    ('mbu_estimated_percent', 'neutral', False, 'fraction'),
    ('mbu_min_read_util_percent', 'neutral', False, 'fraction'),
    ('output_queue_bytes', 'neutral', True, 'B'),
    ('psum_read_bytes', 'neutral', True, 'B'),
    ('psum_read_sbuf_write_bytes', 'neutral', True, 'B'),
    ('psum_read_sbuf_write_count', 'neutral', True, 'count'),
    ('psum_write_bytes', 'neutral', True, 'B'),
    ('sbuf_read_bytes', 'neutral', True, 'B'),
    ('sbuf_write_bytes', 'neutral', True, 'B'),
    ('software_dynamic_dma_packet_count', 'neutral', True, 'count'),
    ('software_dynamic_dma_size', 'neutral', True, 'B'),
    ('spill_reload_bytes', 'lower', True, 'B'),
    ('spill_save_bytes', 'lower', True, 'B'),
    ('static_dma_packet_count', 'neutral', True, 'count'),
    ('static_dma_size', 'neutral', True, 'B'),
    ('weight_queue_bytes', 'neutral', True, 'B'),
    ('weight_size_bytes', 'neutral', False, 'B'),
    # DMA by class (profilers 2.27-2.29), reviewed against tests/data/third_party/RELATIONS.md
    ('static_dma_active_time', 'neutral', True, 's'),
    ('static_dma_active_time_percent', 'neutral', False, 'fraction'),
    ('static_dma_packet_percent', 'neutral', False, 'fraction'),
    ('static_dma_size_percent', 'neutral', False, 'fraction'),
    ('software_dynamic_dma_active_time', 'neutral', True, 's'),
    ('software_dynamic_dma_active_time_percent', 'neutral', False, 'fraction'),
    ('software_dynamic_dma_packet_percent', 'neutral', False, 'fraction'),
    ('software_dynamic_dma_size_percent', 'neutral', False, 'fraction'),
    ('hardware_dynamic_dma_active_time', 'neutral', True, 's'),
    ('hardware_dynamic_dma_active_time_percent', 'neutral', False, 'fraction'),
    ('hardware_dynamic_dma_packet_percent', 'neutral', False, 'fraction'),
    ('hardware_dynamic_dma_size_percent', 'neutral', False, 'fraction'),
    ('dynamic_dma_active_time', 'neutral', True, 's'),
    ('dynamic_dma_active_time_percent', 'neutral', False, 'fraction'),
    ('hardware_dynamic_dma_packet_count', 'neutral', True, 'count'),
    ('hardware_dynamic_dma_size', 'neutral', True, 'B'),
    ('inputs_outputs_weights_size_bytes', 'neutral', False, 'B'),
    ('tensor_engine_active_time', 'neutral', True, 's'),
    ('tensor_engine_active_time_percent', 'higher', False, 'fraction'),
    ('tensor_engine_instruction_count', 'neutral', True, 'count'),
    ('tensor_engine_instruction_time', 'neutral', True, 's'),
    ('vector_engine_active_time', 'neutral', True, 's'),
    ('vector_engine_active_time_percent', 'neutral', False, 'fraction'),
    ('vector_engine_instruction_count', 'neutral', True, 'count'),
    ('vector_engine_instruction_time', 'neutral', True, 's'),
    ('scalar_engine_active_time', 'neutral', True, 's'),
    ('scalar_engine_active_time_percent', 'neutral', False, 'fraction'),
    ('scalar_engine_instruction_count', 'neutral', True, 'count'),
    ('scalar_engine_instruction_time', 'neutral', True, 's'),
    ('sync_engine_active_time', 'neutral', True, 's'),
    ('sync_engine_active_time_percent', 'neutral', False, 'fraction'),
    ('sync_engine_instruction_count', 'neutral', True, 'count'),
    ('sync_engine_instruction_time', 'neutral', True, 's'),
    ('gpsimd_engine_active_time', 'neutral', True, 's'),
    ('gpsimd_engine_active_time_percent', 'neutral', False, 'fraction'),
    ('gpsimd_engine_instruction_count', 'neutral', True, 'count'),
    ('gpsimd_engine_instruction_time', 'neutral', True, 's'),
    ('mfu_estimated_percent', 'higher', False, 'fraction'),
    ('hfu_estimated_percent', 'higher', False, 'fraction'),
    ('mfu_max_achievable_estimated_percent', 'higher', False, 'fraction'),
    ('matmul_instruction_count', 'neutral', True, 'count'),
    ('activate_instruction_count', 'neutral', True, 'count'),
    ('activate_instruction_time', 'neutral', True, 's'),
    ('mfu_hlo_estimated_percent', 'higher', False, 'fraction'),
    ('mfu_hlo_max_achievable_estimated_percent', 'higher', False, 'fraction'),
    ('mfu_inst_estimated_percent', 'higher', False, 'fraction'),
    ('mfu_inst_max_achievable_estimated_percent', 'higher', False, 'fraction'),
    ('cc_cores_instruction_active_time', 'neutral', True, 's'),
    ('cc_cores_instruction_active_time_percent', 'neutral', False, 'fraction'),
    ('cc_cores_instruction_count', 'neutral', True, 'count'),
    ('cc_cores_instruction_time', 'neutral', True, 's'),
    ('cc_op_active_time', 'lower', True, 's'),
    ('cc_op_active_time_percent', 'lower', False, 'fraction'),
    ('cc_op_count', 'neutral', False, 'count'),
    ('cc_op_time', 'lower', True, 's'),
    ('instance_type', 'neutral', False, 'text'),
    ('compiler_version', 'neutral', False, 'text'),
    ('runtime_version', 'neutral', False, 'text'),
    ('driver_version', 'neutral', False, 'text'),
    ('collectives_version', 'neutral', False, 'text'),
    ('profiler_version', 'neutral', False, 'text'),
    ('profile_schema_version', 'neutral', False, 'text'),
    ('nc_idx', 'neutral', False, 'count'),
    ('nd_idx', 'neutral', False, 'count'),
    ('lnc_config', 'neutral', False, 'count'),
    ('num_physical_cores', 'neutral', False, 'count'),
    ('vnc_enabled', 'neutral', False, 'text'),
    ('hbm_ddr_bandwidth', 'neutral', False, 'B/s'),
    ('neuroncore_frequency', 'neutral', False, 'Hz'),
    ('device_type', 'neutral', False, 'text'),
    ('neuroncore_per_device_count', 'neutral', False, 'count'),
    ('neuron_device_count', 'neutral', False, 'count'),
    ('neuron_device_memory_size', 'neutral', False, 'B'),
    ('epoch', 'neutral', False, 'dimensionless'),
    ('train_runtime', 'lower', False, 's'),
    ('train_samples_per_second', 'higher', False, 'sample/s'),
    ('train_steps_per_second', 'neutral', False, 'step/s'),
    ('train_loss', 'neutral', False, 'dimensionless'),      # model quality: shown, not scored
    ('eval_runtime', 'neutral', False, 's'),               # depends on the eval set's size
    ('eval_samples_per_second', 'higher', False, 'sample/s'),
    ('eval_steps_per_second', 'neutral', False, 'step/s'),
    ('eval_loss', 'neutral', False, 'dimensionless'),
    ('total_flos', 'neutral', False, 'FLOP'),
    ('train_samples', 'neutral', False, 'count'),
    ('eval_samples', 'neutral', False, 'count'),
    ('host_used_memory_total', 'lower', False, 'B'),
    ('host_used_memory_tensors', 'lower', False, 'B'),
    ('host_used_memory_constants', 'lower', False, 'B'),
    ('host_used_memory_app', 'lower', False, 'B'),
    ('host_used_memory_dma_buffers', 'lower', False, 'B'),
    ('device_used_memory_total', 'lower', False, 'B'),
    ('device_used_memory_tensors', 'lower', False, 'B'),
    ('device_used_memory_constants', 'lower', False, 'B'),
    ('device_memory_total', 'neutral', False, 'B'),  # the profiler's buffers included: not scored
    ('device_memory_workload', 'lower', False, 'B'),  # without them: scored
    # derived (computed from the metrics above; formulas in the catalog and docs/commands/metrics.md)
    ('device_throughput', 'higher', False, 'sample/s'),
    ('trainer_step_time', 'lower', True, 's'),
    ('device_share_of_step', 'higher', False, 'fraction'),
    ('achieved_flop_rate', 'higher', False, 'FLOP/s'),
    ('hbm_traffic_bytes', 'lower', True, 'B'),
    ('spill_reload_share', 'lower', False, 'fraction'),
    ('collective_share', 'lower', False, 'fraction'),
    ('transpose_share', 'lower', False, 'fraction'),
    # neuron-monitor (branch monitor, issue 20 item 4): AWS's neuron-monitor user guide
    ('execution_period', 'neutral', False, 's'),
    ('execution_completed_count', 'higher', False, 'count'),
    ('execution_completed_with_err_count', 'lower', False, 'count'),
    ('execution_completed_with_num_err_count', 'lower', False, 'count'),
    ('execution_timed_out_count', 'lower', False, 'count'),
    ('execution_incorrect_input_count', 'lower', False, 'count'),
    ('execution_failed_to_queue_count', 'lower', False, 'count'),
    ('execution_error_generic_count', 'lower', False, 'count'),
    ('execution_error_numerical_count', 'lower', False, 'count'),
    ('execution_error_transient_count', 'lower', False, 'count'),
    ('execution_error_model_count', 'lower', False, 'count'),
    ('execution_error_runtime_count', 'lower', False, 'count'),
    ('execution_error_hardware_count', 'lower', False, 'count'),
    ('latency_total_p0', 'lower', True, 's'),
    ('latency_total_p1', 'lower', True, 's'),
    ('latency_total_p25', 'lower', True, 's'),
    ('latency_total_p50', 'lower', True, 's'),
    ('latency_total_p75', 'lower', True, 's'),
    ('latency_total_p99', 'lower', True, 's'),
    ('latency_total_p100', 'lower', True, 's'),
    ('latency_device_p0', 'lower', True, 's'),
    ('latency_device_p1', 'lower', True, 's'),
    ('latency_device_p25', 'lower', True, 's'),
    ('latency_device_p50', 'lower', True, 's'),
    ('latency_device_p75', 'lower', True, 's'),
    ('latency_device_p99', 'lower', True, 's'),
    ('latency_device_p100', 'lower', True, 's'),
    ('neuroncore_flops_total', 'higher', False, 'FLOP/s'),
    ('runtime_vcpu_user_percent', 'neutral', False, 'fraction'),
    ('runtime_vcpu_system_percent', 'neutral', False, 'fraction'),
    ('loaded_model_count', 'neutral', False, 'count'),
    ('system_memory_total_bytes', 'neutral', False, 'B'),
    ('system_memory_used_bytes', 'lower', False, 'B'),
    ('system_swap_total_bytes', 'neutral', False, 'B'),
    ('system_swap_used_bytes', 'lower', False, 'B'),
    ('vcpu_user_percent', 'neutral', False, 'fraction'),
    ('vcpu_nice_percent', 'neutral', False, 'fraction'),
    ('vcpu_system_percent', 'neutral', False, 'fraction'),
    ('vcpu_idle_percent', 'neutral', False, 'fraction'),
    ('vcpu_io_wait_percent', 'neutral', False, 'fraction'),
    ('vcpu_irq_percent', 'neutral', False, 'fraction'),
    ('vcpu_soft_irq_percent', 'neutral', False, 'fraction'),
    ('vcpu_context_switch_count', 'neutral', False, 'count'),
    ('mem_ecc_corrected_count', 'lower', False, 'count'),
    ('mem_ecc_uncorrected_count', 'lower', False, 'count'),
    ('sram_ecc_corrected_count', 'lower', False, 'count'),
    ('sram_ecc_uncorrected_count', 'lower', False, 'count'),
    ('execution_failed_count', 'lower', False, 'count'),
    ('execution_rate', 'higher', False, 'Hz'),
]


def test_every_catalogued_metric_is_in_the_reviewed_table():
    assert [name for name, *_ in REVIEWED] == list(catalog.catalog())


@pytest.mark.parametrize("name, direction, extensive, unit", REVIEWED, ids=[r[0] for r in REVIEWED])
def test_direction_extensive_and_unit_match_the_reviewed_table(name, direction, extensive, unit):
    spec = catalog.lookup(name)
    assert (spec.direction, spec.extensive, spec.unit) == (direction, extensive, unit)


def test_pattern_metrics():
    assert catalog.lookup("memory.profiler_buffers").direction == "neutral"
    assert (catalog.lookup("memory.shared_scratchpad").unit, catalog.lookup("memory.io").direction) == ("B", "lower")


def test_every_spec_is_well_formed():
    for spec in catalog.catalog().values():
        assert spec.direction in ("higher", "lower", "neutral")
        assert spec.group in catalog.GROUPS
        assert spec.meaning


# Memory table labels and the canonical type each maps to: the seed's (shared/formats.md 6, case-sensitive),
# Explorer's Title Case ones and neuron-monitor's keys (neuroncore_memory_usage).
MEMORY_LABELS = {
    "generic": "generic", "Tensor": "tensor_instructions", "Scalar": "scalar_instructions",
    "GpSimd": "gpsimd_instructions", "Vector": "vector_instructions", "Sync": "sync_instructions", "io": "io",
    "Syncill": "dram_spill", "weight": "weights", "profiler buffers": "profiler_buffers",
    "Scalar table": "scalar_table", "shared scratchpad": "shared_scratchpad", "tensor": "tensors",
    "ucode": "ucode", "GpSimd stdio": "gpsimd_stdio", "collectives": "collectives", "scratchpad": "scratchpad",
    "xt cc": "xt_cc", "dma rings runtime": "dma_rings_runtime", "dma rings Syncill": "dma_rings_spill",
    "dma rings io": "dma_rings_io", "dma rings collectives": "dma_rings_collectives", "Total": "total",
    "DRAM Spill": "dram_spill", "Dma Rings Spill": "dma_rings_spill", "Tensors": "tensors", "Weights": "weights",
    "Ucode Lib": "ucode", "constants": "constants", "model_code": "model_code",
    "model_shared_scratchpad": "shared_scratchpad", "runtime_memory": "runtime",
}


def test_every_canonical_memory_type_is_listed():
    from neuroncmp.ingest.memory_types import canonical_usage

    assert {label: canonical_usage(label) for label in MEMORY_LABELS} == MEMORY_LABELS
    assert set(MEMORY_LABELS.values()) == set(catalog.MEMORY_TYPES) | {"total"}  # each listed type is reached
    assert [s.name for s in catalog.listing("memory.tensor*")] == ["memory.tensor_instructions", "memory.tensors"]
    assert catalog.lookup("memory.profiler_buffers").direction == "neutral"


def test_the_derived_specs_are_the_catalogs_derived_ones():
    from neuroncmp.catalog import derived_specs

    expected = [spec.name for spec in catalog.catalog().values() if spec.derived]
    assert [spec.name for spec in derived_specs()] == expected and "device_throughput" in expected

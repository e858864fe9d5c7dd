"""Hardware facts per instance family, for analyses that need them when a profile does not carry them.

Values a profile carries win (the peak FLOP/s implied by ``mfu_estimated_percent``, the ridge
``peak_flops_bandwidth_ratio``, Explorer's ``hbm_ddr_bandwidth`` for the roofline, and
``neuroncore_frequency`` for the cycle check); this table is the fallback, and every analysis says
which source it used. The user overrides the roof's numbers (``neuroncmp sweep --hbm-per-core 16GiB
--peak-tflops 95 --hbm-gbps 410``).

Per NeuronCore (one physical core; one logical core at LNC=1):
- trn1 / trn1n (Trainium, NeuronCore-v2): a chip has 2 cores, 32 GiB HBM (2 stacks of 16 GiB), 820 GB/s,
  190 BF16 TFLOPS, 1.4 GHz. Source: AWS Neuron docs, about-neuron/arch/neuron-hardware/trainium.rst.
- inf2 (Inferentia2, NeuronCore-v2): a chip has 2 cores, 32 GiB, 820 GB/s, 190 BF16 TFLOPS, 1.4 GHz.
  Source: AWS Neuron docs, about-neuron/arch/neuron-hardware/inferentia2.rst.
- trn2 (Trainium2, NeuronCore-v3): a chip has 8 cores, 96 GiB HBM (4 stacks of 24 GiB), 2.9 TB/s,
  667 BF16 TFLOPS (79 per core's tensor engine), 1.2 GHz (formats.md 7). At the default LNC=2 a logical
  core is two physical cores sharing one 24 GiB stack. Source: about-neuron/arch/neuron-hardware/trainium2.rst,
  nki/guides/architecture/trainium2_arch.rst.
"""

from __future__ import annotations

from typing import NamedTuple

from .records import record

GIB = 2**30


@record
class Hardware(NamedTuple):
    """What one NeuronCore offers; ``source`` says where each number came from."""

    family: str
    hbm_bytes: float          # device memory one core can use (bytes)
    peak_flops: float         # dense BF16 FLOP/s of one core
    hbm_bandwidth: float      # bytes/s of the HBM one core reads (one stack on trn1)
    clock_hz: float
    source: str



FAMILIES = {
    "trn1": Hardware("trn1", 16 * GIB, 95e12, 410e9, 1.4e9, "trn1 table (AWS Trainium architecture page)"),
    "trn1n": Hardware("trn1n", 16 * GIB, 95e12, 410e9, 1.4e9, "trn1 table (AWS Trainium architecture page)"),
    "inf2": Hardware("inf2", 16 * GIB, 95e12, 410e9, 1.4e9, "inf2 table (AWS Inferentia2 architecture page)"),
    "trn2": Hardware("trn2", 12 * GIB, 83.4e12, 362.5e9, 1.2e9, "trn2 table (AWS Trainium2 architecture page)"),
}
DEFAULT_FAMILY = "trn1"  # the bundled profiles' family; used (and said) when the instance is unknown


def family_of(instance_type: object) -> str | None:
    """``trn1.2xlarge`` -> ``trn1``; None when unknown."""
    family = str(instance_type or "").split(".")[0].lower()
    return family if family in FAMILIES else None


def for_instance(instance_type: object) -> Hardware:
    """The table row for an instance type, or trn1's with a note saying it was assumed."""
    family = family_of(instance_type)
    if family is not None:
        return FAMILIES[family]
    base = FAMILIES[DEFAULT_FAMILY]
    return base._replace(source=f"{base.source}, assumed: instance type {instance_type or 'unknown'}")


def clock_hz(instance_type: object) -> float | None:
    family = family_of(instance_type)
    return FAMILIES[family].clock_hz if family else None

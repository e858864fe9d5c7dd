"""Canonical device-memory usage types (formats.md 6).

Labels are case-sensitive (``Tensor`` = tensor-engine instructions, ``tensor`` = tensors), so exact
labels are tried first; Neuron Explorer's Title Case labels and neuron-monitor's keys next.
``Syncill`` is the profiler UI's garbling of "Spill": it maps to the spill types, raw label kept.
"""

from __future__ import annotations

import re

_EXACT = {
    "generic": "generic", "Tensor": "tensor_instructions", "Scalar": "scalar_instructions",
    "GpSimd": "gpsimd_instructions", "Vector": "vector_instructions", "Sync": "sync_instructions",
    "io": "io", "Syncill": "dram_spill", "weight": "weights", "profiler buffers": "profiler_buffers",
    "Scalar table": "scalar_table", "shared scratchpad": "shared_scratchpad", "tensor": "tensors",
    "ucode": "ucode", "GpSimd stdio": "gpsimd_stdio", "collectives": "collectives",
    "scratchpad": "scratchpad", "xt cc": "xt_cc", "dma rings runtime": "dma_rings_runtime",
    "dma rings Syncill": "dma_rings_spill", "dma rings io": "dma_rings_io",
    "dma rings collectives": "dma_rings_collectives", "Total": "total",
}
_LOOSE = {
    "dram spill": "dram_spill", "spill": "dram_spill", "dma rings spill": "dma_rings_spill",
    "tensors": "tensors", "weights": "weights", "model code": "model_code", "model_code": "model_code",
    "constants": "constants", "model constants": "constants",
    "model_shared_scratchpad": "shared_scratchpad", "runtime_memory": "runtime",
    "runtime": "runtime", "total": "total", "xt cc": "xt_cc",
    "ucode lib": "ucode",  # the view JSON's and Explorer's name for the UI's "ucode"
}


def canonical_usage(label: str) -> str:
    """The canonical usage type of a memory table label; unknown labels become a slug."""
    label = label.strip()
    if label in _EXACT:
        return _EXACT[label]
    loose = " ".join(label.replace("(unused)", " ").split()).lower().replace("syncill", "spill")
    if loose in _LOOSE:
        return _LOOSE[loose]
    if loose in _EXACT:
        return _EXACT[loose]
    return re.sub(r"[^a-z0-9]+", "_", loose).strip("_") or "unknown"


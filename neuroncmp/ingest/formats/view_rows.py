"""What a view JSON's per-row sections say about the kernel's work, kept as sums while the rows are dropped:
``dma_data_bytes`` (AWS's ``dma_transfer_bytes`` filter over the ``dma`` rows) and ``matmul_cores`` /
``dma_cores`` (the physical cores that ran MATMUL instructions and data DMA: a row's ``subgraph`` is its
core, as ``model_info`` maps ``sg00`` and ``sg01`` to two ``nc_idx``). Why, and what each feeds:
docs/bounds.md ("Where neuroncmp differs from AWS, and why": DMA bytes, peaks per profile). A section
that is not a list of objects with these fields gives no sum (its ``skipped`` line says so).
"""

from __future__ import annotations

from typing import Any

from ...model import Profile
from ...units import finite_number
from ..values import add_metric, raw_metric


class RowSums:
    """The sums of one document's dropped sections (``on_drop`` sees each as it is decoded)."""

    def __init__(self) -> None:
        self.dma: tuple[int, int] | None = None     # (data bytes, cores with data DMA)
        self.matmul_cores: int | None = None
        self.bad: list[str] = []

    def on_drop(self, name: str, value: Any) -> None:
        if name == "dma":
            self.dma = _dma(value)
            if self.dma is None:
                self.bad.append("dma")
        elif name == "instruction":
            self.matmul_cores = _matmul_cores(value)
            if self.matmul_cores is None:
                self.bad.append("instruction")

    def reason(self, name: str) -> str:
        """What a dropped section's ``skipped`` line adds when its rows could not be summed."""
        return "; not summed for the bounds (not rows of the expected fields)" if name in self.bad else ""

    def apply(self, profile: Profile, path: str, where: str) -> None:
        if self.dma is not None:
            place = f"{where}section 'dma' (transfer_size summed: queue_type not instruction, over 4 bytes)"
            if "dma_data_bytes" not in profile.metrics:
                add_metric(profile, raw_metric(path, place, "dma_data_bytes", self.dma[0]), place)
            profile.metadata.setdefault("dma_cores", self.dma[1])
        if self.matmul_cores is not None:
            profile.metadata.setdefault("matmul_cores", self.matmul_cores)


def _rows(value: Any) -> list[dict[str, Any]] | None:
    if not isinstance(value, list) or not all(isinstance(row, dict) for row in value):
        return None
    return value


def _dma(value: Any) -> tuple[int, int] | None:
    rows = _rows(value)
    if rows is None:
        return None
    moved, cores = 0, set()
    for row in rows:
        size = row.get("transfer_size")  # a float: dropped sections are read with integers as floats
        if not (finite_number(size) and size >= 0) or not isinstance(row.get("queue_type"), str):
            return None
        if row["queue_type"] != "instruction" and size > 4:
            moved += int(size)
            cores.add(str(row.get("subgraph", "")))
    return moved, len(cores)


def _matmul_cores(value: Any) -> int | None:
    rows = _rows(value)
    if rows is None:
        return None
    return len({str(row.get("subgraph", "")) for row in rows if row.get("opcode") == "MATMUL"})

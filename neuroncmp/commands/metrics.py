"""``metrics`` as one library call: ``metrics_report(MetricsOptions(glob))``, the catalog entries a
glob, a group, an alias or a prefix names (``mfu*``, ``memory``, ``mfu``)."""

from __future__ import annotations

from dataclasses import dataclass

from .. import arguments
from ..catalog import GROUPS, MetricSpec, listing, resolve_metric, suggestion
from ..errors import UsageError


@dataclass(frozen=True, slots=True)
class MetricsOptions:
    """``glob``: a glob over names (``'*spill*'``), a catalog group, an alias or a prefix of a name."""

    glob: str = "*"

    def __post_init__(self) -> None:
        if not isinstance(self.glob, str):
            raise UsageError(f"{arguments.shown('glob', self.glob)}: expected a string")


def metrics_report(options: MetricsOptions) -> list[MetricSpec]:
    """The catalog entries ``options.glob`` names, in group order; none is a ``UsageError`` naming
    the closest names."""
    glob = options.glob
    specs = listing(glob)
    if not specs and glob in GROUPS:
        specs = [spec for spec in listing() if spec.group == glob]
    if not specs and resolve_metric(glob) != glob:  # an alias or a prefix, as every metric option takes it
        specs = listing(resolve_metric(glob))
    if not specs:
        known = [spec.name for spec in listing()] + list(GROUPS)
        raise UsageError(f"no metric matches '{glob}'{suggestion(glob, known)}")
    return specs

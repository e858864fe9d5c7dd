"""``neuroncmp show`` in the terminal: each profile's metrics grouped by catalog group, in human units,
what bounds its step (AWS's tables), its device memory and Trainer metrics, then its notes."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import RenderableType
from rich.rule import Rule
from rich.text import Text

from ...analysis.bounds import Bounds
from ...catalog import group_rank, lookup
from ...model import Profile
from ...units import format_value
from . import MAX_LABEL, Cell, Hanging, Name, Wrapped, fitted, piece, table
from .bounds import bounds_view
from .labels import Labels, short_labels

if TYPE_CHECKING:
    from ...commands.documents import Loaded


def _heading(profile: Profile, width: int) -> list[RenderableType]:
    """The label, the batch size and where the profile came from (on a line of its own when the
    first is full), then the versions that identify the run."""
    line = Text.assemble(piece(profile.label, "bold"))
    if profile.batch_size is not None:
        line.append(f"  batch size {profile.batch_size}")
        if profile.batch_size_inferred:
            line.append(piece(f" (inferred: {profile.params.get('batch_size_how')})", "yellow"))
    keys = ("instance_type", "lnc_config", "compiler_version", "runtime_version", "profiler_version",
            "neff", "neff_hash")  # the last two from a view JSON: which compiled graph was profiled
    facts = "  ".join(f"{k}={profile.info(k)}" for k in keys if profile.info(k) is not None)
    source = piece(f"from {profile.source} ({profile.source.format})", "dim")
    out: list[RenderableType] = [Text.assemble(line, "  ", source)] if line.cell_len + 2 + source.cell_len <= width \
        else [line, Wrapped(source.plain, "dim")]
    return out + ([Wrapped(facts, "dim")] if facts else [])


def _metrics(profile: Profile) -> list[RenderableType]:
    values = profile.values
    rows: list[list[Cell]] = []
    group = None
    for name, group_of, note, shown in sorted(_metric_rows(profile), key=lambda r: (group_rank(r[1]), r[1])):
        if group_of != group:
            group = group_of
            rows.append([Name(group, "bold cyan"), ""])
        rows.append([Name(f"  {name}{note}"), Name(shown, "" if name in values.all else "yellow")])
    return [piece("Metrics", "bold underline"), table(["metric", "value"], rows, {1}, {0, 1}), *_why(profile)]


def _metric_rows(profile: Profile) -> list[tuple[str, str, str, str]]:
    """(name, group, note, value shown) of every metric read, derived or not made, in input order."""
    values = profile.values
    rows = []
    for name, metric in profile.metrics.items():
        shown = "not available" if name in values.unavailable else metric.display()
        rows.append((name, metric.group, "" if metric.catalogued else "  (uncatalogued)", shown))
    rows += [(name, metric.group, "  (derived)", metric.display()) for name, metric in values.derived.items()]
    rows += [(name, lookup(name).group, "  (derived)", "not computed") for name in values.not_computed]
    return rows


def _why(profile: Profile) -> list[RenderableType]:
    """The formula of each derived value, and why each value not shown is not: one line each."""
    values = profile.values
    reasons: dict[str, list[str]] = {}
    for name, why in values.unavailable.items():
        reasons.setdefault(why, []).append(name)
    lines: list[RenderableType] = [Hanging("derived: ", f"{name} {metric.raw}", "dim")
                                   for name, metric in values.derived.items()]
    lines += [Hanging("not available: ", f"{', '.join(names)}: {why}", "yellow") for why, names in reasons.items()]
    lines += [Hanging("not computed: ", f"{name}: {why}", "yellow") for name, why in values.not_computed.items()]
    return [Text(), *lines] if lines else []


def _memory(profile: Profile, width: int) -> list[RenderableType]:
    if not profile.memory:
        return []
    total = profile.memory_total() or 0
    rows = [[_idx(r.device), _idx(r.core), r.usage_type, r.label, format_value(r.bytes, "B"),
             "" if r.usage_type == "total" else _share(r.bytes, total)] for r in profile.memory]
    buffers = total - (profile.memory_workload() or 0)
    title = f"Device memory by usage type (total {format_value(total, 'B')}" + (
        f", {format_value(buffers, 'B')} of it the profiler's buffers)" if buffers else ")")
    header = ["nd", "nc", "usage type", "label", "amount", "share"]
    return [Wrapped(title, "bold underline"), *fitted(header, rows, {0, 1, 4, 5}, {2, 3}, width)]


def _training(profile: Profile) -> list[RenderableType]:
    if not profile.training:
        return []
    rows: list[list[Cell]] = [[Name(m.name), m.display(), Wrapped(m.raw, "dim")] for m in profile.training.values()]
    return [piece("Trainer metrics", "bold underline"), table(["metric", "value", "as printed"], rows, {1}, {0, 2})]


def _share(amount: int, total: int) -> str:
    if not total:
        return ""
    share = 100 * amount / total
    return "<0.1 %" if 0 < share < 0.1 else f"{share:.1f} %"


def _idx(value: int | None) -> str:
    return "" if value is None else str(value)


def _footer(profile: Profile) -> list[RenderableType]:
    lines: list[RenderableType] = [Wrapped(f"note: {note}", "italic") for note in profile.notes]
    lines += [Wrapped(f"anomaly [{anomaly.code}]: {anomaly.message}", "yellow") for anomaly in profile.anomalies]
    uncatalogued = profile.uncatalogued()
    if uncatalogued:
        lines.append(Wrapped(f"{len(uncatalogued)} uncatalogued metric(s): {', '.join(uncatalogued)}", "yellow"))
    if profile.skipped:
        first = profile.skipped[0]
        lines.append(Wrapped(f"{len(profile.skipped)} input line(s) not used (first: {first.where}: {first.reason})",
                             "dim"))
    return lines


def _profile(profile: Profile, found: Bounds | None, width: int) -> list[RenderableType]:
    out = _heading(profile, width)
    bounds: list[RenderableType] = []
    if found and found.bottleneck:
        labels = short_labels([profile.label], MAX_LABEL)  # too long: "value" (the label heads the view)
        bounds = bounds_view(Labels(["value"], [], {}) if labels.legend else labels, (found,), False, width)
    for block in (_metrics(profile), bounds, _memory(profile, width), _training(profile), _footer(profile)):
        out += [Text(), *block] if block else []
    return out


def drawn(loaded: list[Profile] | Loaded, width: int) -> list[RenderableType]:
    """Each profile (with its bounds: ``show``'s ``Loaded``), a rule between profiles."""
    profiles, bounds = (loaded, ()) if isinstance(loaded, list) else (loaded.profiles, loaded.bounds)
    out: list[RenderableType] = []
    for index, profile in enumerate(profiles):
        out += [Text(), Rule(style="dim"), Text()] if index else []
        out += _profile(profile, bounds[index] if index < len(bounds) else None, width)
    return out

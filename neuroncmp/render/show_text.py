"""``neuroncmp show``: one profile grouped by catalog group, in human units."""

from __future__ import annotations

from collections.abc import Sequence

from ..analysis.bounds import Bounds
from ..catalog import group_rank, lookup
from ..model import Profile
from ..units import format_value
from .bounds_table import bounds_lines
from .layout import Line, fitted_grid, hanging, wrapped


def _heading(profile: Profile, width: int) -> list[Line]:
    line: Line = [(profile.label, "bold")]
    if profile.batch_size is not None:
        line.append((f"  batch size {profile.batch_size}", ""))
        if profile.params.get("batch_size_source") in ("inferred", "trainer"):
            line.append((f" (inferred: {profile.params.get('batch_size_how')})", "yellow"))
    source = f"  from {profile.source} ({profile.source.format})"
    keys = ("instance_type", "lnc_config", "compiler_version", "runtime_version", "profiler_version",
            "neff", "neff_hash")  # the last two from a view JSON: which compiled graph was profiled
    facts = "  ".join(f"{k}={profile.info(k)}" for k in keys if profile.info(k) is not None)
    if sum(len(text) for text, _ in line) + len(source) > width:  # the source on lines of its own
        return [line] + wrapped(source.strip(), "dim", width) + (wrapped(facts, "dim", width) if facts else [])
    return [line + [(source, "dim")]] + (wrapped(facts, "dim", width) if facts else [])


def metrics_lines(profile: Profile, width: int = 100) -> list[Line]:
    values = profile.values
    rows = []
    group = None
    for name, group_of, note, shown in sorted(_metric_rows(profile), key=lambda r: (group_rank(r[1]), r[1])):
        if group_of != group:
            group = group_of
            rows.append([(group, "bold cyan"), ("", "")])
        rows.append([(f"  {name}{note}", ""), (shown, "" if name in values.all else "yellow")])
    return [[("Metrics", "bold underline")]] + fitted_grid(["metric", "value"], rows, {1}, width) \
        + _why_lines(profile, width)


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


def _why_lines(profile: Profile, width: int) -> list[Line]:
    """The formula of each derived value, and why each value not shown is not: one line each."""
    values = profile.values
    reasons: dict[str, list[str]] = {}
    for name, why in values.unavailable.items():
        reasons.setdefault(why, []).append(name)
    lines = [line for name, metric in values.derived.items()
             for line in hanging("derived: ", f"{name} {metric.raw}", "dim", width)]
    for why, names in reasons.items():
        lines += hanging("not available: ", f"{', '.join(names)}: {why}", "yellow", width)
    for name, why in values.not_computed.items():
        lines += hanging("not computed: ", f"{name}: {why}", "yellow", width)
    return [[]] + lines if lines else []


def memory_lines(profile: Profile, width: int = 100) -> list[Line]:
    if not profile.memory:
        return []
    total = profile.memory_total() or 0
    rows = [[(_idx(r.device), ""), (_idx(r.core), ""), (r.usage_type, ""), (r.label, ""),
             (format_value(r.bytes, "B"), ""), ("" if r.usage_type == "total" else _share(r.bytes, total), "")]
            for r in profile.memory]
    buffers = total - (profile.memory_workload() or 0)
    title = f"Device memory by usage type (total {format_value(total, 'B')}" + (
        f", {format_value(buffers, 'B')} of it the profiler's buffers)" if buffers else ")")
    header = ["nd", "nc", "usage type", "label", "amount", "share"]
    return wrapped(title, "bold underline", width) + fitted_grid(header, rows, {0, 1, 4, 5}, width)


def training_lines(profile: Profile, width: int = 100) -> list[Line]:
    if not profile.training:
        return []
    rows = [[(m.name, ""), (m.display(), ""), (m.raw, "dim")] for m in profile.training.values()]
    return [[("Trainer metrics", "bold underline")]] + fitted_grid(["metric", "value", "as printed"],
                                                                   rows, {1}, width)


def _share(amount: int, total: int) -> str:
    if not total:
        return ""
    share = 100 * amount / total
    return "<0.1 %" if 0 < share < 0.1 else f"{share:.1f} %"


def _idx(value: int | None) -> str:
    return "" if value is None else str(value)


def _footer(profile: Profile, width: int) -> list[Line]:
    lines = []
    for note in profile.notes:
        lines += wrapped(f"note: {note}", "italic", width)
    for anomaly in profile.anomalies:
        lines += wrapped(f"anomaly [{anomaly.code}]: {anomaly.message}", "yellow", width)
    uncatalogued = profile.uncatalogued()
    if uncatalogued:
        lines += wrapped(f"{len(uncatalogued)} uncatalogued metric(s): {', '.join(uncatalogued)}",
                         "yellow", width)
    if profile.skipped:
        first = profile.skipped[0]
        lines += wrapped(f"{len(profile.skipped)} input line(s) not used (first: {first.where}: "
                         f"{first.reason})", "dim", width)
    return lines


def bound_lines(profile: Profile, found: Bounds | None, width: int) -> list[Line]:
    """What bounds the step and AWS's gaps (``render/bounds_table.py``), when any bound is computable."""
    if found is None or found.bottleneck is None:
        return []
    return bounds_lines([profile.label], (found,), False, width)


def profile_lines(profile: Profile, width: int = 100, found: Bounds | None = None) -> list[Line]:
    lines = _heading(profile, width)
    for block in (metrics_lines(profile, width), bound_lines(profile, found, width), memory_lines(profile, width),
                  training_lines(profile, width)):
        if block:
            lines += [[]] + block
    footer = _footer(profile, width)
    return lines + ([[]] + footer if footer else [])


def profiles_lines(profiles: Sequence[Profile], width: int, bounds: Sequence[Bounds] = ()) -> list[Line]:
    """``neuroncmp show``: each profile grouped by catalog group (with its bounds, when given), a rule
    between profiles."""
    out: list[Line] = []
    for index, profile in enumerate(profiles):
        found = bounds[index] if index < len(bounds) else None
        out += ([[], [("─" * width, "dim")], []] if index else []) + profile_lines(profile, width, found)
    return out

"""``neuroncmp show``: one profile grouped by catalog group, in human units."""

from __future__ import annotations

from ..catalog import group_rank
from ..model import Profile
from ..units import format_value
from .layout import Line, fitted_grid, wrapped


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
    rows = []
    group = None
    shown = [*profile.metrics.values(), *profile.values.derived.values()]
    for metric in sorted(shown, key=lambda m: (group_rank(m.group), m.group)):
        if metric.group != group:
            group = metric.group
            rows.append([(group, "bold cyan"), ("", "")])
        note = "  (derived)" if metric.spec.derived else "" if metric.catalogued else "  (uncatalogued)"
        rows.append([(f"  {metric.name}{note}", ""), (metric.display(), "")])
    return [[("Metrics", "bold underline")]] + fitted_grid(["metric", "value"], rows, {1}, width)


def memory_lines(profile: Profile, width: int = 100) -> list[Line]:
    if not profile.memory:
        return []
    total = profile.memory_total() or 0
    rows = [[(_idx(r.device), ""), (_idx(r.core), ""), (r.usage_type, ""), (r.label, ""),
             (format_value(r.bytes, "B"), ""), ("" if r.usage_type == "total" else _share(r.bytes, total), "")]
            for r in profile.memory]
    title = f"Device memory by usage type (total {format_value(total, 'B')})"
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


def profile_lines(profile: Profile, width: int = 100) -> list[Line]:
    lines = _heading(profile, width)
    for block in (metrics_lines(profile, width), memory_lines(profile, width),
                  training_lines(profile, width)):
        if block:
            lines += [[]] + block
    footer = _footer(profile, width)
    return lines + ([[]] + footer if footer else [])


def profiles_lines(profiles: list[Profile], width: int) -> list[Line]:
    """``neuroncmp show``: each profile grouped by catalog group, a rule between profiles."""
    out: list[Line] = []
    for index, profile in enumerate(profiles):
        out += ([[], [("─" * width, "dim")], []] if index else []) + profile_lines(profile, width)
    return out

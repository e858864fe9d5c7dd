"""``neuroncmp show``: one profile grouped by catalog group, in human units (rich)."""

from __future__ import annotations

from typing import Any

from rich.console import Group
from rich.table import Table
from rich.text import Text

from ..catalog import group_rank
from ..model import Profile
from ..units import format_value


def _heading(profile: Profile) -> Text:
    text = Text(profile.label, style="bold")
    if profile.batch_size is not None:
        text.append(f"  batch size {profile.batch_size}")
        if profile.params.get("batch_size_source") in ("inferred", "trainer"):
            text.append(f" (inferred: {profile.params.get('batch_size_how')})", style="yellow")
    text.append(f"  from {profile.source} ({profile.source.format})", style="dim")
    return text


def _metadata_line(profile: Profile) -> Text | None:
    keys = ("instance_type", "lnc_config", "compiler_version", "runtime_version", "profiler_version")
    parts = [f"{k}={profile.info(k)}" for k in keys if profile.info(k) is not None]
    return Text("  ".join(parts), style="dim") if parts else None


def metrics_table(profile: Profile) -> Table:
    table = Table(title="Metrics", title_justify="left", show_edge=False, pad_edge=False)
    table.add_column("metric", no_wrap=True)
    table.add_column("value", justify="right", overflow="fold")
    ordered = sorted(profile.metrics.values(), key=lambda m: (group_rank(m.group), m.group))
    group = None
    for metric in ordered:
        if metric.group != group:
            group = metric.group
            table.add_row(Text(group, style="bold cyan"), "")
        name = metric.name + ("" if metric.catalogued else "  (uncatalogued)")
        table.add_row(f"  {name}", metric.display())
    return table


def memory_table(profile: Profile) -> Table | None:
    if not profile.memory:
        return None
    total = profile.memory_total() or 0
    title = f"Device memory by usage type (total {format_value(total, 'B')})"
    table = Table(title=title, title_justify="left", show_edge=False, pad_edge=False)
    for column, justify in (("nd", "right"), ("nc", "right"), ("usage type", "left"),
                            ("label", "left"), ("amount", "right"), ("share", "right")):
        table.add_column(column, justify=justify, no_wrap=True)  # type: ignore[arg-type]
    for row in profile.memory:
        share = _share(row.bytes, total) if row.usage_type != "total" else ""
        style = "bold" if row.usage_type == "total" else ""
        table.add_row(_idx(row.device), _idx(row.core), row.usage_type, row.label,
                      format_value(row.bytes, "B"), share, style=style)
    return table


def _share(amount: int, total: int) -> str:
    if not total:
        return ""
    share = 100 * amount / total
    return "<0.1 %" if 0 < share < 0.1 else f"{share:.1f} %"


def _idx(value: int | None) -> str:
    return "" if value is None else str(value)


def training_table(profile: Profile) -> Table | None:
    if not profile.training:
        return None
    table = Table(title="Trainer metrics", title_justify="left", show_edge=False, pad_edge=False)
    table.add_column("metric")
    table.add_column("value", justify="right")
    table.add_column("as printed", style="dim")
    for metric in profile.training.values():
        table.add_row(metric.name, metric.display(), metric.raw)
    return table


def _footer(profile: Profile) -> list[Text]:
    lines = [Text(f"note: {note}", style="italic") for note in profile.notes]
    lines += [Text(f"anomaly [{a.code}]: {a.message}", style="yellow") for a in profile.anomalies]
    uncatalogued = profile.uncatalogued()
    if uncatalogued:
        lines.append(Text(f"{len(uncatalogued)} uncatalogued metric(s): {', '.join(uncatalogued)}",
                          style="yellow"))
    if profile.skipped:
        lines.append(Text(f"{len(profile.skipped)} input line(s) not used "
                          f"(first: {profile.skipped[0].where}: {profile.skipped[0].reason})", style="dim"))
    return lines


def render(profile: Profile) -> Any:
    parts: list[Any] = [_heading(profile)]
    meta = _metadata_line(profile)
    if meta:
        parts.append(meta)
    for table in (metrics_table(profile), memory_table(profile), training_table(profile)):
        if table is not None:
            parts += [Text(""), table]
    footer = _footer(profile)
    if footer:
        parts += [Text("")] + footer
    return Group(*parts)

"""The site's pages as HTML text: the index (regressions, then every series by its tags) and one
page per series. Every text that came from an input (tags, labels, commits, run ids, metric names)
goes through ``escape.html``; links to commits are built from the user's template."""

from __future__ import annotations

import hashlib
import math
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any
from urllib.parse import quote as url_quote

from ...analysis.shifts import MIN_SIZE
from ...catalog import headline_label, lookup
from ...choices import STEP
from ...commands.report import SiteData, Tags, page_name, tags_of
from ...comparison.bands import Bands
from ...escape import html as escape
from ...units import format_value, percent, pick_scale
from ..store_words import CANDIDATES_NOTE, candidates_text, change_size, display_scale, finite_median, tags_text
from . import svg

if TYPE_CHECKING:
    from ...store.trends import Change, Point

# The site's own CSS and JavaScript, inlined in every page: nothing is fetched from anywhere.
CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;font-size:14px;margin:16px 24px;color:#1b1b1b}
h1{font-size:20px;margin:0 0 4px}h2{font-size:17px;margin:22px 0 6px}h3{font-size:15px;margin:16px 0 4px;color:#0a6b8a}
table{border-collapse:collapse;margin:4px 0}
th,td{padding:3px 8px;border-bottom:1px solid #e3e3e3;text-align:left;vertical-align:middle}
th{background:#f3f3f3;font-weight:600;position:sticky;top:0}
td.n{text-align:right;}
td.t{white-space:nowrap}
td.n{font-variant-numeric:tabular-nums;white-space:nowrap}
.worse{color:#b3261e}.better{color:#137333}.changed{color:#8a5a00}.muted{color:#666}
code{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12px}
#filter{font-size:15px;padding:5px 8px;width:28em;margin:8px 0}
.charts{display:flex;flex-wrap:wrap;gap:4px 10px}.chart{font-size:10px;color:#444;width:140px}
.chart .label{font-size:11px;font-weight:600;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.chart .none{height:34px;line-height:34px;color:#888}
svg.spark,svg.trend{display:block}svg text{font-family:system-ui,sans-serif}
tr.start td{background:#fff4e5}
"""

# The filter: every row marked ``f`` is kept when its data-search text holds every word typed;
# a group of series with no row left is hidden with it. No input text is ever put in this script.
JS = """
(function(){
  var box=document.getElementById('filter'),shown=document.getElementById('shown');
  function apply(){
    var words=box.value.toLowerCase().split(/\\s+/).filter(Boolean),rows=document.querySelectorAll('tr.f'),kept=0;
    rows.forEach(function(row){
      var text=row.getAttribute('data-search'),hit=words.every(function(w){return text.indexOf(w)>=0;});
      row.hidden=!hit;if(hit){kept++;}
    });
    document.querySelectorAll('.group').forEach(function(group){
      group.hidden=!group.querySelector('tr.f:not([hidden])');
    });
    shown.textContent=words.length?kept+' of '+rows.length+' rows match':'';
  }
  box.addEventListener('input',apply);apply();
})();
"""


def page(title: str, body: Iterable[str], script: bool = False) -> str:
    """A whole page: its style inline, the filter script only where there is a filter."""
    tail = f"<script>{JS}</script>" if script else ""
    return ("<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">"
            '<meta name="viewport" content="width=device-width,initial-scale=1">'
            f'<meta name="generator" content="neuroncmp report"><title>{escape(title)}</title>'
            f"<style>{CSS}</style></head><body>{''.join(body)}{tail}</body></html>")


def anchor(metric: str) -> str:
    """A metric's section id on a series page (a metric name may hold any text)."""
    return "m-" + hashlib.sha1(metric.encode("utf-8", "backslashreplace")).hexdigest()[:10]


def breakable(name: str) -> str:
    """A metric name as HTML that may wrap after each underscore (the long ones are words joined by
    underscores), nowhere else."""
    return "_<wbr>".join(escape(part) for part in name.split("_"))


def when(moment: datetime) -> str:
    return f"{moment:%Y-%m-%d %H:%M}"


def commit_cell(commit: str | None, template: str | None) -> str:
    """A commit as code, linked through ``template`` (``{commit}`` replaced, URL-quoted)."""
    if not commit:
        return '<span class="muted">-</span>'
    code = f"<code>{escape(commit)}</code>"
    if template is None:
        return code
    return f'<a href="{escape(template.replace("{commit}", url_quote(commit, safe="")))}">{code}</a>'


def value_text(value: float, unit: str, scale: tuple[float, str] | None = None) -> str:
    return format_value(value, unit, scale) if math.isfinite(value) else "n/a"


def candidates_cell(change: Change, template: str | None) -> str:
    """Where the new level may start, each run linked as its commit (``commit_cell``) or its id."""
    def shown(point: Point, name: str) -> str:
        return commit_cell(name, template) if name == point.commit else f"<code>{escape(name)}</code>"

    return candidates_text(change, shown)


def change_text(change: Change, unit: str) -> str:
    """A shift's size as ``history`` and ``regressions`` write it (pp for a fraction)."""
    return change_size(change, unit or lookup(change.metric).unit)


# ---- the index

def chart_label(metric: str) -> str:
    """A headline metric's chart title: its headline name per step, the basis a store keeps
    ("step time (device)", "spill reload per step"), else its own name."""
    return headline_label(metric, STEP) or metric


def index(data: SiteData, commit_url: str | None, built: str) -> str:
    series = tuple(data.by_series)
    times = [run.time for run in data.runs]
    span = f", {when(min(times))} to {when(max(times))} UTC" if times else ""
    body = ["<h1>Profile history</h1>",
            (f'<p class="muted">{len(data.runs):,} runs in {len(series):,} series{span}; '
            f"built {escape(built)} by neuroncmp report.</p>"),
            ('<input id="filter" type="search" placeholder="filter: tags, metric, commit" '
            'aria-label="filter rows" autocomplete="off"><span id="shown" class="muted"></span>')]
    body += _regressions(data, commit_url)
    body += _series_groups(data, series)
    return page("neuroncmp report", body, script=True)


def _regressions(data: SiteData, commit_url: str | None) -> list[str]:
    changes, since = data.worse, data.since
    after = f" since {when(since)} UTC" if since else ""
    if not changes:
        return [f"<h2>Regressions{after}</h2><p>None: no series changed for the worse.</p>"]
    out = [f"<h2>Regressions{after} ({len(changes):,}, worst first)</h2>",
           ('<div class="group"><table id="regressions"><thead><tr><th>metric</th><th>series</th>'
           "<th>at run</th><th>commit</th><th>time (UTC)</th><th>before</th>"
           "<th>after</th><th>change</th><th>p</th><th>first new run</th></tr></thead><tbody>")]
    for change in changes:
        tags = tags_of(change.series)
        found = change.candidates  # a commit in the range finds the row too
        search = " ".join([change.metric, tags_text(tags), change.at.run, change.at.commit or "",
                           found.first.commit or found.first.run, found.last.commit or found.last.run])
        out.append(
            f'<tr class="f" data-search="{escape(search.lower())}">'
            f'<td><a href="{page_name(tags)}#{anchor(change.metric)}">{breakable(change.metric)}</a></td>'
            f"<td>{escape(tags_text(tags))}</td><td><code>{escape(change.at.run)}</code></td>"
            f"<td>{commit_cell(change.at.commit, commit_url)}</td><td class=\"t\">{when(change.at.time)}</td>"
            f"{_shift_cells(change, change.unit, None, commit_url)}</tr>")
    return out + ["</tbody></table></div>", f'<p class="muted">{escape(CANDIDATES_NOTE)}</p>']


def group_key(series: Sequence[Tags]) -> str | None:
    """The tag the index groups series by: the one with the fewest distinct values above one
    (``model`` over ``batch`` when there are 3 models and 8 batch sizes); None for one series."""
    values: dict[str, set[str]] = defaultdict(set)
    for tags in series:
        for key, value in tags:
            values[key].add(value)
    keys = [k for k, v in values.items() if 1 < len(v) < len(series)]
    return min(keys, key=lambda k: (len(values[k]), k)) if keys else None


def natural(text: str) -> list[Any]:
    """A sort key putting ``batch=8`` before ``batch=16``."""
    return [(0, int(part), "") if part.isdigit() else (1, 0, part) for part in re.split(r"(\d+)", text)]


def _series_groups(data: SiteData, series: Sequence[Tags]) -> list[str]:
    key = group_key(series)
    groups: dict[str, list[Tags]] = defaultdict(list)
    for tags in series:
        groups[f"{key}={dict(tags).get(key, '(none)')}" if key else "all series"].append(tags)
    out = [f"<h2>Series ({len(series):,})</h2>",
           f'<p class="muted">{escape(SPARK_NOTE)}</p>']
    for name, members in sorted(groups.items(), key=lambda item: natural(item[0])):
        out.append(f'<section class="group"><h3>{escape(name)}</h3><table class="series"><thead><tr>'
                   "<th>series</th><th>runs</th><th>last run (UTC)</th><th>worse</th>"
                   "<th>headline metrics</th></tr></thead><tbody>")
        out += [_series_row(data, tags) for tags in sorted(members, key=lambda t: natural(tags_text(t)))]
        out.append("</tbody></table></section>")
    return out


SPARK_NOTE = ("Each chart: the series' runs, its shifts marked (red worse, green better, amber no "
              "better direction); grey: the noise band diff uses for the metric (a change inside it is "
              "no verdict) around the median, and the chart spans at least two bands either way, so "
              "noise inside the band stays small.")


def _series_row(data: SiteData, tags: Tags) -> str:
    drawn = data.by_series[tags]
    runs = max(len(s.points) for s in drawn.values())
    last = max((s.points[-1].time for s in drawn.values() if s.points), default=None)
    worse = data.worse_by_series[tags]
    charts = "".join(_spark(metric, drawn[metric]) if metric in drawn else _no_chart(metric)
                     for metric in data.headline)
    return (f'<tr class="f" data-search="{escape(tags_text(tags).lower())}"><td><a href="{page_name(tags)}">'
            f"{escape(tags_text(tags))}</a></td><td class=\"n\">{runs:,}</td>"
            f"<td class=\"t\">{when(last) if last else '-'}</td>"
            f'<td class="n{" worse" if worse else ""}">{worse}</td><td><div class="charts">{charts}</div></td></tr>')


def _no_chart(metric: str) -> str:
    return (f'<div class="chart"><div class="label" title="{escape(metric)}">{escape(chart_label(metric))}'
            '</div><div class="none">not in these profiles</div></div>')


def _spark(metric: str, series: Any) -> str:
    """The sparkline under the metric's label, with the last value (the unit at a glance) and the
    band it is drawn against; one run draws a dot and says there is no trend yet."""
    values = [p.value for p in series.points]
    unit = lookup(metric).unit
    last = value_text(values[-1], unit) if values else "-"
    band = svg_band(metric, values)
    caption = f"1 run (no trend): {last}" if len(values) == 1 else f"last {last}"
    label = f"{metric}: {len(values)} runs, last {last}" + (f"; band {band.text}" if band else "")
    return (f'<div class="chart"><div class="label" title="{escape(metric)}">{escape(chart_label(metric))}'
            f"</div>{svg.sparkline(values, shifts_of(series, metric), label, band)}"
            f"{escape(caption)}{escape(f'; band {band.text}') if band else ''}</div>")


def svg_band(metric: str, values: Sequence[float]) -> svg.Band | None:
    """The noise band ``diff`` uses for ``metric`` (its default), around the median of the finite
    ``values``: what a sparkline is drawn against. None without a value or a band."""
    centre = finite_median(list(values))
    if centre is None:
        return None
    band = Bands().band(lookup(metric))
    low, high = band.edges(centre)
    if not low < high:
        return None
    text = f"±{band.value:g}pp" if band.points else f"±{percent(band.value)}"
    return svg.Band(low, high, centre, text)


def shifts_of(series: Any, metric: str) -> list[svg.Shift]:
    """The series' changes as chart marks, at the index of their first new run, with the range
    of runs that may be it."""
    position = {p.run: i for i, p in enumerate(series.points)}
    unit = lookup(metric).unit
    return [svg.Shift(position[c.at.run], c.before, c.after, change_text(c, c.unit or unit), c.direction,
                      f"{metric} {change_text(c, c.unit or unit)} ({c.direction}) at run {c.at.run} "
                      f"{c.at.commit or ''} {when(c.at.time)}: {value_text(c.before, c.unit or unit)} -> "
                      f"{value_text(c.after, c.unit or unit)}, p {c.p_value:.2g}; first new run "
                      f"{candidates_text(c)}",
                      position.get(c.candidates.first.run, position[c.at.run]),
                      position.get(c.candidates.last.run, position[c.at.run]))
            for c in series.changes if c.at.run in position]


# ---- a series page


def series_page(data: SiteData, tags: Tags, commit_url: str | None) -> str:
    found = data.by_series[tags]
    metrics = data.metrics_of(tags)
    body = ['<p><a href="index.html">&larr; all series</a></p>',
            f"<h1>{escape(tags_text(tags))}</h1>",
            (f'<p class="muted">{len(metrics)} metrics drawn: the headline ones, then each that '
            "shifts in this series. Dashed: the level between shifts; a coloured line: a shift "
            "(red worse, green better, amber no better direction) at its best estimate, shaded "
            "over the runs that may be its first (95 %).</p>")]
    for metric in metrics:
        body += _metric_section(metric, data.histories[metric].unit, found[metric], commit_url)
    body += _runs_table(found, commit_url)
    return page(f"{tags_text(tags)}: neuroncmp report", body)


def _metric_section(metric: str, unit: str, series: Any, commit_url: str | None) -> list[str]:
    """A metric's trend and shifts, every value in one display unit: the heading's."""
    values = [p.value for p in series.points]
    dates = (when(series.points[0].time), when(series.points[-1].time)) if series.points else ("", "")
    meaning = lookup(metric).meaning
    scale = display_scale(values, unit) or (1.0, pick_scale(1.0, unit)[1])
    out = [(f'<section id="{anchor(metric)}"><h2>{escape(metric)} <span class="muted">'
           f"[{escape(scale[1] or unit)}]</span></h2>"),
           f'<p class="muted">{escape(meaning)}</p>' if meaning else "",
           svg.trend(values, shifts_of(series, metric), f"{metric} over {len(values)} runs",
                     lambda value: value_text(value, unit, scale), dates)]
    if len(values) == 1:
        out.append(f'<p class="muted">One run: no trend yet (a shift needs {MIN_SIZE} runs on '
                   "each side).</p>")
    if series.changes:
        out.append("<table><thead><tr><th>at run</th><th>commit</th><th>time (UTC)</th>"
                   "<th>before</th><th>after</th><th>change</th><th>p</th><th>first new run</th>"
                   "</tr></thead><tbody>")
        out += [_shift_row(c, unit, scale, commit_url) for c in series.changes]
        out.append("</tbody></table>")
    return out + ["</section>"]


def _shift_row(change: Change, unit: str, scale: tuple[float, str], commit_url: str | None) -> str:
    return (f"<tr><td><code>{escape(change.at.run)}</code></td><td>{commit_cell(change.at.commit, commit_url)}</td>"
            f'<td class="t">{when(change.at.time)}</td>{_shift_cells(change, unit, scale, commit_url)}</tr>')


def _shift_cells(change: Change, unit: str, scale: tuple[float, str] | None, commit_url: str | None) -> str:
    """A shift's before and after (in ``scale``), its size, p-value and the runs that may start it."""
    return (f'<td class="n">{escape(value_text(change.before, unit, scale))}</td>'
            f'<td class="n">{escape(value_text(change.after, unit, scale))}</td>'
            f'<td class="n {escape(change.direction)}">{change_text(change, unit)}</td>'
            f'<td class="n">{change.p_value:.2g}</td><td>{candidates_cell(change, commit_url)}</td>')


def _runs_table(found: Mapping[str, Any], commit_url: str | None) -> list[str]:
    """Every run of the series, newest first; a run where a level starts is marked with the
    metrics that shift there."""
    runs: dict[str, Any] = {}
    starts: dict[str, list[str]] = defaultdict(list)
    for metric, series in found.items():
        runs.update({p.run: p for p in series.points})
        for change in series.changes:
            starts[change.at.run].append(f"{metric} {change_text(change, change.unit)}")
    out = [(f"<h2>Runs ({len(runs):,}, newest first)</h2><table><thead><tr><th>time (UTC)</th>"
           "<th>run</th><th>commit</th><th>new levels</th></tr></thead><tbody>")]
    for point in sorted(runs.values(), key=lambda p: (p.time, p.run), reverse=True):
        marks = starts.get(point.run)
        opening = '<tr class="start">' if marks else "<tr>"
        out.append(f"{opening}<td class=\"t\">{when(point.time)}</td>"
                   f"<td><code>{escape(point.run)}</code></td><td>{commit_cell(point.commit, commit_url)}</td>"
                   f"<td>{escape(', '.join(marks)) if marks else ''}</td></tr>")
    return out + ["</tbody></table>"]

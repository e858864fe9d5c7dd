"""The site's own CSS and JavaScript, inlined in every page: nothing is fetched from anywhere."""

from __future__ import annotations

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

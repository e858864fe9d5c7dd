"""The library call behind each command: a frozen options record and an entry point returning the document.

The CLI parses its options into the record, calls the entry point and renders what it returns; the
Python API builds the same record and calls the same entry point, so both check the same values
(a record refuses a value outside its vocabulary when it is made, naming the choices) and assemble
the same result:

- ``diff``: ``DiffOptions`` -> ``diff_report(profiles, options)`` (or ``history_diff_report``) -> ``DiffReport``
- ``sweep``: ``SweepOptions`` -> ``sweep_report(profiles, options)`` -> ``Sweep``
- ``show``: ``ShowOptions`` -> ``show_report(paths, options)`` -> ``Loaded`` (profiles and notes)
- ``metrics``: ``MetricsOptions`` -> ``metrics_report(options)`` -> catalog entries
- ``convert``: ``ConvertOptions`` -> ``convert_report(path, options)`` -> ``Loaded`` (the run folder's profiles)
- ``report`` (the site): ``SiteOptions`` -> ``site_report(store, options)`` -> ``SiteData``
  (``render.report`` writes it)
- ``ops``: ``OpsOptions`` -> ``ops_report(paths, options)`` -> ``OpsReport`` (all three in ``ops``)

This package sits between the computing layers (comparison, analysis, store) and ``render``: it
holds the documents renderers show (``documents``), never how they look. Its modules import their
layers only when called, so a command loads what it uses.
"""

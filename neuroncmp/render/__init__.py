"""Render: results shown as text, tables, documents and frames; never computed here, never printed.

``base.Renderer`` is the interface of an output format, one module per format in ``formats/``,
found by ``registry``. ``rows`` is the walk over a comparison's rows every tabular format
shares; ``changes`` writes a change and its verdict mark; ``captions`` the titles and footers;
``layout`` lays styled lines out for the terminal; ``tidy`` / ``frame`` give tidy data.
A module serving one command is named after it: ``diff_text``, ``show_text`` / ``show_json``,
``sweep_text`` / ``sweep_data``, ``metrics_text``, ``formats_list``, ``convert_folder`` (profiles back to
disk), ``ops`` (every format), ``store_text`` / ``store_json`` / ``store_plot`` (the store's commands),
``report/`` (the site).
"""

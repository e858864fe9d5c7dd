"""Render: results shown as text, tables, documents and frames; never computed here, never printed.

``base.Renderer`` is the interface of an output format, one module per format in ``formats/``,
found by ``registry``. ``rows`` is the walk over a comparison's rows every tabular format
shares; ``changes`` writes a change and its verdict mark; ``captions`` the titles and footers;
``terminal/`` is what rich draws for the terminal, a module per command; ``tidy`` / ``frame`` give
tidy data. A module serving one command is named after it: ``show_json``, ``sweep_words`` (the
sweep's cells and sentences, every format) / ``sweep_data``, ``convert_folder`` (profiles back to
disk), ``ops`` and ``ranks`` (every format but the terminal's), ``store_words`` / ``store_json`` / ``store_plot``
(the store's commands), ``report/`` (the site).
"""

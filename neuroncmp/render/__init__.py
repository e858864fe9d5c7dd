"""Render: results shown as text, tables, documents and frames; never computed here, never printed.

``base.Renderer`` is the interface of an output format, one module per format in ``formats/``,
found by ``registry``. ``rows`` is the walk over a comparison's rows every tabular format
shares; ``changes`` writes a change and its verdict mark; ``captions`` the titles and footers;
``layout`` lays styled lines out for the terminal; ``records`` / ``frame`` give tidy data;
``profile_text`` / ``profile_json`` show one profile; ``run_folder`` writes profiles back to disk.
"""

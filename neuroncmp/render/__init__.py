"""Render: results shown as text, tables, documents and frames; never computed here, never printed.
The modules and what each holds: ``docs/code.md`` (the ``render/`` entry)."""

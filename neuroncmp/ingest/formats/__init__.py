"""Input formats: one module per format, each defining ``PARSER`` (``ingest/registry.py``'s ``Parser``)."""

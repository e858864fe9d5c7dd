"""Input formats: one module per format, each defining ``PARSER`` (see ``ingest/parser.py``)."""

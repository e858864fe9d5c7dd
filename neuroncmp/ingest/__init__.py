"""Ingest: files in every Neuron format -> normalized, checked ``Profile`` objects.

``loader`` reads files and folders; ``registry`` picks the format (one module per format in
``formats/``, each implementing ``parser.Parser``); ``values`` turns raw or display values into
catalogued metrics; ``manifest`` reads run folders; ``batch_sizes`` infers what the input does
not state; ``anomalies`` records what looks wrong.
"""

from .loader import load, load_many, load_set

__all__ = ["load", "load_many", "load_set"]

"""Ingest: files in every Neuron format -> normalized, checked ``Profile`` objects.

``loader`` reads files and folders; ``registry`` picks the format (one module per format in
``formats/``, each implementing ``registry.Parser``); ``values`` turns raw or display values into
catalogued metrics; ``manifest`` reads run folders; ``batch_sizes`` infers what the input does
not state; ``anomalies`` records what looks wrong.
"""

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .loader import load, load_many, load_set


def __getattr__(name: str) -> Any:
    """``load``, ``load_many``, ``load_set`` on first use (PEP 562): a module that needs one
    ingest module (``tool_notes``, ``memory_types``) does not pay for every parser."""
    if name in __all__:
        return getattr(import_module(".loader", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["load", "load_many", "load_set"]

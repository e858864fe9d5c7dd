"""Example profiles shipped inside the package, so a notebook works right after ``pip install``.

    import neuroncmp as nc
    nc.examples.names()                               # ['trn1-2xlarge-bs-sweep']
    profiles = nc.examples.load("trn1-2xlarge-bs-sweep")

``trn1-2xlarge-bs-sweep`` is a real batch-size sweep of a Hugging Face Trainer fine-tune on a
trn1.2xlarge (batch 2 to 64, and a collectives variant at 32), exported from the Neuron profiler UI
and converted with ``neuroncmp convert`` (the original export is kept beside the files).
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from ..api import Profile
from ..api import load as _load
from ..errors import UsageError


def names() -> list[str]:
    """The bundled example run folders."""
    return sorted(entry.name for entry in resources.files(__name__).iterdir()
                  if entry.is_dir() and (entry / "manifest.json").is_file())


def path(name: str) -> Path:
    """Where an example run folder is on disk."""
    if name not in names():
        raise UsageError(f"no example {name!r}; examples: {', '.join(names())}")
    return Path(str(resources.files(__name__) / name))


def load(name: str = "trn1-2xlarge-bs-sweep") -> list[Profile]:
    """Every profile of a bundled example run folder, in manifest order."""
    return _load(path(name))

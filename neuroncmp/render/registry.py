"""The output format registry: every module in ``render/formats/`` that defines ``RENDERER``.

It feeds the CLI's ``--format`` choices and the ``-o`` extension mapping, so adding a format is
adding one module. A module is named after its format (``term.py`` for ``term``; a trailing
``_`` keeps ``json_.py`` from shadowing the standard library), so choosing a format by name
imports that one module only; listing them or mapping an extension imports them all.
"""

from __future__ import annotations

from functools import cache
from importlib import import_module
from pathlib import Path

from ..errors import UsageError
from . import formats
from .base import Renderer

_added: list[Renderer] = []  # registered at run time (plugins, tests), after the discovered ones


@cache
def _module_renderer(module: str) -> Renderer | None:
    renderer = getattr(import_module(f"{formats.__name__}.{module}"), "RENDERER", None)
    return renderer if isinstance(renderer, Renderer) else None


def _own_module(name: str) -> Renderer | None:
    """The renderer of the module named after the format (``json_`` for ``json``), if there is one."""
    for module in (name, f"{name}_") if name.isidentifier() and not name.startswith("_") else ():
        try:
            return _module_renderer(module)
        except ModuleNotFoundError as exc:
            if exc.name != f"{formats.__name__}.{module}":  # a module there that lacks a dependency
                raise
    return None


def renderers() -> tuple[Renderer, ...]:
    """Every output format: the modules in ``render/formats/``, then any registered at run time."""
    import pkgutil  # only to list every format

    found = [r for r in (_module_renderer(m.name) for m in pkgutil.iter_modules(formats.__path__)) if r is not None]
    return tuple(sorted(found, key=lambda r: (r.order, r.name))) + tuple(_added)


def register(renderer: Renderer) -> None:
    """Add a format at run time; ``unregister`` takes it out again."""
    _added.append(renderer)


def unregister(name: str) -> None:
    _added[:] = [r for r in _added if r.name != name]


def names(document: str = "diff") -> list[str]:
    """The names of the formats that can render ``document`` (``by_name`` also takes aliases)."""
    return [r.name for r in renderers() if r.supports(document)]


def by_name(name: str, document: str = "diff") -> Renderer:
    """The format called ``name``: its own module first, then every format's aliases."""
    own = _own_module(name)
    for renderer in [own] if own is not None and own.name == name else renderers():
        if name in (renderer.name, *renderer.aliases) and renderer.supports(document):
            return renderer
    raise UsageError(f"unknown output format '{name}' (known: {', '.join(names(document))})")


def for_output(path: str, document: str = "diff") -> Renderer:
    """The renderer an output file's extension asks for."""
    suffix = Path(path).suffix.lower()
    for renderer in renderers():
        if suffix in renderer.extensions and renderer.supports(document):
            return renderer
    raise UsageError(f"-o {path}: cannot tell the format from '{suffix or 'no extension'}'; "
                     f"add --format {'|'.join(names(document))}")

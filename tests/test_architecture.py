"""The house: the folders draw the pipeline, nothing imports from a layer above it, no import circle.

Layers, bottom to top (a module may import its own layer and the ones below):
foundation (errors, arguments, choices, escape, stats, atomic, paths, records) < units, hardware < catalog, conventions
< model < ingest < comparison < analysis < commands < render < api and cli. Imports under
``if TYPE_CHECKING:`` do not count; imports inside functions do (a lazy import from above is still
a dependency on it).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from conftest import ROOT

from neuroncmp.cli.commands import COMMANDS

PACKAGE = ROOT / "neuroncmp"
LAYERS = {"errors": 0, "arguments": 0, "choices": 0, "escape": 0, "stats": 0, "per_sample": 1, "atomic": 0, "paths": 0,
          "records": 0, "units": 1, "hardware": 1, "catalog": 2, "conventions": 2, "model": 3, "ingest": 4,
          "comparison": 5, "analysis": 6, "capture": 6, "store": 6, "commands": 7, "render": 8, "api": 9,
          "examples": 10, "cli": 9, "agent": 9, "__main__": 10}


def _modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(ROOT).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


MODULES = _modules()


def _imports(name: str, path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped = {id(node) for block in ast.walk(tree)
               if isinstance(block, ast.If) and "TYPE_CHECKING" in ast.unparse(block.test)
               for node in ast.walk(block)}
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    out = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join(base + ([node.module] if node.module else []))
            candidates = [module] + [f"{module}.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.Import):
            candidates = [alias.name for alias in node.names]
        else:
            continue
        out |= {c for c in candidates if c in MODULES and c != name}
    return out


GRAPH = {name: _imports(name, path) for name, path in MODULES.items()}


def _layer(module: str) -> int | None:
    parts = module.split(".")
    return LAYERS.get(parts[1]) if len(parts) > 1 else None  # the package root re-exports lazily


def test_every_module_has_a_layer():
    assert [m for m in MODULES if m != "neuroncmp" and _layer(m) is None] == []


@pytest.mark.parametrize("module", sorted(m for m in MODULES if m != "neuroncmp"))
def test_no_module_imports_from_a_layer_above(module):
    above = [dep for dep in GRAPH[module] if dep != "neuroncmp" and _layer(dep) > _layer(module)]
    assert above == [], f"{module} imports from a layer above it: {above}"


def test_no_import_circles():
    circles, done = [], set()

    def visit(module: str, stack: list[str]) -> None:
        if module in stack:
            circles.append(stack[stack.index(module):] + [module])
            return
        if module in done:
            return
        done.add(module)
        for dep in sorted(GRAPH[module]):
            if not (module == "neuroncmp" or (dep.startswith(module + ".") and path_is_init(module))):
                visit(dep, stack + [module])

    def path_is_init(module: str) -> bool:
        return MODULES[module].name == "__init__.py"

    for module in sorted(GRAPH):
        visit(module, [])
    assert circles == []


def test_the_walk_sees_real_imports():
    """Guard against a walker that finds nothing (a test that cannot fail)."""
    assert "neuroncmp.comparison.result" in GRAPH["neuroncmp.comparison.differ"]
    assert "neuroncmp.render.base" in GRAPH["neuroncmp.render.formats.term"]
    assert _layer("neuroncmp.render.rows") > _layer("neuroncmp.comparison.view")


# Modules that serve several commands. Every other module of these folders serves one command and is
# named after it (``render/ops.py``, ``api/ops.py``, ``render/terminal/show.py``, ``cli/history.py``), so
# one name finds every piece of a feature: ``find neuroncmp -name 'ops*'``.
SHARED = {
    "cli": {"app", "commands", "options", "output"},
    "commands": {"documents"},
    "render": {"base", "registry", "formats", "rows", "changes", "captions", "headline", "terminal", "tidy", "frame",
               "json_out", "markup", "charts", "chart_labels", "bounds_table"},
    "render/terminal": {"labels", "bounds"},  # what rich draws: a module per command, and these
    "api": {"results"},
}


def test_a_module_serving_one_command_is_named_after_it():
    misnamed = []
    for folder, shared in SHARED.items():
        for path in (PACKAGE / folder).iterdir():
            name = path.stem if path.suffix == ".py" else path.name
            if path.name in ("__init__.py", "__pycache__") or name in shared:
                continue
            if name.split("_")[0] not in COMMANDS:
                misnamed.append(f"{folder}/{path.name}")
    assert misnamed == [], f"name these after their command, or list them in SHARED: {misnamed}"
    stale = [f"{folder}/{name}" for folder, names in SHARED.items() for name in names
             if not ((PACKAGE / folder / f"{name}.py").exists() or (PACKAGE / folder / name).is_dir())]
    assert stale == []


# What a change touches (docs/code.md): a registry finds each output format, input format and finding
# rule, so adding one touches its own module and at most one name in a list.

def test_no_module_imports_an_output_format():
    """A new output format is one file: the registry imports it by its ``--format`` name."""
    importers = {m: sorted(dep for dep, deps in GRAPH.items() if m in deps)
                 for m in MODULES if m.startswith("neuroncmp.render.formats.")}
    assert len(importers) >= 6
    # the notebook display of a result draws with the term and html renderers
    assert {m: found for m, found in importers.items() if set(found) - {"neuroncmp.api.results"}} == {}


def test_every_input_format_module_is_registered():
    """A new input format is its module and its name in ``ingest/registry.py``'s list."""
    from importlib import import_module

    from neuroncmp.ingest.registry import parsers

    declared = []
    for path in sorted((PACKAGE / "ingest" / "formats").glob("*.py")):
        module = import_module(f"neuroncmp.ingest.formats.{path.stem}")
        declared += getattr(module, "PARSERS", None) or ([module.PARSER] if hasattr(module, "PARSER") else [])
    assert sorted(p.name for p in declared) == sorted(p.name for p in parsers()) and len(declared) >= 8


def test_a_finding_rule_is_named_in_its_own_module_only():
    """A new rule is one class and its entry in that module's ``RULES``: no other module names it."""
    from neuroncmp.analysis.findings import RULES

    rules = {type(rule).__name__ for rule in RULES}
    naming: dict[str, set[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else None
            if name in rules:
                naming.setdefault(name, set()).add(path.relative_to(PACKAGE).as_posix())
    assert len(rules) >= 15 and naming.keys() == rules
    assert {rule: files for rule, files in naming.items() if len(files) != 1} == {}

"""``neuron-profile view --output-format summary-json`` (and the ``summary`` list of ``json``).

Shapes accepted (formats.md 2): ``{"n_<hash>": {metrics}}`` with one or more keys, a bare flat
object of metrics (hand-trimmed files), and the full ``json`` output's ``{"summary": [{...}]}``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ...errors import ParseError
from ...model import Profile, Source
from .. import shapes
from ..decode import documents, head_is_json_object
from ..naming import params_from_name
from ..registry import Parser
from ..values import add_raw_block, note_repeated

NAME = "summary-json"


def parse(text: str, path: str) -> list[Profile]:
    """Every profile of every JSON document in ``text`` (a log may hold two ``view`` outputs)."""
    found = documents(text, path)
    stem = Path(path).stem
    if len(found) == 1:
        return _document(found[0][1], path, stem)
    return [profile for number, (line, data) in enumerate(found, 1)
            for profile in _document(data, path, f"{stem}-{number}", f"document {number} (line {line})")]


def _document(data: Any, path: str, stem: str, where: str = "") -> list[Profile]:
    """The profiles of one decoded document; ``where`` names the document when a file has several."""
    blocks = _blocks(data, f"{path}, {where}" if where else path)
    profiles = []
    for key, block in blocks:
        label_source = stem if len(blocks) == 1 else f"{stem}-{key}"
        profiles.append(profile_from_mapping(block, path, key, label_source))
        if where:
            profiles[-1].source = profiles[-1].source._replace(section=f"{where}, {key}")
    if blocks[0][1] is not data:  # a wrapper key given twice: the second profile is not read
        note_repeated(profiles[0], data, "top level", lambda key: None)
    if blocks[0][0].startswith("summary["):  # the full json output: instructions, DMA, ... not read
        profiles[0].skipped += shapes.unknown(data, ("summary",), "top level")
    return profiles


def _blocks(data: Any, path: str) -> list[tuple[str, dict[str, Any]]]:
    if not isinstance(data, dict) or not data:
        found = "an empty object" if data == {} else f"a JSON {type(data).__name__}"
        raise ParseError(path, "top level", "a non-empty JSON object of metrics", found)
    if isinstance(data.get("summary"), list):
        if not data["summary"]:
            raise ParseError(path, "key 'summary'", "a list of one or more profile objects", "an empty list")
        return [(f"summary[{i}]", _as_object(b, path, f"summary[{i}]"))
                for i, b in enumerate(data["summary"])]
    if all(isinstance(v, dict) for v in data.values()):
        return [(key, value) for key, value in data.items()]
    return [("(flat)", data)]


def _as_object(block: Any, path: str, where: str) -> dict[str, Any]:
    if not isinstance(block, dict):
        raise ParseError(path, where, "a JSON object of metrics", type(block).__name__)
    return block


def profile_from_mapping(block: dict[str, Any], path: str, key: str, name: str,
                         fmt: str = NAME) -> Profile:
    """A Profile from one flat ``{metric: raw value}`` mapping (summary-json semantics)."""
    label, params = params_from_name(name, "file name")
    section = None if key == "(flat)" else key
    profile = Profile(Source(path, fmt, section), label, params)
    if not block:
        raise ParseError(path, f"object '{key}'", "at least one metric", "an empty object")
    where = f"object '{key}'"
    note_repeated(profile, block, where)
    add_raw_block(profile, path, where, block)
    if not profile.metrics:
        raise ParseError(path, where, "at least one metric value",
                         f"none ({len(profile.skipped)} keys skipped: nested, null or unnamed)")
    return profile


PARSER = Parser(NAME, "neuron-profile / neuron-explorer summary-json ({\"n_<id>\": {...}} or flat)",
                (".json",), head_is_json_object, parse, signature="a JSON object ({...})")

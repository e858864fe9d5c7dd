"""Labels and batch sizes from section titles and file names.

``Batch32 CC optim`` -> label ``b32-cc-optim``, batch 32, tags ``cc-optim``;
``Batch 64 (swap)`` -> label ``b64``, tag ``swap`` (parenthesised words tag but do not name).
"""

from __future__ import annotations

import re
from typing import Any

_BATCH = re.compile(r"(?<![A-Za-z0-9])(?:batch(?:[\s_-]*size)?|bs|b)[\s_-]*(\d{1,9})(?!\d)",
                    re.IGNORECASE | re.ASCII)
_PAREN = re.compile(r"\(([^()]*)\)")  # innermost groups: linear even on "(((((..."


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def params_from_name(name: str, source: str) -> tuple[str, dict[str, Any]]:
    """(label, params) from a section title or file stem; ``source`` says which it was."""
    name = name.strip()
    tags = [slug(t) for t in _PAREN.findall(name) if slug(t)]
    bare = _PAREN.sub(" ", name)
    match = _BATCH.search(bare)
    params: dict[str, Any] = {"tags": tags}
    if match is None or int(match.group(1)) == 0:  # "Batch 0" names no batch size
        if source == "file name" and tags:
            params["tags_source"] = source
        return slug(bare) or "profile", params
    batch = int(match.group(1))
    params.update(batch_size=batch, batch_size_source=source)
    rest = slug(bare[: match.start()] + " " + bare[match.end():])
    if rest:
        params["tags"] = [rest] + tags
    if source == "file name" and params["tags"]:
        params["tags_source"] = source  # the store keeps such tags out of a series' identity
    label = f"b{batch}" + (f"-{rest}" if rest else "")
    return label, params

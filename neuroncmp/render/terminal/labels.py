"""Sides' labels short enough for a column header, never broken across lines, each shortened one named
in a legend; the rule: ``docs/commands/diff.md`` ("The terminal table").
"""

from __future__ import annotations

import re
from typing import NamedTuple

from ... import escape

SEPARATORS = "-_. "


class Labels(NamedTuple):
    """The labels as shown and the legend of those shortened (``short = full``)."""

    shown: list[str]
    legend: list[str]
    full: dict[str, str]  # a shortened label's full name -> its short form

    def say(self, text: str) -> str:
        """``text`` with each shortened label, where it stands as a word (not inside a path or a
        longer name), in its short form."""
        if not self.full:
            return text
        names = sorted(map(escape.text, self.full), key=len, reverse=True)
        short = {escape.text(name): value for name, value in self.full.items()}
        pattern = rf"(?<![\w/.-])({'|'.join(map(re.escape, names))})(?![\w/-]|\.\w)"
        return re.sub(pattern, lambda found: short[found.group(1)], text)


def _words(label: str) -> list[str]:
    """``a-b_c`` -> ``a-``, ``b_``, ``c``: each word with the separator after it."""
    return re.findall(rf"[^{re.escape(SEPARATORS)}]*[{re.escape(SEPARATORS)}]+|[^{re.escape(SEPARATORS)}]+", label)


def apart(labels: list[str]) -> list[str]:
    """Each label without the words all of them share at its start and at its end (``baseline``,
    ``fused``); the labels as given where that leaves one empty or two alike."""
    if len(labels) < 2:
        return list(labels)
    split = [_words(label) for label in labels]
    head = 0
    while all(head < len(words) - 1 and words[head] == split[0][head] for words in split):
        head += 1
    tail = 0
    while all(tail < len(words) - head - 1 and _bare(words[-1 - tail]) == _bare(split[0][-1 - tail])
              for words in split):
        tail += 1
    out = ["".join(words[head:len(words) - tail]).rstrip(SEPARATORS) for words in split]
    return out if all(out) and len(set(out)) == len(out) else list(labels)


def _bare(word: str) -> str:
    return word.rstrip(SEPARATORS)


def short_labels(labels: list[str], limit: int) -> Labels:
    """Labels of at most ``limit`` characters (the rule: docs/commands/diff.md); as given when all fit."""
    if all(len(label) <= limit for label in labels):
        return Labels(list(labels), [], {})
    shown: list[str] = []
    for index, label in enumerate(apart(labels)):
        taken = {*shown, *labels[:index], *labels[index + 1:]}
        shown.append(next((short for short in _cuts(label, limit) if short not in taken), f"v{index}"))
    changed = {label: short for label, short in zip(labels, shown, strict=True) if label != short}
    return Labels(shown, [f"{short} = {label}" for label, short in changed.items()], changed)


def _cuts(label: str, limit: int) -> list[str]:
    """The label, else cut at its end, else in its middle (its last characters kept: ``…x2048``)."""
    if len(label) <= limit:
        return [label]
    end = (limit - 1) // 2
    return [label[:limit - 1] + "\u2026", label[:limit - 1 - end] + "\u2026" + label[len(label) - end:]]

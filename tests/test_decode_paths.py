"""``decode.documents`` takes the plain C decoder's result only when it is the hooked decoder's.

The general rule is ``decode.hooked_documents``: every object through the hook (the first value of
a repeated key kept, the others listed; members counted against NEURONCMP_MAX_VALUES), every
integer through ``_int`` (longer than 300 characters: a float), the nesting checked on the text.
Here texts made to trip each part of the proof (a name given twice, also as another spelling of
the same name; white space before a colon; strings holding ``":``; long integers; deep nesting;
several documents; broken JSON) are decoded both ways, under several limits.
"""

from __future__ import annotations

import json
import os
from contextlib import contextmanager
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neuroncmp.errors import NeuroncmpError
from neuroncmp.ingest import decode


def canonical(value: Any) -> Any:
    """A value with its types spelled out: 1 and 1.0 and True differ, -0.0 and nan are exact,
    an object's repeated keys are part of it."""
    if isinstance(value, dict):
        return ("object", type(value).__name__, [(key, canonical(item)) for key, item in value.items()],
                [(key, canonical(kept), canonical(ignored)) for key, kept, ignored in decode.repeated(value)])
    if isinstance(value, list):
        return ("array", [canonical(item) for item in value])
    return (type(value).__name__, repr(value))


def outcome(read: Any, text: str) -> Any:
    try:
        return [(line, canonical(document)) for line, document in read(text, "f.json")]
    except NeuroncmpError as error:
        return (type(error).__name__, str(error))


@contextmanager
def environment(**values: int | None):
    saved = {name: os.environ.get(name) for name in values}
    try:
        for name, value in values.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = str(value)
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def same_both_ways(text: str) -> None:
    assert outcome(decode.documents, text) == outcome(decode.hooked_documents, text)


# Names: some from a few, so that they repeat, with quotes, colons and escapes; written plainly, or
# with an escape that decodes to the same name.
NAMES = st.one_of(st.sampled_from(["a", "total_time", 'q"', "c:", '":', "\\", "é"]),
                  st.text(alphabet="abcdefgh", min_size=1, max_size=3))
SPACE = st.sampled_from(["", " ", "\n", "\t ", "\r\n  "])


def spelled(name: str, draw: Any) -> str:
    ascii_only = draw(st.booleans())
    plain = json.dumps(name, ensure_ascii=ascii_only)
    if draw(st.integers(0, 3)) == 0:  # the first character as a \\u escape: another token, the same name
        return f'"\\u{ord(name[0]):04x}' + plain[len(json.dumps(name[0], ensure_ascii=ascii_only)) - 1:]
    return plain


NUMBERS = st.one_of(
    st.integers(), st.integers(min_value=-(10**302), max_value=10**302),
    st.sampled_from([10**299 - 1, 10**299, 10**300 - 1, 10**300, -(10**299 - 1), -(10**299), -(10**300)]),
    st.floats(allow_nan=False, allow_infinity=False),
)
SCALARS = st.one_of(
    NUMBERS.map(json.dumps), NUMBERS.map(json.dumps), st.text(alphabet='ab":\\ {}[],é', max_size=8).map(json.dumps),
    st.sampled_from(["NaN", "Infinity", "-Infinity", "1e400", "-0", "-0.0", "true", "false", "null", "1" * 301,
                     "7" * 5000]),
)


@st.composite
def values(draw: Any, depth: int = 0) -> str:
    kind = draw(st.sampled_from(["scalar", "scalar", "object", "array"] if depth < 4 else ["scalar"]))
    if kind == "scalar":
        return draw(SCALARS)
    if kind == "array":
        return "[" + ",".join(draw(st.lists(values(depth + 1), max_size=4))) + "]"
    return objects(draw, depth)


def objects(draw: Any, depth: int) -> str:
    members = []
    for name in draw(st.lists(NAMES, max_size=5)):
        members.append(f"{draw(SPACE)}{spelled(name, draw)}{draw(SPACE)}:{draw(SPACE)}{draw(values(depth + 1))}")
    return "{" + ",".join(members) + draw(SPACE) + "}"


@st.composite
def texts(draw: Any) -> str:
    documents = [objects(draw, 0) for _ in range(draw(st.sampled_from([1] * 8 + [2, 3])))]
    text = draw(SPACE) + draw(st.sampled_from(["\n", " ", "\n\n"])).join(documents) + draw(SPACE)
    if draw(st.integers(0, 19)) == 0:  # broken: cut short or a stray comma
        text = text[: draw(st.integers(0, len(text)))] + draw(st.sampled_from(["", ",", "}"]))
    return text


@settings(max_examples=600, deadline=None)
@given(texts(), st.sampled_from([None, 1, 3, 8, 40]), st.sampled_from([None, 1, 2, 3]))
def test_any_text_decodes_as_the_general_rule_decodes_it(text, most_values, deepest):
    with environment(NEURONCMP_MAX_VALUES=most_values, NEURONCMP_MAX_JSON_DEPTH=deepest):
        same_both_ways(text)


@pytest.mark.parametrize("text", [
    '{"a": 1, "a": 1}', '{"a": 1, "a": 2}', '{"a" : 1, "a" :2}', '{"a"\n:\n1, "\\u0061": 2}',
    '{"a": "x\\":", "b": 2}', '{"a": {"b": 1, "b": 2}, "c": [{"d": 1}]}',
    '{"n": ' + "9" * 300 + "}", '{"n": ' + "9" * 301 + "}", '{"n": -' + "9" * 299 + "}",
    '{"n": -' + "9" * 300 + "}", '{"n": ' + "7" * 5000 + "}", '{"n": [' + "1" * 301 + "]}",
    '{"a": 1}\n{"a": 2}', '{"a": 1}{"a": 1}', '{"a": NaN, "b": -Infinity, "c": -0.0, "d": -0}',
    '{"a": 1,}', "[1, 2]", "5", '{"a": ' + "[" * 70 + "]" * 70 + "}",
])
def test_a_chosen_text_decodes_as_the_general_rule_decodes_it(text):
    same_both_ways(text)


def test_the_plain_decoder_is_taken_for_a_plain_document():
    text = '{"n_0": {"total_time": 0.5, "event_count": 12, "instance_type": "trn1.2xlarge"}}'
    assert decode._plain_document(text) == (json.loads(text),)
    for text in ('{"a": 1, "a": 2}', '{"a": 1, "\\u0061": 1}', '{"n": ' + "9" * 301 + "}", '{"a": 1} {}'):
        assert decode._plain_document(text) is None  # the general rule decides these


def test_the_limits_hold_on_the_plain_path():
    with environment(NEURONCMP_MAX_VALUES=2), pytest.raises(NeuroncmpError, match="more than 2 JSON values"):
        decode.documents('{"a": 1, "b": {"c": 2}}', "f.json")
    with environment(NEURONCMP_MAX_JSON_DEPTH=2), pytest.raises(NeuroncmpError, match="JSON nested 3 deep"):
        decode.documents('{"a": {"b": {"c": 2}}}', "f.json")

"""The vocabularies (issue 23): each set of choices defined once in ``neuroncmp.choices``, checked with an
error naming the argument and every choice, and the only source of the CLI's ``click.Choice`` lists."""

from __future__ import annotations

from typing import get_args

import click
import pytest

from neuroncmp import choices
from neuroncmp.cli import cli
from neuroncmp.errors import UsageError

# The values as the docs and design.md state them, written out here, not read from the code.
DOCUMENTED = {
    "BASES": ("auto", "step", "sample"),
    "SHOWN_BASES": ("step", "sample"),
    "SORTS": ("group", "change", "name"),
    "ORDERS": ("batch", "given"),
    "VERDICTS": ("better", "worse", "unchanged", "added", "removed", "neutral", "suspect", "context", "absent"),
    "DIRECTIONS": ("worse", "better", "changed"),
    "ENGINE_NAMES": ("duckdb", "spark"),
    "TOOLS": ("auto", "neuron-explorer", "neuron-profile"),
    "LISTING_FORMATS": ("term", "json"),
    "OPS_LEVELS": ("opcode", "hlo", "layer", "kernel"),
}
ALIASES = {"BASES": choices.Basis, "SHOWN_BASES": choices.ShownBasis, "SORTS": choices.Sort,
           "ORDERS": choices.Order, "VERDICTS": choices.Verdict, "DIRECTIONS": choices.Direction,
           "ENGINE_NAMES": choices.EngineName, "TOOLS": choices.Tool, "LISTING_FORMATS": choices.ListingFormat,
           "OPS_LEVELS": choices.OpsLevel}


@pytest.mark.parametrize("name", sorted(DOCUMENTED))
def test_each_vocabulary_holds_the_documented_values_of_its_type(name):
    assert getattr(choices, name) == DOCUMENTED[name]
    assert get_args(ALIASES[name]) == DOCUMENTED[name]


@pytest.mark.parametrize("name", sorted(DOCUMENTED))
def test_every_value_passes_the_check(name):
    for value in DOCUMENTED[name]:
        assert choices.check("arg", value, getattr(choices, name)) == value


@pytest.mark.parametrize("name", sorted(DOCUMENTED))
@pytest.mark.parametrize("bad", ["nonsense", "", None, 3, "AUTO"])
def test_a_value_outside_is_a_usage_error_naming_the_argument_and_every_choice(name, bad):
    with pytest.raises(UsageError) as caught:
        choices.check("--thing", bad, getattr(choices, name))
    message = str(caught.value)
    assert message.startswith("--thing ")
    assert all(value in message for value in DOCUMENTED[name])


def test_a_misspelling_is_answered_with_the_closest_choice():
    with pytest.raises(UsageError, match=r"basis='smaple'.*did you mean 'sample'"):
        choices.check("basis", "smaple", choices.BASES)


def test_the_single_value_names_are_the_vocabularies_words():
    assert (choices.BETTER, choices.WORSE, choices.SUSPECT, choices.CHANGED) == ("better", "worse", "suspect",
                                                                              "changed")
    assert (choices.AUTO, choices.STEP, choices.SAMPLE) == ("auto", "step", "sample")


def _choice_options(group: click.Group, prefix: str = ""):
    for name, command in group.commands.items():
        path = f"{prefix} {name}".strip()
        if isinstance(command, click.Group):
            yield from _choice_options(command, path)
            continue
        for param in command.params:
            if (isinstance(param.type, click.Choice) and param.name != "fmt") or (
                    param.name == "fmt" and type(param.type) is click.Choice):
                yield path, param


def test_every_click_choice_is_a_vocabulary_never_a_restated_list():
    """click keeps a tuple it is given as is, so the very tuple of ``choices`` shows it was not copied out."""
    vocabularies = [getattr(choices, name) for name in DOCUMENTED]
    found = list(_choice_options(cli))
    assert {path for path, _ in found} >= {"diff", "capture", "history", "formats"}
    for path, param in found:
        assert any(param.type.choices is values for values in vocabularies), (path, param.name)

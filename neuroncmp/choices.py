"""The vocabularies: every set of choices the library accepts or returns, each defined once.

Each is a ``Literal`` type (so mypy checks the callers) with the tuple of its values taken from it
(so the CLI's ``click.Choice``, the checks and the error messages list the same values), and a
name per value where code compares against it (``verdict == WORSE``, never ``== "worse"``).
``check`` turns a value from outside (an option, an API argument) into one of them, or raises
``UsageError`` naming the argument and every choice.
"""

from __future__ import annotations

from typing import Final, Literal, TypeVar, get_args

from .arguments import choice

T = TypeVar("T", bound=str)

# How values are compared: per step, per sample (extensive metrics, when batch sizes are known), or
# ``auto`` (per sample when batch sizes differ). A comparison shows one of the two concrete ones.
Basis = Literal["auto", "step", "sample"]
BASES: tuple[Basis, ...] = get_args(Basis)
ShownBasis = Literal["step", "sample"]
SHOWN_BASES: tuple[ShownBasis, ...] = get_args(ShownBasis)
AUTO: Final = "auto"
STEP: Final = "step"
SAMPLE: Final = "sample"

# The order of a diff's rows: catalog groups, biggest change first, or by name.
Sort = Literal["group", "change", "name"]
SORTS: tuple[Sort, ...] = get_args(Sort)

# The order of the variants: by batch size (when every one is known) or as given.
Order = Literal["batch", "given"]
ORDERS: tuple[Order, ...] = get_args(Order)

# A comparison cell's verdict. Only better and worse are scored; suspect (an input anomaly) and
# context (per step beside per sample, memory across batch sizes) are shown, never scored; absent:
# on neither side of this cell (present on other variants).
Verdict = Literal["better", "worse", "unchanged", "added", "removed", "neutral", "suspect", "context",
                  "absent"]
VERDICTS: tuple[Verdict, ...] = get_args(Verdict)
BETTER: Final = "better"
WORSE: Final = "worse"
UNCHANGED: Final = "unchanged"
ADDED: Final = "added"
REMOVED: Final = "removed"
NEUTRAL: Final = "neutral"
SUSPECT: Final = "suspect"
CONTEXT: Final = "context"
ABSENT: Final = "absent"

# A semaphore wait's change beyond the noise band (``ops``): waiting is not work, so a wait that grew
# or shrank is said as such, never scored better or worse.
MORE_WAITING: Final = "more waiting"
LESS_WAITING: Final = "less waiting"

# Which way is better for a metric (the catalog's ``direction``): higher, lower, or neither (neutral:
# shown, never scored; the same word as the verdict ``NEUTRAL``).
Better = Literal["higher", "lower", "neutral"]
BETTER_WAYS: tuple[Better, ...] = get_args(Better)
HIGHER: Final = "higher"
LOWER: Final = "lower"

# Which way a level shift in a stored series went: worse, better, or changed (a metric with no
# better direction). Worse and better are the verdicts' own words.
Direction = Literal["worse", "better", "changed"]
DIRECTIONS: tuple[Direction, ...] = get_args(Direction)
CHANGED: Final = "changed"

# The store's query engines.
EngineName = Literal["duckdb", "spark"]
ENGINE_NAMES: tuple[EngineName, ...] = get_args(EngineName)

# The profile tool a capture runs (auto: neuron-explorer if installed, else neuron-profile).
Tool = Literal["auto", "neuron-explorer", "neuron-profile"]
TOOLS: tuple[Tool, ...] = get_args(Tool)

# The level of an operator table (``neuroncmp ops``): engine x opcode, HLO op, framework layer, NKI
# kernel source line.
OpsLevel = Literal["opcode", "hlo", "layer", "kernel"]
OPS_LEVELS: tuple[OpsLevel, ...] = get_args(OpsLevel)

# The formats of a listing (formats, store ls, store check): reports have the renderer registry's.
ListingFormat = Literal["term", "json"]
LISTING_FORMATS: tuple[ListingFormat, ...] = get_args(ListingFormat)


def check(name: str, value: object, choices: tuple[T, ...]) -> T:
    """``value`` as one of ``choices``, or ``UsageError`` naming ``name`` (``--basis`` for an option,
    ``basis`` for an argument), every choice and the closest one to a misspelling."""
    chosen = choice(name, value, choices)
    return choices[choices.index(chosen)]

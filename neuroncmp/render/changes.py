"""How a change is written, the same in every format: ``+9.52pp``, ``-9.5%``, ``x2.13``, a mark; the
rules: ``docs/judging.md`` (how a change is written, and its marks).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from decimal import ROUND_HALF_UP, Decimal
from typing import TYPE_CHECKING

from ..choices import (
    ABSENT,
    ADDED,
    BETTER,
    CHANGED,
    CONTEXT,
    NEUTRAL,
    REMOVED,
    SUSPECT,
    UNCHANGED,
    WORSE,
    Direction,
    Verdict,
)
from ..units import finite_number

if TYPE_CHECKING:  # types only: the store's views (sparklines, directions) load no comparison code
    from ..comparison.result import Delta

# A row withheld or shown as context carries no mark: its change is beside it. A compared row with no
# better direction (neutral) is marked by its noise band: "=" inside it, "~" beyond it (``mark``).
MARK = {BETTER: "✔", WORSE: "✘", UNCHANGED: "=", NEUTRAL: "~", ADDED: "new", REMOVED: "gone",
        SUSPECT: "!", CONTEXT: "", ABSENT: ""}
NOT_SIGNIFICANT = "?"
# The mark spelled out, where colour cannot help and a symbol alone is a guess (Markdown, PR comments).
WORD = {BETTER: "better", WORSE: "worse", UNCHANGED: "within noise", NEUTRAL: "changed", ADDED: "",
        REMOVED: "", SUSPECT: "suspect", CONTEXT: "", ABSENT: ""}
NOT_SIGNIFICANT_WORD = "not significant"
# A stored series' level shift reads with the verdicts' marks: changed is a change with no better direction.
DIRECTION_MARK: dict[Direction, str] = {WORSE: MARK[WORSE], BETTER: MARK[BETTER], CHANGED: MARK[NEUTRAL]}
LEGEND = ("✔ better  ✘ worse  = within noise band  ~ changed beyond its noise band (no better direction)  "
          "! suspect input, not scored  ? not significant (repeated captures)  "
          "new/gone: on one side only; no mark: not scored (per-step lines under per-sample rows, "
          "memory across batch sizes or cores, shares moved by their total, variants not comparable)")
SPARKS = "▁▂▃▄▅▆▇█"
_LARGEST = 1.7976931348623157e308  # the largest float; NaN fails the test too


def change_text(delta: Delta) -> str:
    """``+9.52pp``, ``-9.5%``, ``x2.13`` for big ratios; ``from 0``; ``changed`` for text. A
    fraction's change is always in points (MFU 0.0049 % -> 0.0196 %: ``+0.01pp``)."""
    return _change(delta.delta, delta.relative, delta.points, delta.ratio, _banded(delta))


def _change(change: float | None, relative: float | None, points: float | None, ratio: float | None,
            verdict: Verdict) -> str:
    if verdict in _ONE_SIDED or change == 0:
        return ""
    if change is not None and not finite_number(change):
        return "n/a"  # from or to an infinity or NaN: no size of change exists (the value is flagged)
    if points is not None:
        return points_text(points)
    if relative is not None:
        return relative_text(relative, ratio)
    if change is not None:  # baseline 0: no relative change exists
        return "from 0"
    return "" if verdict == UNCHANGED else "changed"


_ONE_SIDED = (ADDED, REMOVED, ABSENT)  # a change has no size


def points_text(points: float) -> str:
    """A change in percentage points: ``+9.52pp``, ``-11.9pp`` (one decimal from 10pp up, two under
    it), and one significant digit under 0.01pp (``+.002pp``: a small fraction's change is never
    written 0; its values are beside it)."""
    size = abs(points)
    if not size < _LARGEST:
        return f"{points:+.2f}pp"
    written = fixed(points, 1 if size >= 10 else 2)
    if not size or float(written):
        return written + "pp"
    tiny = fixed(points, -math.floor(math.log10(size)))  # "-0.003": its leading zero left out, as a
    return tiny[0] + tiny[2:] + "pp"  # change of a tiny share is no wider than its values ("0.005800")


def relative_text(relative: float, ratio: float | None = None) -> str:
    """A relative change as ``diff`` writes it: ``+54.3%``, ``-9.5%``, ``+108%``, ``x12.3`` from 10x."""
    if abs(relative) >= 10:
        return f"x{(1 + relative) if ratio is None else ratio:.3g}"
    return _percent(relative)


def _percent(relative: float) -> str:
    number = relative * 100
    size = abs(float(fixed(number, 1)))  # 99.96 rounds to 100.0: show it as +100%
    return fixed(number, 0 if size >= 100 else 1 if size >= 1 else 2) + "%"


_EXACT = 1e12


def fixed(number: float, decimals: int) -> str:
    """``number`` with a sign and ``decimals`` decimals, rounded half away from zero from its shortest
    decimal form (12 significant digits), so a change reads as it does worked out from the values
    shown: 25.90 % -> 13.95 % is -11.95pp, written -12.0pp, as 13.95 - 25.90 is, and never -11.9pp
    because the float nearest -11.95 is -11.9499999... (Python's own rounding of the binary value)."""
    if not abs(number) < _EXACT:  # past 12 digits nothing is rounded at a decimal (and NaN, infinities)
        return f"{number:+.{decimals}f}"
    return format(Decimal(f"{number:.12g}").quantize(Decimal(1).scaleb(-decimals), ROUND_HALF_UP), "+f")


def mark(delta: Delta) -> str:
    if delta.not_significant:
        return NOT_SIGNIFICANT
    return MARK[_banded(delta)]


def banded(verdict: Verdict, in_band: bool) -> Verdict:
    """The verdict a mark, word or colour says: a compared row with no better direction (neutral)
    whose change is inside its noise band reads as unchanged; beyond it, as changed (``~``)."""
    return UNCHANGED if verdict == NEUTRAL and in_band else verdict


def _banded(delta: Delta) -> Verdict:
    return banded(delta.verdict, delta.in_band)


def change_with_mark(delta: Delta, sep: str = " ") -> str:
    """The change, ``sep`` and the mark (either alone when the other is empty): ``+9.52pp ✔``."""
    change, marked = change_text(delta), mark(delta)
    return f"{change}{sep}{marked}" if change and marked else change or marked


def changes_with_marks(deltas: Iterable[Delta], sep: str = " ") -> list[str]:
    """``change_with_mark`` of each delta (a line's variants)."""
    return [change_with_mark(delta, sep) for delta in deltas]


def word(delta: Delta) -> str:
    """The verdict in words (``""`` where the mark is already one: ``new``, ``gone``)."""
    return NOT_SIGNIFICANT_WORD if delta.not_significant else WORD[_banded(delta)]


def direction_with_word(direction: Direction) -> str:
    """``✘ worse``: a shift's direction as its mark and the word."""
    return f"{DIRECTION_MARK[direction]} {direction}"


def change_with_word(delta: Delta) -> str:
    """``+87.6% ✔ better``: the change, its mark and the mark's word."""
    return f"{change_with_mark(delta)} {word(delta)}".strip()


FLAT = "─"  # a trend whose whole range is inside the row's noise band: drawn flat, not as a swing


def sparkline(points: list[object], *, flat: bool = False,
              inside: Callable[[float, float], bool] | None = None) -> str:
    """A sparkline of the points (empty for text, NaN, infinities or fewer than 3 points); ``flat``,
    or ``inside(lowest, highest)`` (the range is inside the noise band), draws a level line of
    ``FLAT``, as a min-max scale would stretch a 0.05 % spread into a full swing."""
    numbers = finite_numbers(points)
    if len(numbers) < 3 or len(numbers) != len(points):
        return ""  # (NaN and infinities have no place on a scale)
    low, high = min(numbers), max(numbers)
    if flat or (inside is not None and inside(low, high)):
        return FLAT * len(numbers)
    if not math.isfinite(high - low):  # 1e308 and -1e308: the span itself overflows
        low, high, numbers = low / 2, high / 2, [n / 2 for n in numbers]
    return sparks(numbers, low, high)


def finite_numbers(points: list[object]) -> list[float]:
    """The points that are finite numbers (text, NaN and infinities left out)."""
    return [p for p in points if finite_number(p)]


def sparks(values: list[float], low: float, high: float) -> str:
    """One sparkline character per value: its place between ``low`` and ``high`` (clamped), the
    lowest for an empty scale. The one scale of every sparkline (diff's trend, store history)."""
    if not high > low:
        return SPARKS[0] * len(values)
    shares = ((min(max(value, low), high) - low) / (high - low) for value in values)
    return "".join(SPARKS[round(share * (len(SPARKS) - 1))] if 0 <= share <= 1 else SPARKS[0]  # NaN fails the test
                   for share in shares)

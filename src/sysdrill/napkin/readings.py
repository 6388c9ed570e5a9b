"""Readings a documented rule allows when a claim does not hold as first read.

A month of 28 to 31 days, a whole count rounded, a conversion by hand (``/ 86,400``),
a per-period total, an implicit per-unit price, a rate left unwritten, binary and
decimal prefixes swapped: each helper tells whether the claim holds that way
(docs/napkin.md, "Silent when unsure").
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable

from sysdrill.napkin.corrections import format_like, with_unit
from sysdrill.napkin.lexer import NAME, NUM, OP, Token
from sysdrill.napkin.results import ClaimVerdict, Verdict
from sysdrill.napkin.tolerances import (
    EQUAL_TOLERANCE,
    Hints,
    Link,
    as_written,
    holds,
    in_unit,
    is_integral,
    number_in_unit,
    strip_counts,
)
from sysdrill.napkin.units import Dims, dims_div, format_dims, is_unit_spelling
from sysdrill.napkin.values import Value

__all__ = [
    "BARE_DIVISOR",
    "LABEL_WORD",
    "NEAR",
    "SLIP",
    "TIME_WRITTEN",
    "conversion",
    "holds_with_other_prefixes",
    "implicit_rate",
    "left_over_is_priced",
    "mixes_prefixes",
    "per_written_count",
    "month_length",
    "near",
    "period_of",
    "periods_differ",
    "prefix_apart",
    "whole_count",
]

_IMPLICIT_RATE_DIMENSIONS = frozenset({"time", "currency"})
_TIME_APART = ((("time", 1),), (("time", -1),))
"""Sides a second apart: a rate against a total (``4 GB/s × 2 = 8 GB``)."""


_MONTH_RATIOS = (30 / 30.436875, 31 / 30.436875, 28 / 30.436875)
"""A month as authors count it (30, 31 or 28 days) against the engine's (365.2425 / 12)."""


def month_length(left: Value, right: Value, relation: str, link: Link) -> bool:
    """``$3/hour = $2,160/month``: the claim holds with a month of 30 (or 31, 28) days."""
    text = link.lhs + link.rhs
    if "mo" not in text:
        return False
    return any(
        holds(left.v * ratio, right.v, relation, right, False)
        or holds(left.v / ratio, right.v, relation, right, False)
        for ratio in _MONTH_RATIOS
    )


def whole_count(left: Value, right: Value, relation: str) -> bool:
    """``1,000 / 333 = 4 workers``: a count of whole things, the left side rounded up or down."""
    if not (right.scale and right.unit and right.unit[0].isalpha()) or right.dims:
        return False
    if is_unit_spelling(right.unit) or not right.exact:
        return False
    written = right.v / right.scale
    computed = left.v / right.scale
    return not is_integral(computed) and written in (math.floor(computed), math.ceil(computed))


def prefix_apart(one: float, other: float, relation: str) -> bool:
    """Whether ``one`` is ``other`` times a power of 1000 other than 1 (within tolerance)."""
    if one == 0 or other == 0 or one * other < 0:
        return False
    exponent = round(math.log10(abs(one / other)) / 3)
    if exponent == 0:
        return False
    shifted = Value(other * 1000.0**exponent, 0.0, 0.0)
    return holds(one, shifted.v, relation, shifted, False)


NEAR = 1.5
"""A bare computed number with labels (``4 reads + 4 writes``) this close to a quantity's
reading is a slip in the arithmetic; further off, it counts something else."""
SLIP = 100.0
"""Without labels (``16 / 2,000 = 0.8 ms``), a decimal slip up to 100x is still a slip;
further off (``1/4 = 388 GB/s``), the bare number is a share of something unwritten."""
LABEL_WORD = re.compile(
    r"(?<![\d.])\b(?!(?:sqrt|ceil|floor|round|log2|log10|log|ln|exp|min|max)\b)[A-Za-z]{2,}"
)


def near(one: float, other: float, factor: float) -> bool:
    """Whether ``one`` is within ``factor`` times ``other``, either way (same sign)."""
    if one == 0 or other == 0 or one * other < 0:
        return False
    return 1 / factor < one / other < factor


_PERIOD_COUNTS = frozenset({7.0, 12.0, 24.0, 30.0, 52.0, 60.0, 365.0, 720.0, 730.0, 3600.0})
"""Bare factors that count one period in another (hours a day, days a month...)."""


_DURATION = re.compile(
    r"(?:^|[\s\d(])(?:s|secs?|seconds?|min|minutes?|h|hrs?|hours?|days?|weeks?|months?|years?|yrs?)\b"
)
"""A unit of time written alone (``8,760 hours/year``, ``26,280h``), not under a slash."""


def left_over_is_priced(
    left_rest: Dims, right_rest: Dims, lhs: str, hints: Callable[[], Hints]
) -> bool:
    """Whether what the left side has beyond the right is time or a priced quantity.

    ``12,000 GB × $0.023 = $276/month`` leaves bytes (the price is per GB) and time
    (the total is per month); ``2 ms × 3 = 6 GB`` would need bytes the left side
    does not have. A rate on the left that makes a total on the right (``10 GB/hour
    × 24 × 30 = 7,200 GB``) needs the duration: a unit of time written alone or bare
    factors that count periods; ``4 GB/s × 2 = 8 GB`` has neither.
    """
    extra = dims_div(left_rest, right_rest)
    if not all(kind == "time" or power > 0 for kind, power in extra):
        return False
    if ("time", -1) not in extra:
        return True
    if _DURATION.search(lhs):
        return True
    return any(factor in _PERIOD_COUNTS for factor in hints().bare)


BARE_DIVISOR = re.compile(r"/\s*[\d.,]+(?:e[-+]?\d+)?(?![\w.,])")
"""A division by a bare number (``270 W / 5.4e12``), which may be a rate left unwritten."""

TIME_WRITTEN = re.compile(
    r"(?:^|[\s\d(])(?:[mµμun]?s|secs?|seconds?|min|minutes?|h|hrs?|hours?|days?|weeks?"
    r"|months?|years?|yrs?)\b|\b(?:QPS|RPS)\b|/(?:s|sec|h|hr|hour|day|week|month|mo|year|yr)\b"
)
"""A time or a rate written on a side (``2 ms``, ``10K QPS``, ``GB/day``): a side that
writes one is not a single period's total whose period was left unwritten."""

_PER_PERIOD = re.compile(r"/\s*(s|sec|min|h|hr|hour|day|week|month|mo|year|yr)s?\b")


_PERIOD_SECONDS = {
    "s": 1.0,
    "sec": 1.0,
    "min": 60.0,
    "h": 3600.0,
    "hr": 3600.0,
    "hour": 3600.0,
    "day": 86400.0,
    "week": 604800.0,
    "month": 31556952.0 / 12,
    "mo": 31556952.0 / 12,
    "year": 31556952.0,
    "yr": 31556952.0,
}


def period_of(text: str) -> float:
    """Seconds in the one period a right side is written per (``/month``), else 0."""
    found = {m.group(1) for m in _PER_PERIOD.finditer(text)}
    if len(found) != 1:
        return 0.0
    return _PERIOD_SECONDS[found.pop()]


def periods_differ(link: Link) -> bool:
    """Whether the two sides are rates per different written periods (``/hr``, ``/month``)."""
    left = {m.group(1) for m in _PER_PERIOD.finditer(link.lhs)}
    right = {m.group(1) for m in _PER_PERIOD.finditer(link.rhs)}
    return bool(left) and bool(right) and left.isdisjoint(right)


def conversion(
    left: Value, right: Value, relation: str, hints: Callable[[], Hints]
) -> float | None:
    """The bare factor that converts units by hand (``2.46e6 s / 86,400 = 28.5 days``).

    The author divides or multiplies by the ratio of two units (86,400 s per day)
    and writes the result in the other unit; the engine already converts, so the
    claim holds on the numbers as written when a bare number on the left is that
    ratio.
    """
    # A right side that is an expression ("70B × 0.5625 bytes") has no single scale:
    # the size of its written units is what its value makes of its written number.
    scale = right.scale or (right.v / right.w if right.w else 0.0)
    if not (scale and left.w and right.w) or left.v == 0:
        return None
    if not holds(left.w, right.w, relation, as_written(right), False):
        return None
    ratio = scale / (left.v / left.w)
    for factor in hints().bare:
        if factor > 1 and (
            math.isclose(factor, ratio, rel_tol=0.01)
            or math.isclose(factor * ratio, 1, rel_tol=0.01)
        ):
            return factor
    return None


def implicit_rate(
    link: Link,
    left: Value,
    right: Value,
    relation: str,
    unit: str,
    hints: Hints,
    rhs_tokens: list[Token],
) -> ClaimVerdict:
    """Sides of different dimensions: a number may be a rate per a written unit.

    ``1,200 GPU-hours × $2.10 = $2,520`` (the $2.10 is per GPU-hour), ``30 days ×
    24 h = 720 h`` (24 h per day), ``$18.25M / 730 days = $25,000`` (per day): the
    sides differ by one unit the claim writes; read per that unit, the claim is
    checked by value. When such a reading exists and does not hold, the sides are a
    unit mismatch, and the message gives the reading closest to the line's value;
    when none exists, the checker does not understand the claim and abstains.
    """
    make = link.verdict
    left_rest = strip_counts(left.dims)[0]
    right_rest = strip_counts(right.dims)[0]
    # Only time and money go per-unit unwritten ("$2.10" per GPU-hour, "24 h" per
    # day); "4 GB/s * 2 = 8 GB" drops a unit, which is a mismatch.
    units = hints.units
    if not {k for k, _ in left_rest + right_rest} <= _IMPLICIT_RATE_DIMENSIONS:
        units = ()
    missing = dims_div(left_rest, right_rest)
    inverse = dims_div(right_rest, left_rest)
    closest: tuple[float, float, str] | None = None
    for candidate in units:
        rest = strip_counts(candidate.dims)[0]
        if not rest or candidate.v == 0:
            continue
        if rest == missing:
            adjusted = left.v / candidate.v
        elif rest == inverse:
            adjusted = left.v * candidate.v
        else:
            continue
        if holds(adjusted, right.v, relation, right, False):
            return make(
                Verdict.OK,
                f"holds reading a number as per {candidate.unit}",
                computed=number_in_unit(adjusted, right),
                claimed=in_unit(right, right),
                unit=unit,
            )
        if adjusted > 0 and right.v > 0:
            distance = abs(math.log(adjusted / right.v))
            if closest is None or distance < closest[0]:
                closest = distance, adjusted, candidate.unit
    message = (
        f"the left side is in {format_dims(left.dims)} but the right side is in "
        f"{format_dims(right.dims)}"
    )
    if closest is None:
        if left.w and right.w and holds(left.w, right.w, relation, as_written(right), False):
            if (
                hints.bare
                and "^" in link.lhs
                and dims_div(left_rest, right_rest) not in _TIME_APART
            ):
                # "0.5 × 2 mF × (3.0^2 - 1.8^2) = 5.76 mJ": the numbers agree and a bare
                # number raised to a power may carry the unit left unwritten (volts).
                return link.abstain("the numbers agree; a bare number may carry the unit")
            # "100 MB / (50 GB/s) = 2 GB": the number is right and the unit is of
            # another kind; a slip worth a warning.
            return make(Verdict.UNIT_MISMATCH, message)
        if dims_div(left_rest, right_rest) in ((("time", 1),), (("time", -1),)):
            # "4 GB/s × 2 = 8 GB": a rate against a total with no duration written
            # and none that the numbers explain; a unit left out, worth a warning.
            return make(Verdict.UNIT_MISMATCH, message)
        return link.abstain(message)
    if closest is not None:
        literal = next((t for t in rhs_tokens if t.kind is NUM), None)
        shown = with_unit(format_like(number_in_unit(closest[1], right), literal, right.sig), unit)
        said = with_unit(format_like(in_unit(right, right), literal, right.sig), unit)
        message += f"; read per {closest[2]}, the left side is {shown} and the line says {said}"
    return make(Verdict.UNIT_MISMATCH, message)


def holds_with_other_prefixes(
    left: Value, right: Value, relation: str, reread: Callable[[], tuple[Value, Value]]
) -> bool:
    """Whether the claim holds with KB/MB/GB read as 1024-based, or KiB/MiB/GiB as 1000."""
    if (left.a != left.v or right.a != right.v) and holds(
        left.a, right.a, relation, right, exact=False
    ):
        return True
    if not (left.unit or right.unit or left.dims or right.dims):
        return False
    other_left, other_right = reread()
    if other_left.why is not None or other_right.why is not None:
        return False
    if other_left.v == left.v and other_right.v == right.v:
        return False
    return holds(other_left.v, other_right.v, relation, right, exact=False)


def mixes_prefixes(left: Value, right: Value, relation: str, link: Link) -> bool:
    """Whether a claim in bytes holds with 1024 and 1000 mixed across its prefix steps.

    ``960 KB × 4096 = 3.84 GB`` converts KB to MB by 1024 and MB to GB by 1000: off
    by 1.024 exactly. A binary and decimal mix is a prefix note, never an error. It
    needs two prefix steps or more between the sides' byte units (one of each kind),
    so ``14 GB + 6 GB = 21 GB`` is no mix.
    """
    if not any(kind == "information" for kind, _ in left.dims + right.dims):
        return False
    steps = _prefix_steps(link.lhs, link.rhs)
    if steps < 2:
        return False
    # Tight on purpose: 1.024 is only 2.4 %, so neither "≈" nor rounding a short number
    # may stand for it.
    exact = right.sig >= 3 and right.ulp > 0
    return any(
        math.isclose(left.v * 1.024**power, right.v, rel_tol=EQUAL_TOLERANCE)
        or (exact and abs(left.v * 1.024**power - right.v) <= right.ulp / 2)
        for size in range(1, steps)
        for power in (size, -size)
    )


_BYTE_PREFIX = re.compile(r"(?<![A-Za-z])([kKMGTPE]?)i?B\b")
_PREFIX_INDEX = {"": 0, "k": 1, "K": 1, "M": 2, "G": 3, "T": 4, "P": 5, "E": 6}


def _prefix_steps(lhs: str, rhs: str) -> int:
    """The most prefix steps between a byte unit on the left and one on the right."""
    left = [_PREFIX_INDEX[m[1]] for m in _BYTE_PREFIX.finditer(lhs)]
    right = [_PREFIX_INDEX[m[1]] for m in _BYTE_PREFIX.finditer(rhs)]
    return max((abs(a - b) for a in left for b in right), default=0)


def per_written_count(rhs_tokens: list[Token]) -> float:
    """The count a right side is written per (``$0.49/1M tokens``: 1M), else 0.

    A price per a written number of counted things is the price of that many: the
    left side (``$3.50 / 7.2``, with 7.2 in millions of tokens) computes it.
    """
    for index in range(len(rhs_tokens) - 2):
        slash, number, thing = rhs_tokens[index : index + 3]
        if (
            slash.kind is OP
            and slash.text == "/"
            and number.kind is NUM
            and not number.unit
            and number.value > 1
            and thing.kind is NAME
            and is_unit_spelling(thing.text)
        ):
            return number.value
    return 0.0

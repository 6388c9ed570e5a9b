"""Judging one claim link: tolerances, units on one side, prefixes, corrected lines.

Tolerances: ``=`` holds within 0.5 % relative, or within the rounding of the
number written on the right (half a unit in its last digit, at most 2 %), and
exactly when both sides are integers written in full (``2048 / 128 = 16``);
``≈`` and ``~`` hold within 5 % (rounding at most 10 %).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

from sysdrill.napkin.lexer import _SUFFIXES, Kind, Token
from sysdrill.napkin.results import ClaimVerdict, Verdict
from sysdrill.napkin.units import COUNT_DIMENSIONS, Dims, dims_div, format_dims
from sysdrill.napkin.values import Value

__all__ = [
    "APPROX_TOLERANCE",
    "EQUAL_TOLERANCE",
    "ORDER_RELATIONS",
    "Hints",
    "Link",
    "compare",
    "compare_order",
    "same_kind",
    "strip_counts",
]

EQUAL_TOLERANCE = 0.005
"""Relative tolerance of ``=``."""
APPROX_TOLERANCE = 0.05
"""Relative tolerance of ``≈`` and ``~``."""
_ROUNDING_CAP = {"=": 0.05, "≈": 0.10, "~": 0.10}
ORDER_RELATIONS = frozenset({"<", ">", "≤", "≥", "≪", "≫"})
"""Comparisons: checked for their direction, not for a value."""
_IMPLICIT_RATE_DIMENSIONS = frozenset({"time", "currency"})
_FLIPPED = {"<": ">", ">": "<", "≤": "≥", "≥": "≤", "≪": "≫", "≫": "≪"}


class Hints(NamedTuple):
    """What else a claim writes, for reading implicit rates and conversions."""

    units: tuple[Value, ...]
    """Every unit written in the claim (``GPU-hours``, ``month`` of ``$/GB/month``)."""
    bare: tuple[float, ...]
    """The numbers on the left side written without a unit (``86,400``)."""


@dataclass(slots=True)
class Link:
    """Where a link (``lhs = rhs``) is and what it says, to build its verdict."""

    number: int
    column: int
    relation: str
    lhs: str
    rhs: str

    def verdict(
        self,
        kind: Verdict,
        message: str,
        *,
        computed: float | None = None,
        claimed: float | None = None,
        unit: str = "",
        suggestion: str | None = None,
    ) -> ClaimVerdict:
        """The verdict on this link."""
        return ClaimVerdict(
            self.number,
            self.column,
            self.relation,
            self.lhs,
            self.rhs,
            kind,
            computed=computed,
            claimed=claimed,
            unit=unit,
            message=message,
            suggestion=suggestion,
        )


def same_kind(left: Value, right: Value) -> bool:
    """Whether two values have one dimension, counted things (GPUs, tokens...) aside."""
    return _strip_counts(left.dims)[0] == _strip_counts(right.dims)[0]


def strip_counts(dims: Dims) -> tuple[Dims, Dims]:
    """``dims`` split into the dimensions that are not counts and those that are."""
    return _strip_counts(dims)


@lru_cache(maxsize=1024)
def _strip_counts(dims: Dims) -> tuple[Dims, Dims]:
    counts = tuple(d for d in dims if d[0] in COUNT_DIMENSIONS)
    rest = tuple(d for d in dims if d[0] not in COUNT_DIMENSIONS)
    return rest, counts


def _holds(left: float, right: float, relation: str, right_value: Value, exact: bool) -> bool:
    """Whether ``left`` and the claimed ``right`` agree under the relation's tolerance.

    Besides the relative tolerance, a right side written as a literal may be the
    left side rounded to the digits written (``70 / 32 = 2.2``): half a unit in
    its last digit, with at least two significant digits for ``=``, and capped at
    2 % for ``=`` and 10 % for ``≈``/``~``.
    """
    if exact:
        return abs(left - right) <= 1e-9 * max(abs(left), abs(right), 1.0)
    diff = abs(left - right)
    scale = max(abs(left), abs(right))
    if scale == 0:
        return True
    tolerance = EQUAL_TOLERANCE if relation == "=" else APPROX_TOLERANCE
    if diff <= tolerance * scale * (1 + 1e-9):
        return True
    ulp = right_value.ulp
    if ulp > 0 and (relation != "=" or right_value.sig >= 2):
        return diff <= ulp / 2 * (1 + 1e-9) and diff <= _ROUNDING_CAP[relation] * scale
    return False


def _is_integral(value: float) -> bool:
    return math.isfinite(value) and value == round(value)


def compare(
    link: Link,
    left: Value,
    right: Value,
    line: str,
    norm: str,
    rhs_tokens: list[Token],
    reread: Callable[[], tuple[Value, Value]],
    hints: Callable[[], Hints],
) -> ClaimVerdict:
    """Judge a link whose two sides evaluated to numbers.

    Args:
        link: The link, to build the verdict.
        left: The left side's value.
        right: The right side's value.
        line: The line as written (for the corrected line).
        norm: The normalised line.
        rhs_tokens: The right side's tokens (to find the literal to correct).
        reread: Re-evaluates both sides with binary prefixes read as decimal.
        hints: The units and bare numbers the claim writes (for implicit rates).

    Returns:
        ok, wrong, unit-mismatch, prefix-ambiguous, or skipped.
    """
    make = link.verdict
    relation = "=" if link.relation == "→" else link.relation
    if not (math.isfinite(left.v) and math.isfinite(right.v)):
        return make(Verdict.SKIPPED, "a number is too large or too small to compare")
    # "Exactly where both sides are integers written in full": the left side's
    # value in the right side's written unit must itself be an integer.
    # A unit conversion (a year in hours) is never exact.
    exact = (
        relation == "="
        and left.exact
        and right.exact
        and right.scale > 0
        and left.w != 0
        and math.isclose(left.v / left.w, right.v / right.w if right.w else 0.0)
        and _is_integral(left.v / right.scale)
        and _is_integral(right.v / right.scale)
    )
    unit = right.unit if right.scale else ""
    left_rest, left_counts = _strip_counts(left.dims)
    right_rest, right_counts = _strip_counts(right.dims)
    if left_rest == right_rest:
        # Counted things (GPUs, tokens, FLOPs...) are soft: napkin math often
        # writes them on one side only ("128 GPUs * 4 * 4 = 2048").
        if _holds(left.v, right.v, relation, right, exact):
            return _ok(make, left, right, unit)
        if left_counts and not right_counts and left.scale:
            # "At 16 nodes = 2048 / 128": a counted label on the left, not a claim.
            return make(Verdict.SKIPPED, "a counted label on the left; not compared")
        if (
            not left.dims
            and right.dims
            and right.scale
            and _holds(left.v, right.w, relation, _plain(right), False)
        ):
            # "3×3×64×128 × 56×56 = 231M MACs": a bare count of the right side's unit.
            return make(Verdict.OK, "holds (a count of the right side's unit)", computed=left.v)
        factor = _conversion(left, right, relation, hints)
        if factor is not None:
            return make(
                Verdict.OK,
                f"holds with {_number_text(factor)} as the conversion between units",
                computed=left.w,
                claimed=right.w,
            )
        if _holds_with_other_prefixes(left, right, relation, reread):
            return make(
                Verdict.PREFIX_AMBIGUOUS,
                "holds only if KB/MB/GB are read as powers of 1024 (or KiB/MiB/GiB as "
                "powers of 1000); write KiB/MiB/GiB for 1024-based sizes",
                computed=_in_unit(left, right),
                claimed=_in_unit(right, right),
                unit=unit,
            )
        return _wrong(link, _in_unit(left, right), left, right, unit, line, norm, rhs_tokens)
    if not left_rest or not right_rest:
        # Units written on one side only: the bare number may be in base units
        # ("7B × 16 = 112 GB") or in the other side's written unit ("7 × 24 = 168 h").
        bare, other = (left, right) if not left_rest else (right, left)
        if _holds(bare.v, other.v, relation, right, False) or _holds(
            bare.v, other.w, relation, _written(right), False
        ):
            return make(
                Verdict.OK,
                "holds (units written on one side only)",
                computed=left.w,
                claimed=right.w,
            )
        if bare is left and right.scale and not left.scale:
            # A computed bare left side against a written quantity ("7 × 24 = 148
            # hours"); a bare literal ("7B = 112 GB") is shorthand, not arithmetic.
            return _wrong(link, left.v, left, right, unit, line, norm, rhs_tokens)
        if not bare.dims:
            return make(
                Verdict.SKIPPED, "units are written on one side only and neither reading matches"
            )
    if {"flop"} <= {k for k, _ in left.dims} & {k for k, _ in right.dims}:
        ratio = dict(left.dims).get("time", 0) - dict(right.dims).get("time", 0)
        if abs(ratio) == 1:
            return make(Verdict.SKIPPED, "FLOPs and FLOP/s are easily confused here; not compared")
    return _implicit_rate(make, left, right, relation, unit, hints(), rhs_tokens)


def _written(value: Value) -> Value:
    """``value`` as its number is written (``287 hours`` is 287, rounded to 1)."""
    if not value.v or not value.w:
        return _plain(value)
    per = value.w / value.v
    return Value(value.w, value.w, value.w, ulp=value.ulp * per, sig=value.sig)


def _plain(value: Value) -> Value:
    """``value`` without rounding information (its ulp is in other units)."""
    return Value(value.v, value.w, value.a, value.dims)


def _number_text(number: float) -> str:
    from sysdrill.napkin.quantity import format_number

    if _is_integral(number) and abs(number) < 1e15:
        return f"{round(number):,}"
    return format_number(number, digits=4)


def _conversion(
    left: Value, right: Value, relation: str, hints: Callable[[], Hints]
) -> float | None:
    """The bare factor that converts units by hand (``2.46e6 s / 86,400 = 28.5 days``).

    The author divides or multiplies by the ratio of two units (86,400 s per day)
    and writes the result in the other unit; the engine already converts, so the
    claim holds on the numbers as written when a bare number on the left is that
    ratio.
    """
    if not (right.scale and left.w and right.w) or left.v == 0:
        return None
    if not _holds(left.w, right.w, relation, _plain(right), False):
        return None
    ratio = right.scale / (left.v / left.w)
    for factor in hints().bare:
        if factor > 1 and (
            math.isclose(factor, ratio, rel_tol=0.01)
            or math.isclose(factor * ratio, 1, rel_tol=0.01)
        ):
            return factor
    return None


def _implicit_rate(
    make: Callable[..., ClaimVerdict],
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
    checked by value. Otherwise the sides are a unit mismatch, and the message
    gives the reading closest to the line's value.
    """
    left_rest = _strip_counts(left.dims)[0]
    right_rest = _strip_counts(right.dims)[0]
    # Only time and money go per-unit unwritten ("$2.10" per GPU-hour, "24 h" per
    # day); "4 GB/s * 2 = 8 GB" drops a unit, which is a mismatch.
    units = hints.units
    if not {k for k, _ in left_rest + right_rest} <= _IMPLICIT_RATE_DIMENSIONS:
        units = ()
    missing = dims_div(left_rest, right_rest)
    inverse = dims_div(right_rest, left_rest)
    closest: tuple[float, float, str] | None = None
    for candidate in units:
        rest = _strip_counts(candidate.dims)[0]
        if not rest or candidate.v == 0:
            continue
        if rest == missing:
            adjusted = left.v / candidate.v
        elif rest == inverse:
            adjusted = left.v * candidate.v
        else:
            continue
        if _holds(adjusted, right.v, relation, right, False):
            return make(
                Verdict.OK,
                f"holds reading a number as per {candidate.unit}",
                computed=_in_unit_v(adjusted, right),
                claimed=_in_unit(right, right),
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
    if closest is not None:
        literal = next((t for t in rhs_tokens if t.kind is Kind.NUM), None)
        shown = _with_unit(_format_like(_in_unit_v(closest[1], right), literal, right.sig), unit)
        said = _with_unit(_format_like(_in_unit(right, right), literal, right.sig), unit)
        message += f"; read per {closest[2]}, the left side is {shown} and the line says {said}"
    return make(Verdict.UNIT_MISMATCH, message)


def _in_unit_v(number: float, like: Value) -> float:
    return number / like.scale if like.scale else number


def compare_order(
    link: Link, left: Value, right: Value, line: str, norm: str, sign: Token
) -> ClaimVerdict:
    """Judge a comparison (``140 GB < 80 GB``): does it point the right way?"""
    make = link.verdict
    relation = link.relation
    if not (math.isfinite(left.v) and math.isfinite(right.v)):
        return make(Verdict.SKIPPED, "a number is too large or too small to compare")
    left_rest = _strip_counts(left.dims)[0]
    right_rest = _strip_counts(right.dims)[0]
    one, other = left.v, right.v
    if left_rest != right_rest:
        if left_rest and right_rest:
            return make(Verdict.SKIPPED, "the two sides are different kinds of quantity")
        # A bare number against a quantity: compared in the quantity's written unit.
        one, other = (left.v, right.w) if not left_rest else (left.w, right.v)
    slack = EQUAL_TOLERANCE * max(abs(one), abs(other))
    below = relation in ("<", "≤", "≪")
    holds = one <= other + slack if below else one >= other - slack
    unit = right.unit if right.scale else ""
    computed = _in_unit(left, right) if left_rest == right_rest else one
    if holds:
        return make(
            Verdict.OK, "holds", computed=computed, claimed=_in_unit(right, right), unit=unit
        )
    fixed = _replaced(line, norm, sign.start, sign.end, _FLIPPED[relation])
    return make(
        Verdict.WRONG,
        f"{link.lhs} is {'more' if below else 'less'} than {link.rhs}, not {relation} it",
        computed=computed,
        claimed=_in_unit(right, right),
        unit=unit,
        suggestion=fixed.strip(),
    )


def _holds_with_other_prefixes(
    left: Value, right: Value, relation: str, reread: Callable[[], tuple[Value, Value]]
) -> bool:
    """Whether the claim holds with KB/MB/GB read as 1024-based, or KiB/MiB/GiB as 1000."""
    if (left.a != left.v or right.a != right.v) and _holds(
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
    return _holds(other_left.v, other_right.v, relation, right, exact=False)


def _in_unit(value: Value, like: Value) -> float:
    """``value`` expressed in the unit ``like`` was written in."""
    if like.scale:
        return value.v / like.scale
    return value.v


def _ok(make: Callable[..., ClaimVerdict], left: Value, right: Value, unit: str) -> ClaimVerdict:
    return make(
        Verdict.OK,
        "holds",
        computed=_in_unit(left, right),
        claimed=_in_unit(right, right),
        unit=unit,
    )


def _format_like(number: float, token: Token | None, sig: int) -> str:
    """Format ``number`` in the style of the literal it replaces."""
    from sysdrill.napkin.quantity import format_number

    digits = max(3, sig + 1)
    if token is not None:
        text = token.text
        suffix = text[-1] if text[-1] in _SUFFIXES and not token.unit else ""
        if suffix:
            return format_number(number / _SUFFIXES[suffix], digits=digits) + suffix
        if "e" in text.lower() and not token.unit:
            mantissa, _, exponent = f"{number:.{digits - 1}e}".partition("e")
            return f"{mantissa}e{int(exponent)}"
    if _is_integral(number) and abs(number) < 1e15:
        grouped = token is not None and "," in token.text
        return f"{round(number):,}" if grouped else str(round(number))
    return format_number(number, digits=digits)


def _wrong(
    link: Link,
    computed: float,
    left: Value,
    right: Value,
    unit: str,
    line: str,
    norm: str,
    rhs_tokens: list[Token],
) -> ClaimVerdict:
    """A wrong verdict; ``computed`` is the left side in the right side's written unit.

    The message says what was computed and from what: ``expected 16 from 2048 /
    128; the line says 15``.
    """
    from sysdrill.napkin.quantity import format_value

    suggestion = None
    if right.scale:
        literal = next((t for t in rhs_tokens if t.kind is Kind.NUM), None)
        if literal is not None:
            new = _format_like(computed, literal, right.sig) + literal.unit
            suggestion = _replaced(line, norm, literal.start, literal.end, new)
        number = _format_like(computed, literal, right.sig)
        shown = _with_unit(number, unit)
        about = "" if _shows_exactly(number, computed) else "≈ "
    else:
        shown = format_value(left)[2]
        about = "" if _is_integral(computed) and abs(computed) < 1e15 else "≈ "
    return link.verdict(
        Verdict.WRONG,
        f"expected {about}{shown} from {link.lhs}; the line says {link.rhs}",
        computed=computed,
        claimed=_in_unit(right, right),
        unit=unit,
        suggestion=suggestion.strip() if suggestion else None,
    )


def _shows_exactly(number: str, value: float) -> bool:
    text = number.replace(",", "")
    factor = 1.0
    if text and text[-1] in _SUFFIXES:
        text, factor = text[:-1], _SUFFIXES[text[-1]]
    try:
        return math.isclose(float(text) * factor, value, rel_tol=1e-12)
    except ValueError:
        return False


def _with_unit(number: str, unit: str) -> str:
    """A formatted number with its unit as written (``$2,520``, ``16%``, ``4 GB``)."""
    if unit == "$":
        return f"${number}"
    if unit == "%":
        return f"{number}%"
    return f"{number} {unit}".strip()


def _replaced(line: str, norm: str, start: int, end: int, new: str) -> str:
    """The line with ``norm[start:end]`` replaced, in the line as written when it is unique."""
    old = norm[start:end]
    if line.count(old) == 1:
        return line.replace(old, new, 1)
    return norm[:start] + new + norm[end:]

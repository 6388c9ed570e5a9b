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

from sysdrill.napkin.lexer import _SUFFIXES, Kind, Token
from sysdrill.napkin.results import ClaimVerdict, Verdict
from sysdrill.napkin.units import COUNT_DIMENSIONS, Dims, format_dims
from sysdrill.napkin.values import Value

__all__ = ["APPROX_TOLERANCE", "EQUAL_TOLERANCE", "Link", "compare"]

EQUAL_TOLERANCE = 0.005
"""Relative tolerance of ``=``."""
APPROX_TOLERANCE = 0.05
"""Relative tolerance of ``≈`` and ``~``."""
_ROUNDING_CAP = {"=": 0.02, "≈": 0.10, "~": 0.10}


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

    Returns:
        ok, wrong, unit-mismatch, prefix-ambiguous, or skipped.
    """
    make = link.verdict
    relation = link.relation
    if not (math.isfinite(left.v) and math.isfinite(right.v)):
        return make(Verdict.SKIPPED, "a number is too large or too small to compare")
    # "Exactly where both sides are integers written in full": the left side's
    # value in the right side's written unit must itself be an integer.
    exact = (
        relation == "="
        and left.exact
        and right.exact
        and right.scale > 0
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
        if _holds_with_other_prefixes(left, right, relation, reread):
            return make(
                Verdict.PREFIX_AMBIGUOUS,
                "holds only if KB/MB/GB are read as powers of 1024 (or KiB/MiB/GiB as "
                "powers of 1000); write KiB/MiB/GiB for 1024-based sizes",
                computed=_in_unit(left, right),
                claimed=_in_unit(right, right),
                unit=unit,
            )
        return _wrong(make, _in_unit(left, right), left, right, unit, line, norm, rhs_tokens)
    if not left_rest or not right_rest:
        # Units written on one side only: the bare number may be in base units
        # ("7B × 16 = 112 GB") or in the other side's written unit ("7 × 24 = 168 h").
        bare, other = (left, right) if not left_rest else (right, left)
        if _holds(bare.v, other.v, relation, right, False) or _holds(
            bare.v, other.w, relation, right, False
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
            return _wrong(make, left.v, left, right, unit, line, norm, rhs_tokens)
        return make(
            Verdict.SKIPPED, "units are written on one side only and neither reading matches"
        )
    if {"flop"} <= {k for k, _ in left.dims} & {k for k, _ in right.dims}:
        ratio = dict(left.dims).get("time", 0) - dict(right.dims).get("time", 0)
        if abs(ratio) == 1:
            return make(Verdict.SKIPPED, "FLOPs and FLOP/s are easily confused here; not compared")
    return make(
        Verdict.UNIT_MISMATCH,
        f"the left side is in {format_dims(left.dims)} but the right side is in "
        f"{format_dims(right.dims)}",
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
    make: Callable[..., ClaimVerdict],
    computed: float,
    left: Value,
    right: Value,
    unit: str,
    line: str,
    norm: str,
    rhs_tokens: list[Token],
) -> ClaimVerdict:
    """A wrong verdict; ``computed`` is the left side in the right side's written unit."""
    from sysdrill.napkin.quantity import format_value

    suggestion = None
    if right.scale:
        literal = next((t for t in rhs_tokens if t.kind is Kind.NUM), None)
        if literal is not None:
            new = _format_like(computed, literal, right.sig) + literal.unit
            old = norm[literal.start : literal.end]
            if line.count(old) == 1:
                suggestion = line.replace(old, new, 1)
            else:
                suggestion = norm[: literal.start] + new + norm[literal.end :]
        shown = f"{_format_like(computed, None, right.sig)} {unit}".strip()
    else:
        shown = format_value(left)[2]
    if unit == "%":
        shown = shown.replace(" %", "%")
    return make(
        Verdict.WRONG,
        f"the left side is {shown}",
        computed=computed,
        claimed=_in_unit(right, right),
        unit=unit,
        suggestion=suggestion.strip() if suggestion else None,
    )

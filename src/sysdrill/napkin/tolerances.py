"""Tolerances of a claim link, and the link itself: what "holds" means.

``=`` holds within 0.5 % relative, or within the rounding of the number written on
the right (half a unit in its last digit, at most 5 %), and exactly when both sides
are integers written in full (``2048 / 128 = 16``); ``≈`` and ``~`` hold within 5 %
(rounding at most 10 %, one significant digit up to 25 %).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

from sysdrill.napkin.results import ClaimVerdict, Verdict
from sysdrill.napkin.units import COUNT_DIMENSIONS, Dims
from sysdrill.napkin.values import Value

__all__ = [
    "APPROX_TOLERANCE",
    "EQUAL_TOLERANCE",
    "Hints",
    "Link",
    "as_written",
    "holds",
    "in_unit",
    "is_integral",
    "number_in_unit",
    "plain",
    "same_kind",
    "strip_counts",
]

EQUAL_TOLERANCE = 0.005
"""Relative tolerance of ``=``."""
APPROX_TOLERANCE = 0.05
"""Relative tolerance of ``≈`` and ``~``."""
_ROUNDING_CAP = {"=": 0.05, "≈": 0.10, "~": 0.10}
_ONE_DIGIT_CAP = 0.25
"""``≈``/``~`` to one significant digit: half a unit of it is up to 25 % (2.49 ≈ 2)."""


class Hints(NamedTuple):
    """What else a claim writes, for reading implicit rates and conversions."""

    units: tuple[Value, ...]
    """Every unit written in the claim (``GPU-hours``, ``month`` of ``$/GB/month``)."""
    bare: tuple[float, ...]
    """The numbers on the left side written without a unit (``86,400``)."""
    magnitudes: bool = False
    """Every large or small number on the left side is written with its magnitude
    (``8.5e12``, ``800e12``, ``500e-6``, ``10K``): no prefix is left unwritten."""


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
        unsure: bool = False,
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
            unsure=unsure,
        )

    def abstain(self, message: str) -> ClaimVerdict:
        """Silent when unsure: a claim read but not understood well enough to judge.

        It is ``skipped`` for every reader of verdicts (a learner never sees it) and
        ``check`` counts it as the info ``napkin-unsure`` with this reason.
        """
        return self.verdict(Verdict.SKIPPED, f"not judged: {message}", unsure=True)


def same_kind(left: Value, right: Value) -> bool:
    """Whether two values have one dimension, counted things (GPUs, tokens...) aside."""
    return strip_counts(left.dims)[0] == strip_counts(right.dims)[0]


@lru_cache(maxsize=1024)
def strip_counts(dims: Dims) -> tuple[Dims, Dims]:
    """``dims`` split into the dimensions that are not counts and those that are."""
    counts = tuple(d for d in dims if d[0] in COUNT_DIMENSIONS)
    rest = tuple(d for d in dims if d[0] not in COUNT_DIMENSIONS)
    return rest, counts


def holds(left: float, right: float, relation: str, right_value: Value, exact: bool) -> bool:
    """Whether ``left`` and the claimed ``right`` agree under the relation's tolerance.

    Besides the relative tolerance, a right side written as a literal may be the
    left side rounded to the digits written (``70 / 32 = 2.2``: half a unit in
    its last digit) or truncated to them (``3.38 / 3 = 1.12``: less than a unit),
    capped at 5 % for ``=`` and 10 % for ``≈``/``~``.
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
    cap = _ROUNDING_CAP[relation]
    if relation != "=" and right_value.sig == 1:
        cap = _ONE_DIGIT_CAP  # "~2x" for 2.33: one digit says "about"
    if ulp <= 0 or diff > cap * scale * (1 + 1e-9):
        return False
    if diff <= ulp / 2 * (1 + 1e-9) and (relation != "=" or right_value.sig >= 2):
        return True  # rounded to the digits written: 70 / 32 = 2.2 (not 1 GiB for 1 GB)
    # Truncated to the digits written, as authors often do: 3.38 / 3 = 1.12 (1.127).
    return left * right > 0 and abs(right) < abs(left) and diff < ulp * (1 - 1e-9)


def is_integral(value: float) -> bool:
    """Whether ``value`` is a finite whole number."""
    return math.isfinite(value) and value == round(value)


def as_written(value: Value) -> Value:
    """``value`` as its number is written (``287 hours`` is 287, rounded to 1)."""
    if not value.v or not value.w:
        return plain(value)
    per = value.w / value.v
    return Value(value.w, value.w, value.w, ulp=value.ulp * per, sig=value.sig)


def plain(value: Value) -> Value:
    """``value`` without rounding information (its ulp is in other units)."""
    return Value(value.v, value.w, value.a, value.dims)


def number_in_unit(number: float, like: Value) -> float:
    """A number in base units expressed in the unit ``like`` was written in."""
    return number / like.scale if like.scale else number


def in_unit(value: Value, like: Value) -> float:
    """``value`` expressed in the unit ``like`` was written in."""
    if like.scale:
        return value.v / like.scale
    return value.v

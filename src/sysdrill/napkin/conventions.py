"""How a claim's written conventions are read: ranges, stated conversions, MACs, rates.

Authors leave conventions unwritten (``$2.10`` is per GPU-hour, ``× 2`` turns MACs into
FLOPs, ``1 node = 8 GPUs`` defines a unit, ``7B-13B`` is two claims); these helpers let
:class:`sysdrill.napkin.claims.ClaimChecker` read them as the author meant.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace

from sysdrill.napkin.lexer import NAME, NUM, Token
from sysdrill.napkin.results import ClaimVerdict, Verdict
from sysdrill.napkin.units import is_unit_spelling
from sysdrill.napkin.values import Value, unit_value
from sysdrill.napkin.verdicts import Hints, Link, strip_counts

__all__ = ["claim_hints", "converts_macs", "judge_range", "states_conversion"]


def judge_range(
    link: Link,
    readings: list[tuple[Value, Value]],
    judge: Callable[[tuple[Value, Value], int | None], ClaimVerdict],
) -> ClaimVerdict:
    """A claim with a range (``7B-13B × 2 B = 14-26 GB``): checked at both ends."""
    (low_left, low_right), (high_left, high_right) = readings
    left_ranged = low_left.v != high_left.v
    right_ranged = low_right.v != high_right.v
    if left_ranged and not right_ranged:
        return link.verdict(Verdict.SKIPPED, "a range on the left side only")
    low = judge(readings[0], 0)
    if not left_ranged:
        # A value against a range: it holds anywhere inside.
        high = judge(readings[1], 1)
        if low.verdict is Verdict.OK or high.verdict is Verdict.OK:
            return low if low.verdict is Verdict.OK else high
        if (
            low.computed is not None
            and low.claimed is not None
            and high.claimed is not None
            and low.claimed <= low.computed <= high.claimed
            and low.unit == high.unit
        ):
            return link.verdict(
                Verdict.OK, "holds (inside the range)", computed=low.computed, unit=low.unit
            )
        return _at_end(low, "low")
    high = judge(readings[1], 1)
    if low.verdict is not Verdict.OK and low.verdict is not Verdict.SKIPPED:
        return _at_end(low, "low")
    if high.verdict is not Verdict.OK and high.verdict is not Verdict.SKIPPED:
        return _at_end(high, "high")
    if low.verdict is Verdict.SKIPPED:
        return low
    return high


def _at_end(verdict: ClaimVerdict, end: str) -> ClaimVerdict:
    return replace(verdict, message=f"at the {end} end of the range, {verdict.message}")


def states_conversion(left: Value, right: Value) -> bool:
    """Whether two single quantities state a conversion (``1 node = 8 GPUs``)."""
    if left.dims != right.dims:
        if "flop" in dict(left.dims) and "flop" in dict(right.dims):
            return False  # FLOPs against FLOP/s: a slip the verdicts handle
        left_rest, left_counts = strip_counts(left.dims)
        right_rest, right_counts = strip_counts(right.dims)
        # "4.19e8 s = 116,400 GPU-hours": a count written on one side is soft.
        return left_rest != right_rest or bool(left_counts and right_counts)
    # Labelled counts ("1 epoch = 1.28M images"): both dimensionless, named apart.
    return (
        not left.dims
        and bool(left.unit)
        and bool(right.unit)
        and "%" not in (left.unit, right.unit)
        and left.unit != right.unit
    )


def converts_macs(left: Sequence[Token], right: Sequence[Token]) -> bool:
    """``4.1 GMACs × 2 = 8.2 GFLOPs``: the written ``× 2`` is the MAC-to-FLOP conversion."""
    if not any("MAC" in t.text or "MAC" in t.unit for t in left):
        return False
    if any("MAC" in t.text or "MAC" in t.unit for t in right):
        return False
    for index, token in enumerate(left):
        if token.kind is NUM and token.value == 2 and not token.unit:
            following = left[index + 1] if index + 1 < len(left) else None
            if following is None or following.kind is not NAME:
                return True
    return False


_MAGNITUDE_WRITTEN = re.compile(r"\de[-+]?\d|\d[KMGT]$")
"""A number written with its magnitude: an exponent (``800e12``) or a suffix (``10K``;
not ``B``, which may be bytes)."""


def claim_hints(tokens: Sequence[Token], lhs_end: int, start: int, end: int) -> Hints:
    """Units written in ``tokens[start:end]`` and bare numbers before ``lhs_end``.

    Used to read implicit rates (``$2.10`` per GPU-hour) and conversions by hand.
    """
    units: list[Value] = []
    bare: list[float] = []
    carried = 0
    hidden = 0
    for index in range(start, end):
        token = tokens[index]
        if token.kind is NUM and index < lhs_end:
            if _MAGNITUDE_WRITTEN.search(token.text):
                carried += 1
            elif not token.exact or abs(token.value) >= 1000:
                hidden += 1  # "102.4", "4096": its prefix may be in an unwritten unit
        if token.kind is NUM:
            if token.unit:
                units.append(unit_value(token.unit))
            elif index < lhs_end and not (
                index + 1 < lhs_end
                and tokens[index + 1].kind is NAME
                and is_unit_spelling(tokens[index + 1].text)
            ):
                bare.append(token.value)
        elif token.kind is NAME and is_unit_spelling(token.text):
            units.append(unit_value(token.text))
    return Hints(tuple(units), tuple(bare), magnitudes=carried > 0 and not hidden)

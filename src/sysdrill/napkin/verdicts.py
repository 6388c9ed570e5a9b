"""Judging one claim link: tolerances, units on one side, prefixes, corrected lines.

Tolerances (:mod:`sysdrill.napkin.tolerances`): ``=`` holds within 0.5 % relative,
or within the rounding of the number written on the right, and exactly when both
sides are integers written in full (``2048 / 128 = 16``); ``≈`` and ``~`` hold
within 5 %. The other readings a documented rule allows are in
:mod:`sysdrill.napkin.readings`; what a verdict says is in
:mod:`sysdrill.napkin.corrections`.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from sysdrill.napkin.corrections import number_text, ok_verdict, replaced, wrong_verdict
from sysdrill.napkin.lexer import NUM, OP, Token
from sysdrill.napkin.readings import (
    BARE_DIVISOR,
    LABEL_WORD,
    NEAR,
    SLIP,
    TIME_WRITTEN,
    conversion,
    holds_with_other_prefixes,
    implicit_rate,
    left_over_is_priced,
    mixes_prefixes,
    month_length,
    near,
    per_written_count,
    period_of,
    periods_differ,
    prefix_apart,
    whole_count,
)
from sysdrill.napkin.results import ClaimVerdict, Verdict
from sysdrill.napkin.tolerances import (
    APPROX_TOLERANCE,
    EQUAL_TOLERANCE,
    Hints,
    Link,
    as_written,
    holds,
    in_unit,
    is_integral,
    plain,
    same_kind,
    strip_counts,
)
from sysdrill.napkin.units import dims_div
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

ORDER_RELATIONS = frozenset({"<", ">", "≤", "≥", "≪", "≫"})
"""Comparisons: checked for their direction, not for a value."""
_FLIPPED = {"<": ">", ">": "<", "≤": "≥", "≥": "≤", "≪": "≫", "≫": "≪"}


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
    right = rounding_of_leading_literal(right, rhs_tokens)
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
        and is_integral(left.v / right.scale)
        and is_integral(right.v / right.scale)
    )
    unit = right.unit if right.scale else ""
    left_rest, left_counts = strip_counts(left.dims)
    right_rest, right_counts = strip_counts(right.dims)
    if left_rest == right_rest:
        # Counted things (GPUs, tokens, FLOPs...) are soft: napkin math often
        # writes them on one side only ("128 GPUs * 4 * 4 = 2048").
        if holds(left.v, right.v, relation, right, exact):
            return ok_verdict(make, left, right, unit)
        count = per_written_count(rhs_tokens) if right_counts and not left_counts else 0.0
        if count:
            each = Value(right.v * count, 0.0, 0.0, ulp=right.ulp * count, sig=right.sig)
            if holds(left.v, each.v, relation, each, False):
                # "$3.50 / 7.2 = $0.49/1M tokens": the price of the 1M tokens written.
                return make(Verdict.OK, "holds for the count the right side is per")
        if left_counts and not right_counts and left.scale:
            # "At 16 nodes = 2048 / 128": a counted label on the left, not a claim.
            return make(Verdict.SKIPPED, "a counted label on the left; not compared")
        if (
            not left.dims
            and right.dims
            and right.scale
            and holds(left.v, right.w, relation, plain(right), False)
        ):
            # "3×3×64×128 × 56×56 = 231M MACs": a bare count of the right side's unit.
            return make(Verdict.OK, "holds (a count of the right side's unit)", computed=left.v)
        if (
            right.unit == "%"
            and not left.dims
            and 100.0 in hints().bare
            and holds(left.v / 100, right.v, relation, right, False)
        ):
            # "1.8 / 34.7 × 100 = 5.18%": the author's × 100 makes the percentage.
            return make(Verdict.OK, "holds with × 100 as the conversion to a percentage")
        factor = conversion(left, right, relation, hints)
        if factor is not None:
            return make(
                Verdict.OK,
                f"holds with {number_text(factor)} as the conversion between units",
                computed=left.w,
                claimed=right.w,
            )
        if whole_count(left, right, relation):
            # "1,000 / 333 = 4 workers": a count of whole things, rounded up or down.
            return make(Verdict.OK, "holds as a whole count", computed=in_unit(left, right))
        if month_length(left, right, relation, link):
            return make(Verdict.OK, "holds with a month of 30 days", computed=in_unit(left, right))
        if (
            left.w
            and holds(left.w, right.w, relation, as_written(right), False)
            and periods_differ(link)
        ):
            # "5,500 × $3/hr = $16,500/month": the numbers as written agree and only
            # the periods differ; the 5,500 is likely hours per month, left unwritten.
            return link.abstain("the numbers as written agree but the periods of time differ")
        if holds_with_other_prefixes(left, right, relation, reread) or mixes_prefixes(
            left, right, relation, link
        ):
            # "960 KB × 4096 = 3.84 GB": 1024 for one step, 1000 for the next.
            return make(
                Verdict.PREFIX_AMBIGUOUS,
                "holds only if KB/MB/GB are read as powers of 1024 (or KiB/MiB/GiB as "
                "powers of 1000); write KiB/MiB/GiB for 1024-based sizes",
                computed=in_unit(left, right),
                claimed=in_unit(right, right),
                unit=unit,
            )
        if (
            not left.dims
            and right_counts
            and LABEL_WORD.search(link.lhs)
            and not near(left.v, right.v, NEAR)
        ):
            # "4096 × 4096 matmul = 33.6M FLOPs": labelled bare numbers far from a
            # count of another thing describe a shape; what they count is unwritten.
            return link.abstain("labelled bare numbers against a count of another thing")
        if not left.dims and not right.dims and prefix_apart(left.v, right.v, relation):
            # "400 × 380 = 152 kgCO2": a power of 1000 apart, a prefix in a word the
            # engine does not read as a unit.
            return link.abstain("the sides are a power of 1000 apart (a prefix not read?)")
        return wrong_verdict(link, in_unit(left, right), left, right, unit, line, norm, rhs_tokens)
    if not left_rest or not right_rest:
        # Units written on one side only: the bare number may be in base units
        # ("7B × 16 = 112 GB") or in the other side's written unit ("7 × 24 = 168 h").
        bare, other = (left, right) if not left_rest else (right, left)
        if holds(bare.v, other.v, relation, right, False) or holds(
            bare.v, other.w, relation, as_written(right), False
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
            factor = conversion(left, right, relation, hints)
            if factor is not None:
                # "200,000 GOPs / 1,000 = 200 TOPS": converted by hand (and a count
                # written as a rate, a slip the FLOPs rule above reads alike).
                return make(
                    Verdict.OK,
                    f"holds with {number_text(factor)} as the conversion between units",
                )
            if (
                prefix_apart(left.v, right.w, relation) or prefix_apart(left.v, right.v, relation)
            ) and not hints().magnitudes:
                # "102.4 × 60 = 6.1 GB": computed in MB and written in GB, or a slip of
                # 1000x; which one, the line does not say.
                return link.abstain("a bare number a power of 1000 from the quantity")
            if right.a != right.v and holds(left.v, right.a, relation, right, False):
                # "2 × 64 × 16 × 128 × 2 = 512 KB": 524,288 bytes is 512 KiB.
                return make(
                    Verdict.PREFIX_AMBIGUOUS,
                    "holds only if KB/MB/GB are read as powers of 1024; write KiB/MiB/GiB "
                    "for 1024-based sizes",
                    computed=left.v / right.scale,
                    claimed=in_unit(right, right),
                    unit=unit,
                )
            labelled = LABEL_WORD.search(link.lhs) is not None
            factor = NEAR if labelled else SLIP
            if near(left.v, right.v, factor) or (hints().magnitudes and not labelled):
                # "7B × 2 = 15 GB": the bare number is in base units (bytes);
                # "8.5e12 / 800e12 = 10.6 µs": with every magnitude written, base
                # units are its only reading (10.6 ms).
                computed = left.v / right.scale
                return wrong_verdict(link, computed, left, right, unit, line, norm, rhs_tokens)
            if near(left.v, right.w, factor):
                # "7 × 24 = 148 hours": the bare number is in the written unit.
                return wrong_verdict(link, left.v, left, right, unit, line, norm, rhs_tokens)
            # "4 reads + 4 writes = 80 MB": far from either reading, the labelled bare
            # numbers count something else (10 MB per access); nothing to judge.
            return link.abstain("a bare number against a quantity, far from every reading")
        if not bare.dims:
            return make(
                Verdict.SKIPPED, "units are written on one side only and neither reading matches"
            )
    if {"flop"} <= {k for k, _ in left.dims} & {k for k, _ in right.dims}:
        ratio = dict(left.dims).get("time", 0) - dict(right.dims).get("time", 0)
        if abs(ratio) == 1:
            if holds(left.v, right.v, relation, right, False):
                # "312 TFLOPs / 2.0 TB/s = 156 FLOPs/Byte": a rate written as a count.
                return make(Verdict.OK, "holds reading FLOPs and FLOP/s alike")
            return make(Verdict.SKIPPED, "FLOPs and FLOP/s are easily confused here; not compared")
    if (
        left.w
        and right.w
        and left_over_is_priced(left_rest, right_rest, link.lhs, hints)
        and holds(left.w, right.w, relation, as_written(right), False)
    ):
        # "2,000 GB × $0.03 = $60/month", "25 MB × 60 = 1.5 GB/s": the numbers as
        # written agree; a per-unit price or a per-period total is left unwritten.
        return make(
            Verdict.OK,
            "holds on the numbers as written (a per-unit or per-period unit left unwritten)",
            computed=left.w,
            claimed=right.w,
        )
    extra = dims_div(left_rest, right_rest)
    if (
        extra == (("time", 1),) or (extra == (("time", -1),) and BARE_DIVISOR.search(link.lhs))
    ) and holds(left.v, right.v, relation, right, False):
        # "270 W / 5.4e12 = 50 pJ/FLOP": the bare 5.4e12 is a rate (per second) left
        # unwritten; the values agree in base units.
        return make(Verdict.OK, "holds in base units (a per-second rate left unwritten)")
    period = period_of(link.rhs)
    if period and dims_div(right_rest, left_rest) == (("time", -1),):
        # "8 × 10 TB = 80 TB/month": a total per period; the left side is one period's.
        total = right.v * period
        if holds(left.v, total, relation, Value(total, 0.0, 0.0, ulp=right.ulp * period), False):
            return make(Verdict.OK, "holds as a total per period", computed=left.v)
    if (
        period
        and dims_div(right_rest, left_rest) == (("time", -1),)
        and not TIME_WRITTEN.search(link.lhs)
    ):
        computed = left.v / period / right.scale if right.scale else left.v / period
        return wrong_verdict(link, computed, left, right, unit, line, norm, rhs_tokens)
    return implicit_rate(link, left, right, relation, unit, hints(), rhs_tokens)


def rounding_of_leading_literal(right: Value, rhs_tokens: list[Token]) -> Value:
    """A right side that is a product or quotient (``$0.49/1M tokens``) rounds like its number.

    Its value is proportional to that number, so half a unit in the number's last
    digit bounds the rounding of the whole side; a sum has no such bound.
    """
    if right.ulp or right.why is not None:
        return right
    first = next((t for t in rhs_tokens if t.kind is NUM), None)
    if first is None or not first.value or not first.ulp:
        return right
    if any(
        t.kind is OP and (t.text == "+" or t.space_before and t.text in "-−") for t in rhs_tokens
    ):
        return right
    ulp = abs(first.ulp * right.v / first.value)
    return Value(
        right.v,
        right.w,
        right.a,
        right.dims,
        exact=right.exact,
        ulp=ulp,
        sig=first.sig,
        unit=right.unit,
        scale=right.scale,
    )


def compare_order(
    link: Link, left: Value, right: Value, line: str, norm: str, sign: Token
) -> ClaimVerdict:
    """Judge a comparison (``140 GB < 80 GB``): does it point the right way?"""
    make = link.verdict
    relation = link.relation
    if not (math.isfinite(left.v) and math.isfinite(right.v)):
        return make(Verdict.SKIPPED, "a number is too large or too small to compare")
    left_rest = strip_counts(left.dims)[0]
    right_rest = strip_counts(right.dims)[0]
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
    computed = in_unit(left, right) if left_rest == right_rest else one
    if holds:
        return make(
            Verdict.OK, "holds", computed=computed, claimed=in_unit(right, right), unit=unit
        )
    fixed = replaced(line, norm, sign.start, sign.end, _FLIPPED[relation])
    return make(
        Verdict.WRONG,
        f"{link.lhs} is {'more' if below else 'less'} than {link.rhs}, not {relation} it",
        computed=computed,
        claimed=in_unit(right, right),
        unit=unit,
        suggestion=fixed.strip(),
    )

"""Decide what a link claims and judge it: the fourth and fifth stages of the checker.

:class:`sysdrill.napkin.claims.ClaimChecker` segments a line, parses both sides of
every relation sign and hands each link to :class:`ClaimJudge`, which

1. decides what is claimed (:meth:`ClaimJudge.not_claimed`): a definition, a label
   annotated by a parenthesis, a value inside a phrase, a bound, a stated conversion
   or two counts of different things is skipped, never judged;
2. judges the rest (:meth:`ClaimJudge.judge`) with the documented readings: stated
   conventions (``@``, MACs), ranges, and the readings of
   :mod:`sysdrill.napkin.verdicts` and :mod:`sysdrill.napkin.readings`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import partial

from sysdrill.napkin.conventions import (
    claim_hints,
    converts_macs,
    judge_range,
    states_conversion,
)
from sysdrill.napkin.lexer import DOLLAR, NAME, NUM, OP, Token
from sysdrill.napkin.operands import (
    Side,
    annotates_label,
    bytes_for_billions,
    counts_a_label,
    first_term,
    no_reread,
    one_operand,
    per_counted_thing,
    per_thing,
)
from sysdrill.napkin.parser import Parser, is_label
from sysdrill.napkin.results import ClaimVerdict, Verdict
from sysdrill.napkin.units import is_unit_spelling
from sysdrill.napkin.values import ParseFailed, Value
from sysdrill.napkin.verdicts import (
    ORDER_RELATIONS,
    Hints,
    Link,
    compare,
    compare_order,
    same_kind,
)

__all__ = ["ClaimJudge"]


class ClaimJudge:
    """Judges the links of one block, reading the values defined on earlier lines.

    Args:
        variables: The block's defined values (shared with the checker, updated in place).
        define: Defines a value (a link ``N = 8`` read as a definition).
    """

    def __init__(self, variables: dict[str, Value], define: Callable[[str, Value], None]) -> None:
        self.variables = variables
        self._define = define

    def judge(
        self,
        line: str,
        norm: str,
        number: int,
        tokens: list[Token],
        rel: int,
        lhs: Side | None,
        rhs: Side | None,
        segment_start: int,
    ) -> ClaimVerdict:
        """The verdict on one link: skipped when nothing is claimed, else judged.

        Args:
            line: The line as written (for the corrected line).
            norm: The line normalised.
            number: The line number the verdict carries.
            tokens: The span's tokens.
            rel: Index of the relation sign.
            lhs: The left side, or None when no expression ends at the sign.
            rhs: The right side, or None when none starts after it.
            segment_start: Index of the first token after the previous hard stop.

        Returns:
            The verdict.
        """
        relation = tokens[rel].text
        if relation not in _RELATIONS:
            relation = "~"
        column = tokens[rel].start + 1
        lhs_text = norm[tokens[lhs.start].start : tokens[lhs.end - 1].end] if lhs else ""
        rhs_text = norm[tokens[rhs.start].start : tokens[rhs.end - 1].end] if rhs else ""
        link = Link(number, column, relation, lhs_text, rhs_text)
        if lhs is None or rhs is None:
            return link.verdict(Verdict.SKIPPED, "one side is not an expression")
        skipped = self.not_claimed(link, tokens, lhs, rhs, segment_start)
        if skipped is not None:
            if skipped.message == _IN_A_PHRASE and tokens[lhs.start - 1].text == "at":
                held = self._at_reading(link, line, norm, tokens, lhs, rhs, segment_start)
                if held is not None:
                    return held
            return skipped
        return self._judge_claim(link, line, norm, tokens, rel, lhs, rhs)

    def not_claimed(
        self, link: Link, tokens: list[Token], lhs: Side, rhs: Side, segment_start: int
    ) -> ClaimVerdict | None:
        """Stage 4, deciding what is claimed: a skipped verdict when nothing is, else None.

        A definition (``N = 8``, which defines ``N``), a parenthesis annotating a
        label, a value inside a phrase, a bound, a change after an arrow, a stated
        conversion, two counts of different things, or units naming a quantity.
        """
        verdict = link.verdict
        relation = link.relation
        left, right = lhs.value, rhs.value
        if annotates_label(tokens, lhs, segment_start):
            # "Long request (2048) = 85.6 s", "ViT-L (300M) vs ResNet-50 (25M) = 12x":
            # the parenthesis annotates a label; the claim is about the label.
            return verdict(Verdict.SKIPPED, "the left side annotates a label")
        if lhs.end - lhs.start == 1 and tokens[lhs.start].kind is NAME:
            name = tokens[lhs.start].text
            if relation == "=" and right.why is None and not rhs.truncated:
                if lhs.start == segment_start or len(name) <= 3:
                    self._define(name, right)
                return verdict(Verdict.SKIPPED, f"defines {name}")
            return verdict(Verdict.SKIPPED, "the left side is a name")
        if rhs.end - rhs.start == 1 and tokens[rhs.start].kind is NAME:
            return verdict(Verdict.SKIPPED, "the right side is a name")
        ranged = left.why == "range" or right.why == "range"
        for side in (left, right):
            if side.why is not None and side.why != "range":
                return verdict(Verdict.SKIPPED, f"not numeric ({side.why})")
        order = relation in ORDER_RELATIONS
        before = tokens[lhs.start - 1] if lhs.start > segment_start else None
        if (
            lhs.start > 0
            and tokens[lhs.start - 1].text in ORDER_RELATIONS
            and not tokens[lhs.start].space_before
        ):
            # "40 ms + <1 ms = ~40 ms": "<1 ms" is a bound, not the left side.
            return verdict(Verdict.SKIPPED, "the left side is a bound")
        # one_operand comes after the cheaper tests below: it walks the side's tokens.
        if (
            not order
            and before is not None
            and before.kind is NAME
            and before.text.lower() not in _LEAD_WORDS
            and (left.scale or one_operand(tokens, lhs))
        ):
            # "TP of 8 and PP of 4 = 32 GPUs": a lone number inside a phrase is not
            # the left side of the claim; the phrase is.
            return verdict(Verdict.SKIPPED, _IN_A_PHRASE)
        first = tokens[lhs.start]
        if (
            first.kind is NAME
            and before is not None
            and before.kind in (NAME, NUM)
            and before.text.lower() not in _LEAD_WORDS
            and is_unit_spelling(first.text)
            and first.text not in self.variables
        ):
            # "46.7B total params × 2 B", "Memory per GPU ≤ 80 GB": a unit word that
            # continues a phrase does not start the left side.
            return verdict(Verdict.SKIPPED, "the left side starts inside a phrase")
        if lhs.truncated or rhs.truncated:
            return verdict(Verdict.SKIPPED, "the expression continues beyond what could be read")
        if relation == "→" and left.scale:
            return verdict(Verdict.SKIPPED, "an arrow after a single value marks a change")
        if (
            not order
            and right.scale
            and not ranged
            and (left.scale or one_operand(tokens, lhs))
            and states_conversion(left, right)
        ):
            # "1 node = 8 GPUs", "1 epoch = 1.28M images", "133 sessions/node = 178
            # GB": a stated conversion.
            return verdict(Verdict.SKIPPED, "a stated conversion between units, not arithmetic")
        if (
            not order
            and left.scale
            and counts_a_label(left.unit)
            and not right.scale
            and not one_operand(tokens, rhs)
        ):
            # "3 banks = 1.0 + 9.9 = 10.9 uA": things counted, then what they draw.
            return verdict(Verdict.SKIPPED, "a count of things, then a computation about them")
        if (
            not order
            and left.scale
            and right.scale
            and left.unit != right.unit
            and (counts_a_label(left.unit) or counts_a_label(right.unit))
        ):
            # "13B weights = 65 G-ops": two counts of different things.
            return verdict(Verdict.SKIPPED, "two single values counting different things")
        if (
            first.kind is not NUM
            and not any(tokens[i].kind is NUM for i in range(lhs.start, lhs.end))
        ) and all(
            tokens[i].kind is not NAME or is_unit_spelling(tokens[i].text)
            for i in range(lhs.start, lhs.end)
        ):
            # "$/token = $2.50/h ÷ ...": units alone name the quantity computed.
            return verdict(Verdict.SKIPPED, "the left side names a unit")
        if first.kind is not NUM and not any(
            tokens[i].kind is NUM or (tokens[i].kind is NAME and tokens[i].text in self.variables)
            for i in range(lhs.start, lhs.end)
        ):
            # "Ops/sequence/epoch = 6 × 2B × 512": no number and no defined value, a label.
            return verdict(Verdict.SKIPPED, "the left side has no number")
        return None

    def _judge_claim(
        self,
        link: Link,
        line: str,
        norm: str,
        tokens: list[Token],
        rel: int,
        lhs: Side,
        rhs: Side,
    ) -> ClaimVerdict:
        """Stage 5, judging a claim with the readings its conventions allow."""
        verdict = link.verdict
        left, right = lhs.value, rhs.value
        lhs_text, rhs_text = link.lhs, link.rhs
        order = link.relation in ORDER_RELATIONS
        ranged = left.why == "range" or right.why == "range"
        flags = (
            self._reading(tokens, lhs, rhs, norm)
            if "@" in lhs_text or "MAC" in lhs_text or "MAC" in rhs_text
            else {}
        )
        hints = partial(claim_hints, tokens, lhs.end, lhs.start, rhs.end)
        if not (flags or ranged):
            # The common case: no stated convention, no range.
            if order:
                return compare_order(link, left, right, line, norm, tokens[rel])
            reread = partial(self._read, tokens, lhs, rhs, None, reverse=True)
            rhs_tokens = tokens[rhs.start : rhs.end]
            judged = compare(link, left, right, line, norm, rhs_tokens, reread, hints)
            if judged.verdict is Verdict.OK:
                return judged
            return self._other_readings(judged, link, tokens, lhs, rhs, left, line, norm, hints)

        def judge(pair: tuple[Value, Value], end: int | None) -> ClaimVerdict:
            one, other = pair
            if one.why is not None or other.why is not None:
                return verdict(Verdict.SKIPPED, f"not numeric ({one.why or other.why})")
            if order:
                return compare_order(link, one, other, line, norm, tokens[rel])
            # Binary prefixes read as decimal (GiB as GB): only paid for when the
            # claim does not hold as written.
            reread = partial(self._read, tokens, lhs, rhs, end, reverse=True, **flags)
            rhs_tokens = tokens[rhs.start : rhs.end]
            if end == 1:
                rhs_tokens.reverse()  # the high end's number is the one to correct
            return compare(link, one, other, line, norm, rhs_tokens, reread, hints)

        ends = (0, 1) if ranged else (None,)
        readings = [self._read(tokens, lhs, rhs, end, **flags) for end in ends]
        if len(readings) == 1:
            return judge(readings[0], None)
        return judge_range(link, readings, judge)

    def _at_reading(
        self,
        link: Link,
        line: str,
        norm: str,
        tokens: list[Token],
        lhs: Side,
        rhs: Side,
        segment_start: int,
    ) -> ClaimVerdict | None:
        """``2 MB transmit time at 50 GB/s = 40 µs``: "at" between two quantities is ``@``.

        The quantity before "at" (prose words may stand between) and the value after it
        are read as ``A @ B``, dividing or multiplying to the right side's dimension.
        Only a reading that holds is returned: otherwise the phrase stays unread.
        """
        index = lhs.start - 2
        while index > segment_start and tokens[index].kind is NAME:
            word = tokens[index].text
            if not (is_unit_spelling(word) or is_label(word) or _ACRONYM.fullmatch(word)):
                return None
            index -= 1
        if index < segment_start or tokens[index].kind is not NUM:
            return None
        start = index - 1 if index > segment_start and tokens[index - 1].kind is DOLLAR else index
        end = index + 1
        while end < lhs.start - 1 and is_unit_spelling(tokens[end].text):
            end += 1
        at = tokens[lhs.start - 1]
        joined = [
            *tokens[start:end],
            Token(OP, "@", at.start, at.end, True),
            *tokens[lhs.start : lhs.end],
        ]
        for divides in (True, False):
            parser = Parser(joined, self.variables, at_divides=divides)
            try:
                value, stop = parser.parse(0, len(joined))
            except (ParseFailed, RecursionError):
                return None
            if stop != len(joined) or value.why is not None:
                return None
            if not same_kind(value, rhs.value):
                continue
            rhs_tokens = tokens[rhs.start : rhs.end]
            judged = compare(link, value, rhs.value, line, norm, rhs_tokens, no_reread, _no_hints)
            if judged.verdict is Verdict.OK:
                return link.verdict(Verdict.OK, "holds reading 'at' as @")
        return None

    def _reading(self, tokens: list[Token], lhs: Side, rhs: Side, norm: str) -> dict[str, bool]:
        """Conventions the written claim states, as parser flags."""
        flags: dict[str, bool] = {}
        left_tokens = tokens[lhs.start : lhs.end]
        if any(t.kind is OP and t.text == "@" for t in left_tokens):
            # "14 GB @ 3.35 TB/s" divides, "8 GPUs @ $2/h" multiplies: the reading
            # whose dimension is the right side's.
            divided = self._read(tokens, lhs, rhs, None, at_divides=True)[0]
            if (
                divided.why is None
                and same_kind(divided, rhs.value)
                and not same_kind(lhs.value, rhs.value)
            ):
                flags["at_divides"] = True
        if converts_macs(left_tokens, tokens[rhs.start : rhs.end]) or "flop" not in norm.lower():
            # A MAC is 2 FLOPs only where the line speaks of both; alone ("5M MACs /
            # 100M MACs/s = 50 ms") MACs are counted as themselves.
            flags["mac_as_flop"] = True
        return flags

    def _other_readings(
        self,
        judged: ClaimVerdict,
        link: Link,
        tokens: list[Token],
        lhs: Side,
        rhs: Side,
        left: Value,
        line: str,
        norm: str,
        hints: Callable[[], Hints],
    ) -> ClaimVerdict:
        """Readings a documented rule allows when the claim does not hold as first read.

        ``250K × 4B = 1 MB``: a glued ``4B`` that multiplies a count is 4 bytes when
        the result is in bytes. ``= 864 weights + 32 biases = 896``: a right side
        whose first term is the left side continues the computation.
        """
        rhs_tokens = tokens[rhs.start : rhs.end]
        first = first_term(tokens, rhs)
        if first is not None:
            parser = Parser(tokens, self.variables)
            try:
                head = parser.parse(rhs.start, first, right_side=True)[0]
            except (ParseFailed, RecursionError):
                head = None
            if head is not None and head.why is None and (same_kind(left, head) or not left.dims):
                again = compare(link, left, head, line, norm, rhs_tokens, no_reread, hints)
                if again.verdict is Verdict.OK:
                    return link.verdict(
                        Verdict.OK, "holds; the right side continues the computation"
                    )
        count = per_counted_thing(tokens, lhs, rhs)
        if count is not None:
            # "10K experiments × 10K steps × 1 ms = 10 s/experiment": per experiment.
            each = Value(left.v / count, left.w / count, left.a / count, left.dims)
            again = compare(link, each, rhs.value, line, norm, rhs_tokens, no_reread, hints)
            if again.verdict is Verdict.OK:
                return link.verdict(
                    Verdict.OK,
                    f"holds per counted thing (the left side counts {count:,.0f} of them)",
                    computed=again.computed,
                    claimed=again.claimed,
                    unit=again.unit,
                )
        thing = per_thing(tokens, rhs)
        if judged.verdict is Verdict.UNIT_MISMATCH and thing:
            # "1 sample / 50 ms ≈ 5 samples per inference": a rate against a total per
            # a thing whose duration the line does not write.
            return link.abstain(f"a total per {thing}, whose duration is not written")
        swapped = bytes_for_billions(tokens, lhs, rhs.value)
        if swapped is not None:
            parser = Parser(swapped, self.variables)
            try:
                value = parser.parse(lhs.start, lhs.end)[0]
            except (ParseFailed, RecursionError):  # pragma: no cover - same tokens parse
                return judged
            if value.why is None:
                reread = partial(self._read, swapped, lhs, rhs, None, reverse=True)
                again = compare(link, value, rhs.value, line, norm, rhs_tokens, reread, hints)
                if again.verdict in (Verdict.OK, Verdict.PREFIX_AMBIGUOUS) or judged.unsure:
                    return again
        return judged

    def _read(
        self,
        tokens: list[Token],
        lhs: Side,
        rhs: Side,
        range_end: int | None,
        **flags: bool,
    ) -> tuple[Value, Value]:
        """Both sides read again with other parser settings."""
        parser = Parser(tokens, self.variables, range_end=range_end, **flags)
        try:
            left = parser.parse(lhs.start, lhs.end)[0]
            right = parser.parse(rhs.start, rhs.end, right_side=True)[0]
        except (ParseFailed, RecursionError):  # pragma: no cover - read alike before
            return Value.bad("unreadable"), Value.bad("unreadable")
        return left, right


_IN_A_PHRASE = "the left side is part of a phrase"
_ACRONYM = re.compile(r"[A-Z]{2,4}")
"""A short uppercase tag after a number (``0.5 FTE``): what it counts."""


def _no_hints() -> Hints:
    return Hints((), ())


_LEAD_WORDS = frozenset({"a", "an", "the", "so", "thus", "hence", "then", "therefore"})
"""Words before a claim's left side that do not make it part of a phrase."""
_RELATIONS = frozenset({"=", "≈", "~", "→"}) | ORDER_RELATIONS

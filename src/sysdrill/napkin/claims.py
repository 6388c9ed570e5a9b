"""Find and check the claims (``lhs = rhs``, ``≈``, ``~`` chains) in napkin-math text.

Each line is normalised and tokenised; every relation sign splits it into links.
The left side of a link is the longest expression that ends at the sign, the
right side the longest one that starts after it. A link is judged only when both
sides evaluate to numbers; anything symbolic (``16N``, ``Per-GPU Batch``), a
range (``5-7 W``), a comparison or prose is *skipped*, because a false ``wrong``
on a correct answer costs more than a missed check.

How a link whose sides are numbers is judged (tolerances, units written on one
side, prefixes) is :mod:`sysdrill.napkin.verdicts`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from functools import partial
from typing import NamedTuple

from sysdrill.napkin.conventions import (
    claim_hints,
    converts_macs,
    judge_range,
    states_conversion,
)
from sysdrill.napkin.lexer import (
    Kind,
    Token,
    digits_change,
    normalize,
    refill,
    scan,
    shape_of,
    tokenize,
)
from sysdrill.napkin.parser import Chain, Parser, chain_of, evaluate_chain, is_label
from sysdrill.napkin.results import ClaimVerdict, Verdict
from sysdrill.napkin.units import is_unit_spelling
from sysdrill.napkin.values import FUNCTIONS, ParseFailed, Value
from sysdrill.napkin.verdicts import (
    ORDER_RELATIONS,
    Link,
    compare,
    compare_order,
    same_kind,
)

__all__ = ["ClaimChecker", "check_claims", "doubtful_claims", "iter_claim_lines"]

MAX_LINE_CHARS = 2000
"""Longer lines are skipped whole (no claim is that long; hostile input might be)."""
MAX_SIDE_TOKENS = 64
"""Longest left side searched for, in tokens."""

_CHUNK_BREAK = re.compile(r"[:;?!|\"≠±]|\.(?!\d)|,(?!\d{3}(?!\d))")
_CLAIM_CHUNK = re.compile(r"[=≈~→<>≤≥≪≫]")
_GLUED_EQUALS = re.compile(r"[\w)]=\S")
_DOUBLE_RELATION = re.compile(r"[=≈~]\s*[=≈~]")
_DIGIT = re.compile(r"\d")
_LIST_MARKER = re.compile(r"^(\s*)(?:[-*+•]|\d{1,2}[.)]|\([a-zA-Z0-9]\))(\s+)")
_OPERAND_END = (Kind.NUM, Kind.RP, Kind.PCT)
_STARTS = (Kind.NUM, Kind.NAME, Kind.LP, Kind.DOLLAR, Kind.SQRT, Kind.OP)


_Span = tuple[int, int, bool, Chain | None] | None
"""A side's token span, whether it was truncated, and its chain when it is a plain
chain of literals (:func:`chain_of`); None when there is no side."""
_Step = tuple[int, int, _Span, _Span]
"""One planned link: relation index, segment start, left span, right span."""

MAX_PLANS = 16384
"""Claim plans kept per process, by shape (cleared when full). A plan takes about
2 KB. The real-style bench vault (10,711 items) holds about 12,700 distinct shapes: a
store that fills and clears several times within one vault plans many shapes twice."""


class _Plan(NamedTuple):
    """A stored claim plan: where each link's sides are in a span of one shape.

    Immutable, so one plan serves every checker and thread that meets its shape:
    a reuse copies its tokens with the new span's numbers (:func:`refill`).
    """

    tokens: tuple[Token, ...]
    """The tokens of the span the plan was made from, after its rewrites."""
    changing: tuple[int, ...]
    """Indices of the tokens whose text has digits (:func:`digits_change`)."""
    offset: int
    """Where that span started in its line."""
    steps: tuple[_Step, ...]
    """The planned links."""


_PLANS: dict[tuple[str, tuple[str, ...]], _Plan] = {}
"""Plans by shape and the defined names they read, shared by every checker and thread.
Safe to share: plans are immutable, and a lookup, an insert or a clear is one dict
operation (a plan lost to a concurrent clear is only made again)."""


class _LineResult(NamedTuple):
    """What checking one line gave, kept to answer the same line again.

    A line's verdicts depend only on its text and on the values defined earlier
    whose names occur in it, so a line met again with those values unchanged
    gets the stored verdicts and makes the same definitions.
    """

    norm: str
    """The line normalised (the names it can read are substrings of it)."""
    reads: tuple[tuple[object, ...], ...]
    """The defined values named in ``norm`` when it was checked (:func:`_reads`)."""
    number: int
    """The line number the verdicts carry."""
    verdicts: tuple[ClaimVerdict, ...]
    doubts: tuple[ClaimVerdict, ...]
    """The verdicts that are neither ok nor skipped (:func:`doubtful_claims`)."""
    defines: tuple[tuple[str, Value], ...]
    """The values the line defined, in order."""


MAX_LINES = 1 << 16
"""Checked lines kept per process (cleared when full)."""

_QUIET = frozenset({Verdict.OK, Verdict.SKIPPED})
"""Verdicts that are not findings: the claim holds, or it is not checked."""

_LINES: dict[str, _LineResult] = {}
"""Line results by the line as written, shared like :data:`_PLANS`: entries are
immutable (their values are never changed in place: the parser copies a defined
value when it reads it), and a lookup, an insert or a clear is one dict operation."""


def _reads(variables: dict[str, Value], norm: str) -> tuple[tuple[object, ...], ...]:
    """The defined values a normalised line can read, by every field the parser uses."""
    return tuple(
        (name, value.v, value.w, value.a, value.dims, value.exact)
        for name, value in variables.items()
        if name in norm
    )


def _renumbered(verdict: ClaimVerdict, number: int) -> ClaimVerdict:
    """The verdict on another line (built directly: ``dataclasses.replace`` costs more)."""
    return ClaimVerdict(
        number,
        verdict.column,
        verdict.relation,
        verdict.lhs,
        verdict.rhs,
        verdict.verdict,
        verdict.computed,
        verdict.claimed,
        verdict.unit,
        verdict.message,
        verdict.suggestion,
    )


class _Side:
    """One side of a link: its token span and value."""

    __slots__ = ("end", "start", "truncated", "value")

    def __init__(self, start: int, end: int, value: Value, *, truncated: bool = False) -> None:
        self.start = start
        self.end = end
        self.value = value
        self.truncated = truncated


class ClaimChecker:
    """Checks the lines of one block, remembering values defined on earlier lines."""

    def __init__(self) -> None:
        self.variables: dict[str, Value] = {}
        self._defined: list[tuple[str, Value]] = []

    def check_line(self, line: str, number: int) -> list[ClaimVerdict]:
        """Verdicts on the links of one line.

        Args:
            line: The line as written.
            number: Its 1-based line number, copied into the verdicts.

        Returns:
            One verdict per relation sign that links two sides, in order.
        """
        if len(line) > MAX_LINE_CHARS or not _may_claim(line):
            return []
        return self._check_claim_line(line, number)

    def _check_claim_line(self, line: str, number: int) -> list[ClaimVerdict]:
        """:meth:`check_line` on a line known to be short enough and to hold a claim."""
        result = self._line_result(line, number)
        if result.number == number:
            return list(result.verdicts)
        return [_renumbered(verdict, number) for verdict in result.verdicts]

    def _line_result(self, line: str, number: int) -> _LineResult:
        """The stored result of a line met before with the same values, else a fresh one.

        Either way the values the line defines are defined; the verdicts carry the
        line number they were made with (``result.number``).
        """
        known = _LINES.get(line)
        if known is not None and (
            # Most lines read no defined value: no need to look for one.
            (not self.variables and not known.reads)
            or _reads(self.variables, known.norm) == known.reads
        ):
            for name, value in known.defines:
                self.variables[name] = value
            return known
        self._defined = []
        verdicts, norm, reads = self._check_fresh(line, number)
        doubts = tuple(v for v in verdicts if v.verdict not in _QUIET)
        if len(_LINES) >= MAX_LINES:
            _LINES.clear()
        result = _LineResult(norm, reads, number, tuple(verdicts), doubts, tuple(self._defined))
        _LINES[line] = result
        return result

    def _check_fresh(
        self, line: str, number: int
    ) -> tuple[list[ClaimVerdict], str, tuple[tuple[object, ...], ...]]:
        """Verdicts on a line read afresh, its normalised text and what it could read."""
        marker = _LIST_MARKER.match(line)
        source = line
        if marker is not None:
            source = " " * marker.end() + line[marker.end() :]
        norm = normalize(source)
        reads = _reads(self.variables, norm)
        verdicts: list[ClaimVerdict] = []
        for start, end in _chunks(norm):
            verdicts.extend(self._check_chunk(line, norm, number, norm[start:end], start))
        return verdicts, norm, reads

    def _check_chunk(
        self, line: str, norm: str, number: int, chunk: str, offset: int
    ) -> list[ClaimVerdict]:
        key: tuple[str, tuple[str, ...]] | None = None
        # A glued setting (TP=8) defines values while it is read: never reused.
        if not _GLUED_EQUALS.search(chunk):
            variables = self.variables
            used = tuple(name for name in variables if name in chunk) if variables else ()
            key = (shape_of(chunk), used)
            stored = _PLANS.get(key)
            if stored is not None:
                tokens = refill(
                    stored.tokens, chunk, offset, offset - stored.offset, stored.changing
                )
                return self._run_plan(line, norm, number, tokens, stored.steps, None)
        tokens = tokenize(chunk, offset, scan(chunk))
        # Each rewrite runs only when the chunk has what it rewrites (this is the hot path).
        if " (" in chunk:
            tokens = _drop_annotations(tokens)
        if key is None:
            tokens = self._fold_assignments(tokens)
        if "~" in chunk or "≈" in chunk or _DOUBLE_RELATION.search(chunk):
            tokens = _fold_approximations(tokens)
        plan, sides = self._plan(tokens)
        if key is not None:
            if len(_PLANS) >= MAX_PLANS:
                _PLANS.clear()
            _PLANS[key] = _Plan(tuple(tokens), digits_change(tokens), offset, tuple(plan))
        return self._run_plan(line, norm, number, tokens, plan, sides)

    def _plan(self, tokens: list[Token]) -> tuple[list[_Step], list[tuple[_Side | None, ...]]]:
        """Where each link's sides are: the part of checking that depends only on shape."""
        stops: list[int] = []
        relations: list[int] = []
        depth = 0
        for index, token in enumerate(tokens):
            kind = token.kind
            if kind is Kind.REL:
                relations.append(index)
                stops.append(index)
            elif kind is Kind.CMP or kind is Kind.PUNCT:
                stops.append(index)
            elif kind is Kind.LP:
                depth += 1
            elif kind is Kind.RP:
                depth = max(0, depth - 1)
            elif kind is Kind.COMMA and depth == 0:
                stops.append(index)
        plan: list[_Step] = []
        sides: list[tuple[_Side | None, ...]] = []
        if not relations:
            return plan, sides
        parser = Parser(tokens, self.variables)
        count = len(tokens)
        for rel in relations:
            position = stops.index(rel)
            left_stop = stops[position - 1] if position else -1
            right_stop = stops[position + 1] if position + 1 < len(stops) else count
            lhs = _left_side(parser, tokens, left_stop + 1, rel)
            rhs = _right_side(parser, tokens, rel + 1, right_stop)
            if lhs is None and rhs is None:
                continue
            plan.append((rel, left_stop + 1, _span(tokens, lhs), _span(tokens, rhs)))
            sides.append((lhs, rhs))
        return plan, sides

    def _run_plan(
        self,
        line: str,
        norm: str,
        number: int,
        tokens: list[Token],
        plan: Sequence[_Step],
        sides: list[tuple[_Side | None, ...]] | None,
    ) -> list[ClaimVerdict]:
        """Evaluate and judge the planned links (``sides`` given when just parsed)."""
        verdicts = []
        parser: Parser | None = None
        for index, (rel, segment_start, lhs_span, rhs_span) in enumerate(plan):
            if sides is not None:
                lhs, rhs = sides[index]
            else:
                if parser is None:
                    parser = Parser(tokens, self.variables)
                lhs = _reparse(parser, lhs_span)
                rhs = _reparse(parser, rhs_span, right_side=True)
            verdict = self._judge(line, norm, number, tokens, rel, lhs, rhs, segment_start)
            if verdict is not None:
                verdicts.append(verdict)
        return verdicts

    def _fold_assignments(self, tokens: list[Token]) -> list[Token]:
        """Turn glued ``TP=8``-style settings into one opaque name, defining the value."""
        if not any(t.kind is Kind.REL and t.text == "=" for t in tokens):
            return tokens
        out: list[Token] = []
        index = 0
        parser = Parser(tokens, self.variables)
        while index < len(tokens):
            token = tokens[index]
            if (
                token.kind is Kind.REL
                and token.text == "="
                and not token.space_before
                and out
                and out[-1].kind is Kind.NAME
                and index + 1 < len(tokens)
                and not tokens[index + 1].space_before
                and not (len(out) > 1 and out[-2].kind is Kind.OP and not out[-1].space_before)
            ):
                name = out.pop()
                try:
                    value, stop = parser.parse(index + 1, _assignment_end(tokens, index + 1))
                except ParseFailed:
                    value, stop = Value.bad("symbolic"), index + 2
                stop = max(stop, index + 2)
                if value.why is None:
                    self._define(name.text, value)
                text = "".join(t.text for t in tokens[index - 1 : stop])
                out.append(
                    Token(Kind.NAME, text, name.start, tokens[stop - 1].end, name.space_before)
                )
                index = stop
                continue
            out.append(token)
            index += 1
        return out

    def _define(self, name: str, value: Value) -> None:
        # Single letters may shadow units (B = 64, s = 2048): units still win after
        # a number or a slash, where the parser reads them first.
        if (
            (is_unit_spelling(name) and len(name) > 1)
            or name in FUNCTIONS
            or name in ("π", "pi", "x")
        ):
            return
        self.variables[name] = value
        self._defined.append((name, value))

    def _judge(
        self,
        line: str,
        norm: str,
        number: int,
        tokens: list[Token],
        rel: int,
        lhs: _Side | None,
        rhs: _Side | None,
        segment_start: int,
    ) -> ClaimVerdict | None:
        relation = tokens[rel].text
        if relation not in _RELATIONS:
            relation = "~"
        column = tokens[rel].start + 1
        lhs_text = norm[tokens[lhs.start].start : tokens[lhs.end - 1].end] if lhs else ""
        rhs_text = norm[tokens[rhs.start].start : tokens[rhs.end - 1].end] if rhs else ""

        link = Link(number, column, relation, lhs_text, rhs_text)
        verdict = link.verdict

        if lhs is None or rhs is None:
            return verdict(Verdict.SKIPPED, "one side is not an expression")
        left, right = lhs.value, rhs.value
        if lhs.end - lhs.start == 1 and tokens[lhs.start].kind is Kind.NAME:
            name = tokens[lhs.start].text
            if relation == "=" and right.why is None and not rhs.truncated:
                if lhs.start == segment_start or len(name) <= 3:
                    self._define(name, right)
                return verdict(Verdict.SKIPPED, f"defines {name}")
            return verdict(Verdict.SKIPPED, "the left side is a name")
        if rhs.end - rhs.start == 1 and tokens[rhs.start].kind is Kind.NAME:
            return verdict(Verdict.SKIPPED, "the right side is a name")
        ranged = left.why == "range" or right.why == "range"
        for side in (left, right):
            if side.why is not None and side.why != "range":
                return verdict(Verdict.SKIPPED, f"not numeric ({side.why})")
        order = relation in ORDER_RELATIONS
        before = tokens[lhs.start - 1] if lhs.start > segment_start else None
        if (
            not order
            and left.scale
            and before is not None
            and before.kind is Kind.NAME
            and before.text.lower() not in _LEAD_WORDS
        ):
            # "TP of 8 and PP of 4 = 32 GPUs": a lone number inside a phrase is not
            # the left side of the claim; the phrase is.
            return verdict(Verdict.SKIPPED, "the left side is part of a phrase")
        first = tokens[lhs.start]
        if (
            first.kind is Kind.NAME
            and before is not None
            and before.kind in (Kind.NAME, Kind.NUM)
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
            and left.scale
            and right.scale
            and not ranged
            and states_conversion(left, right)
        ):
            # "1 node = 8 GPUs", "1 epoch = 1.28M images": a stated conversion.
            return verdict(Verdict.SKIPPED, "a stated conversion between units, not arithmetic")
        if (
            first.kind is not Kind.NUM
            and not any(tokens[i].kind is Kind.NUM for i in range(lhs.start, lhs.end))
        ) and all(
            tokens[i].kind is not Kind.NAME or is_unit_spelling(tokens[i].text)
            for i in range(lhs.start, lhs.end)
        ):
            # "$/token = $2.50/h ÷ ...": units alone name the quantity computed.
            return verdict(Verdict.SKIPPED, "the left side names a unit")

        flags = self._reading(tokens, lhs, rhs) if "@" in lhs_text or "MAC" in lhs_text else {}
        hints = partial(claim_hints, tokens, lhs.end, lhs.start, rhs.end)
        if not (flags or ranged):
            # The common case: no stated convention, no range.
            if order:
                return compare_order(link, left, right, line, norm, tokens[rel])
            reread = partial(self._read, tokens, lhs, rhs, None, reverse=True)
            rhs_tokens = tokens[rhs.start : rhs.end]
            return compare(link, left, right, line, norm, rhs_tokens, reread, hints)

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

    def _reading(self, tokens: list[Token], lhs: _Side, rhs: _Side) -> dict[str, bool]:
        """Conventions the written claim states, as parser flags."""
        flags: dict[str, bool] = {}
        left_tokens = tokens[lhs.start : lhs.end]
        if any(t.kind is Kind.OP and t.text == "@" for t in left_tokens):
            # "14 GB @ 3.35 TB/s" divides, "8 GPUs @ $2/h" multiplies: the reading
            # whose dimension is the right side's.
            divided = self._read(tokens, lhs, rhs, None, at_divides=True)[0]
            if (
                divided.why is None
                and same_kind(divided, rhs.value)
                and not same_kind(lhs.value, rhs.value)
            ):
                flags["at_divides"] = True
        if converts_macs(left_tokens, tokens[rhs.start : rhs.end]):
            flags["mac_as_flop"] = True
        return flags

    def _read(
        self,
        tokens: list[Token],
        lhs: _Side,
        rhs: _Side,
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


_LEAD_WORDS = frozenset({"a", "an", "the", "so", "thus", "hence", "then", "therefore"})
"""Words before a claim's left side that do not make it part of a phrase."""
_RELATIONS = frozenset({"=", "≈", "~", "→"}) | ORDER_RELATIONS


def _span(tokens: list[Token], side: _Side | None) -> _Span:
    if side is None:
        return None
    return side.start, side.end, side.truncated, chain_of(tokens, side.start, side.end)


def _reparse(parser: Parser, span: _Span, *, right_side: bool = False) -> _Side | None:
    """Evaluate a planned side again, with this span's numbers."""
    if span is None:
        return None
    start, end, truncated, chain = span
    if chain is not None:
        # A plain chain of literals: fold it without parsing.
        return _Side(start, end, evaluate_chain(parser.tokens, chain), truncated=truncated)
    try:
        value, _ = parser.parse(start, end, right_side=right_side)
    except (ParseFailed, RecursionError):  # pragma: no cover - same shape parses alike
        return None
    return _Side(start, end, value, truncated=truncated)


def _assignment_end(tokens: list[Token], start: int) -> int:
    """End of the value of a ``NAME=value`` setting: the next separator or spaced name."""
    index = start
    while index < len(tokens):
        token = tokens[index]
        if token.kind in (Kind.COMMA, Kind.PUNCT, Kind.CMP, Kind.REL):
            break
        if token.kind is Kind.OP and token.space_before:
            break
        if index > start and token.kind is Kind.NAME and not is_unit_spelling(token.text):
            break
        index += 1
    return max(index, start + 1)


def _chunks(norm: str) -> Iterator[tuple[int, int]]:
    """Spans of a normalised line between hard boundaries that hold a relation sign.

    No expression crosses a colon, a sentence's full stop, a list comma or an
    arrow, so only these short spans are tokenised, not the surrounding prose.
    """
    start = 0
    for match in _CHUNK_BREAK.finditer(norm):
        at = match.start()
        if norm[at] == "," and norm.count("(", start, at) > norm.count(")", start, at):
            continue  # a comma between function arguments: min(8, 16)
        if _CLAIM_CHUNK.search(norm, start, at):
            yield start, at
        start = match.end()
    if _CLAIM_CHUNK.search(norm, start):
        yield start, len(norm)


def _drop_annotations(tokens: list[Token]) -> list[Token]:
    """Remove spaced parenthetical labels after an operand: ``4 (Micro-Batch)``."""
    if not any(t.kind is Kind.LP for t in tokens):
        return tokens
    out: list[Token] = []
    index = 0
    while index < len(tokens):
        token = tokens[index]
        if (
            token.kind is Kind.LP
            and token.space_before
            and out
            and out[-1].kind in (Kind.NUM, Kind.NAME, Kind.RP, Kind.PCT)
        ):
            close = index + 1
            while close < len(tokens) and tokens[close].kind is Kind.NAME:
                close += 1
            if close > index + 1 and close < len(tokens) and tokens[close].kind is Kind.RP:
                index = close + 1
                continue
        out.append(token)
        index += 1
    return out


def _fold_approximations(tokens: list[Token]) -> list[Token]:
    """Drop a ``~`` that means "about" (not after a quantity); ``= ~x`` becomes ``≈``."""
    out: list[Token] = []
    for token in tokens:
        if token.kind is Kind.REL and token.text in ("~", "≈") and out:
            previous = out[-1]
            if previous.kind is Kind.REL:
                out[-1] = previous._replace(text="≈")
                continue
            after_quantity = previous.kind in _OPERAND_END or (
                previous.kind is Kind.NAME and is_unit_spelling(previous.text)
            )
            if token.text == "~" and not after_quantity:
                continue
        elif token.kind is Kind.REL and token.text == "~":
            continue
        out.append(token)
    return out


def _left_side(parser: Parser, tokens: list[Token], start: int, rel: int) -> _Side | None:
    # Longest first; a left side longer than MAX_SIDE_TOKENS is not tried, which
    # keeps hostile lines ("(1+(1+(1+...") from costing quadratic time.
    for begin in range(max(start, rel - MAX_SIDE_TOKENS), rel):
        if tokens[begin].kind not in _STARTS:
            continue
        if tokens[begin].kind is Kind.OP and (
            tokens[begin].text not in ("-", "+") or tokens[begin + 1].space_before
        ):
            continue  # a spaced dash ("- 3B × 16") is a bullet, not a minus sign
        if (
            tokens[begin].kind is Kind.OP
            and begin > start
            and tokens[begin - 1].kind in (Kind.NUM, Kind.RP, Kind.PCT)
        ):
            continue  # "1+1": the sign joins two operands, it does not start a side
        try:
            value, stop = parser.parse(begin, rel)
        except (ParseFailed, RecursionError):
            continue
        if stop == rel:
            before = tokens[begin - 1] if begin > start else None
            truncated = (
                before is not None
                and before.kind is Kind.OP
                and not (before.text == "-" and tokens[begin].space_before)
            )
            return _Side(begin, rel, value, truncated=truncated)
    return None


def _right_side(parser: Parser, tokens: list[Token], start: int, end: int) -> _Side | None:
    if start >= end:
        return None
    if tokens[start - 1].text in ORDER_RELATIONS:
        # "Comm 30 ms < compute 70 ms": a comparison's right side may be labelled.
        while (
            start + 1 < end
            and tokens[start].kind is Kind.NAME
            and tokens[start + 1].kind in (Kind.NUM, Kind.DOLLAR)
            and is_label(tokens[start].text)
        ):
            start += 1
    try:
        value, stop = parser.parse(start, end, right_side=True)
    except (ParseFailed, RecursionError):
        return None
    if stop == start:
        return None
    truncated = stop < end and tokens[stop].kind in (Kind.OP, Kind.SQRT)
    return _Side(start, stop, value, truncated=truncated)


_LATEX_RELATION = re.compile(r"\\(?:approx|sim|to|le|ge|ll|gg|lt|gt|[Rr]ightarrow|implies)")
_UNICODE_RELATION = re.compile("[≈≃→≤≥≪≫⇒⟶⟹]")


def _may_claim(line: str) -> bool:
    # Plain substring tests first: they cost far less than a regex per line.
    if not ("=" in line or "~" in line or "<" in line or ">" in line):
        if "\\" in line:
            if _LATEX_RELATION.search(line) is None and _UNICODE_RELATION.search(line) is None:
                return False
        elif line.isascii() or _UNICODE_RELATION.search(line) is None:
            return False
    return _DIGIT.search(line) is not None


def iter_claim_lines(text: str) -> Iterator[tuple[int, str]]:
    """Yield ``(line_number, line)`` for the lines that may hold a claim."""
    for number, line in enumerate(text.splitlines(), 1):
        if _may_claim(line):
            yield number, line


def doubtful_claims(text: str) -> list[ClaimVerdict]:
    """The verdicts of :func:`check_claims` that are neither ok nor skipped.

    What a report of findings needs: most claims hold, and a line met before
    then costs a lookup, with no verdict copied to carry this line's number.
    """
    checker = ClaimChecker()
    doubts: list[ClaimVerdict] = []
    for number, line in enumerate(text.splitlines(), 1):
        if _may_claim(line) and len(line) <= MAX_LINE_CHARS:
            result = checker._line_result(line, number)
            if result.doubts:
                if result.number == number:
                    doubts.extend(result.doubts)
                else:
                    doubts.extend(_renumbered(verdict, number) for verdict in result.doubts)
    return doubts


def check_claims(text: str) -> list[ClaimVerdict]:
    """Check every ``=`` / ``≈`` / ``~`` link in a text, line by line.

    Args:
        text: Plain text or Markdown (LaTeX ``$...$`` allowed). Values defined on
            earlier lines (``N = 8``) are used on later ones.

    Returns:
        One verdict per link, in order, with 1-based line numbers.
    """
    checker = ClaimChecker()
    verdicts: list[ClaimVerdict] = []
    for number, line in enumerate(text.splitlines(), 1):
        if _may_claim(line) and len(line) <= MAX_LINE_CHARS:
            verdicts.extend(checker._check_claim_line(line, number))
    return verdicts

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
from dataclasses import replace
from typing import NamedTuple

from sysdrill.napkin.judge import ClaimJudge
from sysdrill.napkin.lexer import (
    CMP,
    COMMA,
    DOLLAR,
    LP,
    NAME,
    NUM,
    OP,
    PCT,
    PUNCT,
    REL,
    RP,
    SQRT,
    Token,
    digits_change,
    normalize,
    refill,
    scan,
    shape_of,
    tokenize,
)
from sysdrill.napkin.operands import (
    Side,
    drop_annotations,
    fold_approximations,
    labelled_operands,
)
from sysdrill.napkin.parser import Chain, Parser, chain_of, evaluate_chain, is_label
from sysdrill.napkin.results import ClaimVerdict, Verdict
from sysdrill.napkin.units import is_unit_spelling
from sysdrill.napkin.values import FUNCTIONS, ParseFailed, Value
from sysdrill.napkin.verdicts import (
    ORDER_RELATIONS,
)

__all__ = ["ClaimChecker", "check_claims", "doubtful_claims", "iter_claim_lines"]

MAX_LINE_CHARS = 2000
"""Longer lines are skipped whole (no claim is that long; hostile input might be)."""
MAX_SIDE_TOKENS = 64
"""Longest left side searched for, in tokens."""

# Patterns searched on every line start with a character or a class of them, never an
# assertion: the engine then skips to where a match can start instead of trying each
# position. So a break is one of its characters, then the test of a "." or ",".
_CHUNK_BREAK = re.compile(r"[:;?!|\"≠±.,](?:(?<=\.)(?!\d)|(?<=,)(?!\d{3}(?!\d))|(?<![.,]))")
_CLAIM_CHUNK = re.compile(r"[=≈~→<>≤≥≪≫]")
_GLUED_EQUALS = re.compile(r"=(?<=[\w)]=)\S")
_DOUBLE_RELATION = re.compile(r"[=≈~]\s*[=≈~]")
_DIGIT = re.compile(r"\d")
_SOLVED = re.compile(r"\b(?:so|thus|hence|therefore|→)\s+([A-Za-z]\w*)\s*[<>≤≥]")
"""A name solved for on its line (``so M > 27``): an unknown there, not its earlier value."""
_SOLVED_SUFFIX = re.compile(r"(?:→|\bso|\bthus|\bhence|\btherefore)\s+([KMGBT])\s*[=≈~]\s*[\d*]")
"""``... → M ≈ 160``: the line solves for a letter that is also a magnitude suffix."""
_LIST_MARKER = re.compile(r"^(\s*)(?:[-*+•]|\d{1,2}[.)]|\([a-zA-Z0-9]\))(\s+)")
_OPERAND_END = (NUM, RP, PCT)
_STARTS = (NUM, NAME, LP, DOLLAR, SQRT, OP)


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
        verdict.unsure,
    )


def _has_order_sign(norm: str) -> bool:
    """Whether ``norm`` has a sign :data:`_SOLVED` needs (``<``, ``>``, ``≤``, ``≥``)."""
    return "<" in norm or ">" in norm or "≤" in norm or "≥" in norm


def _has_solving_word(norm: str) -> bool:
    """Whether ``norm`` has an arrow or word :data:`_SOLVED_SUFFIX` needs."""
    return "→" in norm or "so" in norm or "thus" in norm or "hence" in norm or "therefore" in norm


def _sentence_start(norm: str, at: int) -> int:
    """Where the sentence holding ``norm[at]`` starts (after ``. `` or ``; ``)."""
    return max(norm.rfind(". ", 0, at), norm.rfind("; ", 0, at)) + 1


def _skipped(verdict: ClaimVerdict, reason: str) -> ClaimVerdict:
    """The verdict as a skipped one with ``reason`` (what it judged no longer holds)."""
    return replace(
        verdict,
        verdict=Verdict.SKIPPED,
        message=reason,
        computed=None,
        claimed=None,
        unit="",
        suggestion=None,
        unsure=False,
    )


class ClaimChecker:
    """Checks the lines of one block, remembering values defined on earlier lines."""

    def __init__(self) -> None:
        self.variables: dict[str, Value] = {}
        self._defined: list[tuple[str, Value]] = []
        self._judge = ClaimJudge(self.variables, self._define)

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
        result = self._line_result(line, number, _LINES.get(line))
        if result.number == number:
            return list(result.verdicts)
        return [_renumbered(verdict, number) for verdict in result.verdicts]

    def _line_result(self, line: str, number: int, known: _LineResult | None) -> _LineResult:
        """The stored result of a line met before with the same values, else a fresh one.

        ``known`` is the line's entry in :data:`_LINES`, if any. Either way the values
        the line defines are defined; the verdicts carry the line number they were made
        with (``result.number``).
        """
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
        doubts = tuple(v for v in verdicts if v.verdict not in _QUIET or v.unsure)
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
        # "3 / (M + 3) < 0.1, so M > 27": the line solves for M, whatever M was before.
        # Both patterns are slow to search for (no literal to start from): each runs
        # only on a line that holds a character or word it needs.
        unknowns = (
            {
                name: self.variables.pop(name)
                for name in _SOLVED.findall(norm)
                if name in self.variables
            }
            if _has_order_sign(norm)
            else {}
        )
        for start, end in _chunks(norm):
            verdicts.extend(self._check_chunk(line, norm, number, norm[start:end], start))
        self.variables.update(unknowns)
        solved = _SOLVED_SUFFIX.search(norm) if _has_solving_word(norm) else None
        if solved is not None and re.compile(rf"\d{solved[1]}\b").search(
            norm, _sentence_start(norm, solved.start()), solved.start()
        ):
            # "536.8M = 83,740.8 + 12.78M → ... → M ≈ 160": 536.8M is 536.8 × M, the
            # unknown; the line is an equation, not arithmetic with millions.
            letter = solved[1]
            reason = f"an equation solved for {letter} (a number glued to it is a coefficient)"
            verdicts = [_skipped(verdict, reason) for verdict in verdicts]
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
            tokens = labelled_operands(drop_annotations(tokens))
        if key is None:
            tokens = self._fold_assignments(tokens)
        if "~" in chunk or "≈" in chunk or _DOUBLE_RELATION.search(chunk):
            tokens = fold_approximations(tokens)
        plan, sides = self._plan(tokens)
        if key is not None:
            if len(_PLANS) >= MAX_PLANS:
                _PLANS.clear()
            _PLANS[key] = _Plan(tuple(tokens), digits_change(tokens), offset, tuple(plan))
        return self._run_plan(line, norm, number, tokens, plan, sides)

    def _plan(self, tokens: list[Token]) -> tuple[list[_Step], list[tuple[Side | None, ...]]]:
        """Where each link's sides are: the part of checking that depends only on shape."""
        stops: list[int] = []
        relations: list[int] = []
        depth = 0
        for index, token in enumerate(tokens):
            kind = token.kind
            if kind is REL:
                relations.append(index)
                stops.append(index)
            elif kind is CMP or kind is PUNCT:
                stops.append(index)
            elif kind is LP:
                depth += 1
            elif kind is RP:
                depth = max(0, depth - 1)
            elif kind is COMMA and depth == 0:
                stops.append(index)
        plan: list[_Step] = []
        sides: list[tuple[Side | None, ...]] = []
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
        sides: list[tuple[Side | None, ...]] | None,
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
            verdict = self._judge.judge(line, norm, number, tokens, rel, lhs, rhs, segment_start)
            if verdict is not None:
                verdicts.append(verdict)
        return verdicts

    def _fold_assignments(self, tokens: list[Token]) -> list[Token]:
        """Turn glued ``TP=8``-style settings into one opaque name, defining the value."""
        if not any(t.kind is REL and t.text == "=" for t in tokens):
            return tokens
        out: list[Token] = []
        index = 0
        parser = Parser(tokens, self.variables)
        while index < len(tokens):
            token = tokens[index]
            if (
                token.kind is REL
                and token.text == "="
                and not token.space_before
                and out
                and out[-1].kind is NAME
                and index + 1 < len(tokens)
                and not tokens[index + 1].space_before
                and not (len(out) > 1 and out[-2].kind is OP and not out[-1].space_before)
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
                out.append(Token(NAME, text, name.start, tokens[stop - 1].end, name.space_before))
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


def _span(tokens: list[Token], side: Side | None) -> _Span:
    if side is None:
        return None
    return side.start, side.end, side.truncated, chain_of(tokens, side.start, side.end)


def _reparse(parser: Parser, span: _Span, *, right_side: bool = False) -> Side | None:
    """Evaluate a planned side again, with this span's numbers."""
    if span is None:
        return None
    start, end, truncated, chain = span
    if chain is not None:
        # A plain chain of literals: fold it without parsing.
        return Side(start, end, evaluate_chain(parser.tokens, chain), truncated=truncated)
    try:
        value, _ = parser.parse(start, end, right_side=right_side)
    except (ParseFailed, RecursionError):  # pragma: no cover - same shape parses alike
        return None
    return Side(start, end, value, truncated=truncated)


def _assignment_end(tokens: list[Token], start: int) -> int:
    """End of the value of a ``NAME=value`` setting: the next separator or spaced name."""
    index = start
    while index < len(tokens):
        token = tokens[index]
        if token.kind in (COMMA, PUNCT, CMP, REL):
            break
        if token.kind is OP and token.space_before:
            break
        if index > start and token.kind is NAME and not is_unit_spelling(token.text):
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


def _left_side(parser: Parser, tokens: list[Token], start: int, rel: int) -> Side | None:
    # Longest first; a left side longer than MAX_SIDE_TOKENS is not tried, which
    # keeps hostile lines ("(1+(1+(1+...") from costing quadratic time.
    for begin in range(max(start, rel - MAX_SIDE_TOKENS), rel):
        if tokens[begin].kind not in _STARTS:
            continue
        if tokens[begin].kind is OP and (
            tokens[begin].text not in ("-", "+") or tokens[begin + 1].space_before
        ):
            continue  # a spaced dash ("- 3B × 16") is a bullet, not a minus sign
        if tokens[begin].kind is OP and begin > start and tokens[begin - 1].kind in (NUM, RP, PCT):
            continue  # "1+1": the sign joins two operands, it does not start a side
        try:
            value, stop = parser.parse(begin, rel)
        except (ParseFailed, RecursionError):
            continue
        if stop == rel:
            before = tokens[begin - 1] if begin > start else None
            truncated = (
                before is not None
                and before.kind is OP
                and not (before.text == "-" and tokens[begin].space_before)
            )
            return Side(begin, rel, value, truncated=truncated)
    return None


def _right_side(parser: Parser, tokens: list[Token], start: int, end: int) -> Side | None:
    if start >= end:
        return None
    if tokens[start - 1].text in ORDER_RELATIONS:
        # "Comm 30 ms < compute 70 ms": a comparison's right side may be labelled.
        while (
            start + 1 < end
            and tokens[start].kind is NAME
            and tokens[start + 1].kind in (NUM, DOLLAR)
            and is_label(tokens[start].text)
        ):
            start += 1
    try:
        value, stop = parser.parse(start, end, right_side=True)
    except (ParseFailed, RecursionError):
        return None
    if stop == start:
        return None
    truncated = stop < end and tokens[stop].kind in (OP, SQRT)
    return Side(start, stop, value, truncated=truncated)


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
    """The verdicts of :func:`check_claims` that are neither ok nor skipped, and abstentions.

    What a report of findings needs: most claims hold, and a line met before
    then costs a lookup, with no verdict copied to carry this line's number.
    """
    checker = ClaimChecker()
    doubts: list[ClaimVerdict] = []
    for number, line in enumerate(text.splitlines(), 1):
        # A stored line passed the screen below when it was stored: most lines met
        # again cost one lookup.
        known = _LINES.get(line)
        if known is not None or (_may_claim(line) and len(line) <= MAX_LINE_CHARS):
            result = checker._line_result(line, number, known)
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

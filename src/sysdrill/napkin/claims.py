"""Find and check the claims (``lhs = rhs``, ``≈``, ``~`` chains) in napkin-math text.

Each line is normalised and tokenised; every relation sign splits it into links.
The left side of a link is the longest expression that ends at the sign, the
right side the longest one that starts after it. A link is judged only when both
sides evaluate to numbers; anything symbolic (``16N``, ``Per-GPU Batch``), a
range (``5-7 W``), a comparison or prose is *skipped*, because a false ``wrong``
on a correct answer costs more than a missed check.

Tolerances: ``=`` holds within 0.5 % relative, or within the rounding of the
number written on the right (``= 4.19e8`` accepts 4.185e8 to 4.195e8, capped at
10 %), and exactly when both sides are integers written in full (``2048 / 128 =
16``); ``≈`` and ``~`` hold within 5 % (rounding capped at 15 %).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache

from sysdrill.napkin.lexer import _SUFFIXES, Kind, Token, normalize, tokenize
from sysdrill.napkin.parser import FUNCTIONS, ParseFailed, Parser, Value
from sysdrill.napkin.results import ClaimVerdict, Verdict
from sysdrill.napkin.units import COUNT_DIMENSIONS, Dims, format_dims, is_unit_spelling

__all__ = ["ClaimChecker", "check_claims", "iter_claim_lines"]

EQUAL_TOLERANCE = 0.005
"""Relative tolerance of ``=``."""
APPROX_TOLERANCE = 0.05
"""Relative tolerance of ``≈`` and ``~``."""
_ROUNDING_CAP = {"=": 0.02, "≈": 0.10, "~": 0.10}
MAX_LINE_CHARS = 2000
"""Longer lines are skipped whole (no claim is that long; hostile input might be)."""

_CHUNK_BREAK = re.compile(r"[:;?!|\"→<>≤≥≠±≪≫]|\.(?!\d)|,(?!\d{3}(?!\d))")
_CLAIM_CHUNK = re.compile(r"[=≈~]")
_GLUED_EQUALS = re.compile(r"[\w)]=\S")
_DOUBLE_RELATION = re.compile(r"[=≈~]\s*[=≈~]")
_DIGIT = re.compile(r"\d")
_LIST_MARKER = re.compile(r"^(\s*)(?:[-*+•]|\d{1,2}[.)]|\([a-zA-Z0-9]\))(\s+)")
_OPERAND_END = (Kind.NUM, Kind.RP, Kind.PCT)
_STARTS = (Kind.NUM, Kind.NAME, Kind.LP, Kind.DOLLAR, Kind.SQRT, Kind.OP)


class _Side:
    """One side of a link: its token span and value."""

    __slots__ = ("end", "start", "truncated", "value")

    def __init__(self, start: int, end: int, value: Value, *, truncated: bool = False) -> None:
        self.start = start
        self.end = end
        self.value = value
        self.truncated = truncated


@dataclass(frozen=True, slots=True)
class _Link:
    """Where a link is and what it says, to build its verdict."""

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


class ClaimChecker:
    """Checks the lines of one block, remembering values defined on earlier lines."""

    def __init__(self) -> None:
        self.variables: dict[str, Value] = {}

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
        marker = _LIST_MARKER.match(line)
        source = line
        if marker is not None:
            source = " " * marker.end() + line[marker.end() :]
        norm = normalize(source)
        verdicts: list[ClaimVerdict] = []
        for start, end in _chunks(norm):
            chunk = norm[start:end]
            verdicts.extend(self._check_chunk(line, norm, number, chunk, tokenize(chunk, start)))
        return verdicts

    def _check_chunk(
        self, line: str, norm: str, number: int, chunk: str, tokens: list[Token]
    ) -> list[ClaimVerdict]:
        # Each rewrite runs only when the chunk has what it rewrites (this is the hot path).
        if " (" in chunk:
            tokens = _drop_annotations(tokens)
        if _GLUED_EQUALS.search(chunk):
            tokens = self._fold_assignments(tokens)
        if "~" in chunk or "≈" in chunk or _DOUBLE_RELATION.search(chunk):
            tokens = _fold_approximations(tokens)
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
        if not relations:
            return []
        parser = Parser(tokens, self.variables)
        verdicts = []
        count = len(tokens)
        for rel in relations:
            position = stops.index(rel)
            left_stop = stops[position - 1] if position else -1
            right_stop = stops[position + 1] if position + 1 < len(stops) else count
            lhs = _left_side(parser, tokens, left_stop + 1, rel)
            rhs = _right_side(parser, tokens, rel + 1, right_stop)
            if lhs is None and rhs is None:
                continue
            verdict = self._judge(line, norm, number, tokens, rel, lhs, rhs, left_stop + 1)
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
        relation = "=" if relation == "=" else ("≈" if relation == "≈" else "~")
        column = tokens[rel].start + 1
        lhs_text = norm[tokens[lhs.start].start : tokens[lhs.end - 1].end] if lhs else ""
        rhs_text = norm[tokens[rhs.start].start : tokens[rhs.end - 1].end] if rhs else ""

        link = _Link(number, column, relation, lhs_text, rhs_text)
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
        if rhs.end - rhs.start == 1 and tokens[rhs.start].kind is Kind.NAME:
            return verdict(Verdict.SKIPPED, "the right side is a name")
        for side in (left, right):
            if side.why is not None:
                return verdict(Verdict.SKIPPED, f"not numeric ({side.why})")
        if left.scale and lhs.start > segment_start and tokens[lhs.start - 1].kind is Kind.NAME:
            # "TP of 8 and PP of 4 = 32 GPUs": a lone number inside a phrase is not
            # the left side of the claim; the phrase is.
            return verdict(Verdict.SKIPPED, "the left side is part of a phrase")
        if lhs.truncated or rhs.truncated:
            return verdict(Verdict.SKIPPED, "the expression continues beyond what could be read")
        return _compare(link, left, right, line, norm, tokens, rhs)


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
                previous.text = "≈"
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
    for begin in range(start, rel):
        if tokens[begin].kind not in _STARTS:
            continue
        if tokens[begin].kind is Kind.OP and (
            tokens[begin].text not in ("-", "+") or tokens[begin + 1].space_before
        ):
            continue  # a spaced dash ("- 3B × 16") is a bullet, not a minus sign
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
    try:
        value, stop = parser.parse(start, end)
    except (ParseFailed, RecursionError):
        return None
    if stop == start:
        return None
    truncated = stop < end and tokens[stop].kind in (Kind.OP, Kind.SQRT)
    return _Side(start, stop, value, truncated=truncated)


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


def _compare(
    link: _Link,
    left: Value,
    right: Value,
    line: str,
    norm: str,
    tokens: list[Token],
    rhs: _Side,
) -> ClaimVerdict:
    make = link.verdict
    relation = link.relation
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
        if (left.a != left.v or right.a != right.v) and _holds(
            left.a, right.a, relation, right, exact=False
        ):
            return make(
                Verdict.PREFIX_AMBIGUOUS,
                "holds only if the decimal prefixes are read as powers of 1024; "
                "write KiB/MiB/GiB for 1024-based sizes",
                computed=_in_unit(left, right),
                claimed=_in_unit(right, right),
                unit=unit,
            )
        return _wrong(make, _in_unit(left, right), left, right, unit, line, norm, tokens, rhs)
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
            return _wrong(make, left.v, left, right, unit, line, norm, tokens, rhs)
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
    from sysdrill.napkin.expression import format_number

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
    tokens: list[Token],
    rhs: _Side,
) -> ClaimVerdict:
    """A wrong verdict; ``computed`` is the left side in the right side's written unit."""
    from sysdrill.napkin.expression import format_value

    suggestion = None
    if right.scale:
        literal = next((t for t in tokens[rhs.start : rhs.end] if t.kind is Kind.NUM), None)
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


def _may_claim(line: str) -> bool:
    # Plain substring tests first: they cost far less than a regex per line.
    return (
        "=" in line
        or "~" in line
        or "≈" in line
        or "≃" in line
        or "\\approx" in line
        or "\\sim" in line
    ) and _DIGIT.search(line) is not None


def iter_claim_lines(text: str) -> Iterator[tuple[int, str]]:
    """Yield ``(line_number, line)`` for the lines that may hold a claim."""
    for number, line in enumerate(text.splitlines(), 1):
        if _may_claim(line):
            yield number, line


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
    for number, line in iter_claim_lines(text):
        verdicts.extend(checker.check_line(line, number))
    return verdicts

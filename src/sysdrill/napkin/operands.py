"""Operands as authors write them: labels, parentheses, bounds, glued units.

The segment and parse stages of the claim checker (:mod:`sysdrill.napkin.claims`)
rewrite a span's tokens so that the parser sees the values a line claims about
(``weights (14 GB) + KV cache (6 GB)`` sums 14 GB and 6 GB), and tell the judge
about the shape of a side (one operand, a first term that goes on computing).
"""

from __future__ import annotations

from sysdrill.napkin.lexer import CMP, COMMA, DOLLAR, LP, NAME, NUM, OP, PCT, PUNCT, REL, RP, Token
from sysdrill.napkin.units import is_unit_spelling
from sysdrill.napkin.values import FUNCTIONS, Value

__all__ = [
    "Side",
    "annotates_label",
    "bytes_for_billions",
    "counts_a_label",
    "drop_annotations",
    "first_term",
    "fold_approximations",
    "labelled_operands",
    "no_reread",
    "one_operand",
    "per_counted_thing",
    "per_thing",
]

_OPERAND_END = (NUM, RP, PCT)


class Side:
    """One side of a link: its token span and value."""

    __slots__ = ("end", "start", "truncated", "value")

    def __init__(self, start: int, end: int, value: Value, *, truncated: bool = False) -> None:
        self.start = start
        self.end = end
        self.value = value
        self.truncated = truncated


def drop_annotations(tokens: list[Token]) -> list[Token]:
    """Remove spaced parenthetical labels after an operand: ``4 (Micro-Batch)``.

    Names glued by ``+`` or ``/`` are a label too: ``2 (K+V) × 2 bytes`` counts the
    K and V tensors; it adds nothing.
    """
    if not any(t.kind is LP for t in tokens):
        return tokens
    out: list[Token] = []
    index = 0
    while index < len(tokens):
        token = tokens[index]
        if token.kind is LP and token.space_before and out and out[-1].kind in (NUM, NAME, RP, PCT):
            close = index + 1
            while close < len(tokens) and (
                tokens[close].kind is NAME
                or (
                    tokens[close].kind is OP
                    and tokens[close].text in ("+", "/")
                    and not tokens[close].space_before
                    and tokens[close - 1].kind is NAME
                    and close + 1 < len(tokens)
                    and tokens[close + 1].kind is NAME
                    and not tokens[close + 1].space_before
                )
            ):
                close += 1
            if close > index + 1 and close < len(tokens) and tokens[close].kind is RP:
                index = close + 1
                continue
        out.append(token)
        index += 1
    return out


_SEGMENT_ENDS = (REL, CMP, PUNCT, COMMA)


def counts_a_label(unit: str) -> bool:
    """Whether a literal's written unit is a label of what it counts (``weights``)."""
    words = unit.replace("-", "").replace(" ", "").replace("/", "")
    if not words.isalpha():
        return False
    return not is_unit_spelling(unit.split()[0].split("/")[0])


def no_reread() -> tuple[Value, Value]:
    """No other prefix reading: what a judge of a side already read alike is given."""
    return Value.bad("unreadable"), Value.bad("unreadable")


def one_operand(tokens: list[Token], side: Side) -> bool:
    """Whether a side is one value with its unit (``$200K/yr``): no operator between values."""
    for index in range(side.start, side.end):
        token = tokens[index]
        if token.kind is LP or (token.kind is OP and token.space_before):
            return False
        if token.kind is OP and index + 1 < side.end:
            if tokens[index + 1].kind is not NAME:
                return False
    return True


def first_term(tokens: list[Token], side: Side) -> int | None:
    """End of the first term of a right side that goes on computing (``864 + 32``), or None."""
    depth = 0
    for index in range(side.start, side.end):
        token = tokens[index]
        depth += (token.kind is LP) - (token.kind is RP)
        if depth == 0 and token.kind is OP and token.space_before and index > side.start:
            return index
    return None


_MAX_GLUED_BYTES = 4096.0
"""Largest number before a glued ``B`` read as bytes (``2B`` per fp16 value, ``512B``
per message); above it, ``B`` stays billions."""


def bytes_for_billions(tokens: list[Token], lhs: Side, right: Value) -> list[Token] | None:
    """The tokens with a glued ``2B`` read as 2 bytes, when the result is in bytes."""
    if not any(kind == "information" for kind, _ in right.dims):
        return None
    if lhs.end - lhs.start < 3:
        return None  # "7B = 14 GB" multiplies nothing
    out: list[Token] | None = None
    for index in range(lhs.start, lhs.end):
        token = tokens[index]
        if token.kind is NUM and token.text.endswith("B") and not token.unit:
            number = token.value / 1e9
            if number <= _MAX_GLUED_BYTES:
                out = out if out is not None else list(tokens)
                out[index] = token._replace(value=number, alt=number, exact=False, unit="B")
    return out


def annotates_label(tokens: list[Token], lhs: Side, segment_start: int) -> bool:
    """Whether the left side is one parenthesis after a label (or is that parenthesis)."""
    first = tokens[lhs.start]
    if first.kind is NAME and first.text.startswith("("):
        return True  # made opaque by labelled_operands
    if first.kind is not LP or tokens[lhs.end - 1].kind is not RP:
        return False
    depth = 0
    for index in range(lhs.start, lhs.end):
        kind = tokens[index].kind
        depth += (kind is LP) - (kind is RP)
        if depth == 0 and index < lhs.end - 1:
            return False  # "(a) + (b)": more than one parenthesis
    if lhs.start <= segment_start:
        return False
    before = tokens[lhs.start - 1]
    return before.kind in (NAME, NUM) and before.text not in FUNCTIONS


def labelled_operands(tokens: list[Token]) -> list[Token]:
    """Read the values in parentheses after labels: ``weights (14 GB) + KV cache (6 GB) = 20 GB``.

    Before a relation, operands written as a label and its value in parentheses,
    joined by ``+`` or ``-``, are the values: the labels are dropped. A single
    label with a value in parentheses (``Long request (2048) = 85.6 s``) annotates
    the label, and the claim is about the label, which is not read: the
    parenthesis becomes an opaque name.
    """
    out = list(tokens)
    index = len(out) - 1
    while index > 0:
        if out[index].kind is REL and out[index - 1].kind is RP:
            index = _rewrite_groups(out, index)
        index -= 1
    return out


def _rewrite_groups(tokens: list[Token], rel: int) -> int:
    """Rewrite the labelled groups ending at ``tokens[rel]`` in place; the new ``rel``."""
    groups: list[tuple[int, int, int]] = []  # (label start, open, close)
    close = rel - 1
    while close > 0 and tokens[close].kind is RP:
        depth, open_ = 0, close
        while open_ >= 0:
            kind = tokens[open_].kind
            depth += kind is RP
            depth -= kind is LP
            if depth == 0:
                break
            open_ -= 1
        if open_ <= 0 or not tokens[open_].space_before:
            return rel
        label = open_
        while label > 0 and tokens[label - 1].kind in (NAME, NUM, DOLLAR):
            label -= 1
        names = [t for t in tokens[label:open_] if t.kind is NAME]
        if not names or names[-1].text in FUNCTIONS or names[-1].text in ("of", "x"):
            return rel
        groups.append((label, open_, close))
        before = label - 1
        if before < 0 or tokens[before].kind in _SEGMENT_ENDS:
            break
        if tokens[before].kind is OP and tokens[before].text in ("+", "-", "−"):
            close = before - 1
            continue
        return rel
    if not groups:
        return rel
    if len(groups) == 1:
        label, open_, close = groups[0]
        text = "".join(t.text for t in tokens[open_ : close + 1])
        first, last = tokens[open_], tokens[close]
        opaque = Token(NAME, text, first.start, last.end, first.space_before)
        tokens[open_ : close + 1] = [opaque]
        return rel - (close - open_)
    removed = 0
    for label, open_, _ in groups:  # right to left: indices before them stay valid
        del tokens[label:open_]
        removed += open_ - label
    return rel - removed


def fold_approximations(tokens: list[Token]) -> list[Token]:
    """Drop a ``~`` that means "about" (not after a quantity); ``= ~x`` becomes ``≈``."""
    out: list[Token] = []
    for token in tokens:
        if token.kind is REL and token.text in ("~", "≈") and out:
            previous = out[-1]
            if previous.kind is REL:
                out[-1] = previous._replace(text="≈")
                continue
            after_quantity = previous.kind in _OPERAND_END or (
                previous.kind is NAME and is_unit_spelling(previous.text)
            )
            if token.text == "~" and not after_quantity:
                continue
        elif token.kind is REL and token.text == "~":
            continue
        out.append(token)
    return out


_STOPS = (REL, CMP, PUNCT, COMMA)


def per_thing(tokens: list[Token], rhs: Side) -> str:
    """The thing a right side is written per, lowercased (``10 s/experiment``).

    Empty when the right side is per nothing or per a unit (``GB/s``).
    """
    index = rhs.start
    while index + 1 < len(tokens) and tokens[index].kind not in _STOPS:
        token = tokens[index]
        after = tokens[index + 1]
        if after.kind is NAME and ((token.kind is OP and token.text == "/") or token.text == "per"):
            thing = after.text.lower()
            return "" if is_unit_spelling(after.text) else thing
        index += 1
    return ""


def per_counted_thing(tokens: list[Token], lhs: Side, rhs: Side) -> float | None:
    """The count on the left that a result written per one of its things is per.

    ``10K experiments × 10K steps × 1 ms = 10 s/experiment``: the right side is per
    experiment and the left side counts 10K experiments, so the claim is about
    ``10K steps × 1 ms``. Returns that count (10,000), or None when the right side
    is not written per a thing the left side counts.
    """
    thing = per_thing(tokens, rhs)
    if not thing:
        return None
    for at in range(lhs.start, lhs.end - 1):
        number, label = tokens[at], tokens[at + 1]
        if (
            number.kind is NUM
            and not number.unit
            and number.value > 1
            and label.kind is NAME
            and label.text.lower() in (thing, thing + "s", thing + "es")
        ):
            return number.value
    return None

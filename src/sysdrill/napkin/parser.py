"""A Pratt parser that evaluates token runs to compiled quantities (float + dimensions).

The parser evaluates while it parses: there is no tree. Each value is a
:class:`Value` carrying the number in base units, the number as written (unit
scales taken as 1, so ``48 GB`` is 48), the number with 1000/1024 prefixes
swapped, and a dimension vector. Names it cannot read (``N`` never defined,
``throughput``) do not fail the parse: they make the value *symbolic*, so the
claim checker knows how far an expression reaches and that it cannot be checked.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from functools import cache

from sysdrill.napkin.lexer import COMMA, DOLLAR, LP, NAME, NUM, OP, PCT, RP, SQRT, Token
from sysdrill.napkin.units import is_unit_spelling
from sysdrill.napkin.values import (
    FUNCTIONS,
    ParseFailed,
    Value,
    add,
    div,
    literal_in_unit,
    literal_unit,
    literal_value,
    mul,
    power,
    square_root,
    unit_value,
)

__all__ = ["Chain", "Parser", "chain_of", "evaluate_chain", "is_label"]


_CONSTANTS = {"π": math.pi, "pi": math.pi}
_BINARY = {"+": 10, "-": 10, "×": 20, "*": 20, "/": 20, "@": 20, "^": 30, "**": 30}
_UNARY_PRECEDENCE = 25
_QUANTITY_ENDS = (NUM, RP, PCT)


_NOT_LABELS = frozenset(
    "and are but each for from into is not nor over per than that the then this "
    "via was were which while with yet also just only both when where".split()
)


def is_label(name: str) -> bool:
    """A lowercase prose word (``layers``, ``heads``) that may name what a number counts."""
    return (
        len(name) >= 3
        and name.replace("-", "").isalpha()
        and name.islower()
        and not is_unit_spelling(name)
        and name not in FUNCTIONS
        and name not in _CONSTANTS
        and name not in _NOT_LABELS
    )


def _is_acronym(name: str) -> bool:
    """An uppercase tag after a number (``8 TP``, ``8 KV heads``) that is not a unit."""
    return 2 <= len(name) <= 4 and name.isalpha() and name.isupper() and not is_unit_spelling(name)


def _bare_unit_ok(name: str) -> bool:
    """Whether a unit spelling standing alone (not after a number) reads as a unit."""
    return len(name) > 1 and name not in ("min", "Ah", "mA", "sec", "bit", "tok")


class Parser:
    """Parse and evaluate one run of tokens.

    Args:
        tokens: Tokens of one line.
        variables: Values defined earlier (``N = 8``), by name.
        reverse: Read binary prefixes as decimal ones (GiB as GB).
        range_end: How a range (``7B-13B``) reads: None makes it unevaluable,
            0 takes its low end and 1 its high end.
        at_divides: Read ``A @ B`` as ``A / B`` (``14 GB @ 3.35 TB/s``) rather than
            ``A × B`` (``8 GPUs @ $2/h``).
        mac_as_flop: Read a MAC as one FLOP: the author converts with a written ``× 2``.
    """

    __slots__ = (
        "at_divides",
        "end",
        "mac_as_flop",
        "pos",
        "range_end",
        "reverse",
        "right_side",
        "tokens",
        "variables",
    )

    def __init__(
        self,
        tokens: list[Token],
        variables: Mapping[str, Value],
        *,
        reverse: bool = False,
        range_end: int | None = None,
        at_divides: bool = False,
        mac_as_flop: bool = False,
    ) -> None:
        self.tokens = tokens
        self.variables = variables
        self.reverse = reverse
        self.range_end = range_end
        self.at_divides = at_divides
        self.mac_as_flop = mac_as_flop
        self.right_side = False
        self.pos = 0
        self.end = len(tokens)

    def parse(self, start: int, end: int, *, right_side: bool = False) -> tuple[Value, int]:
        """Parse the longest expression starting at ``start`` (not beyond ``end``).

        Args:
            start: First token.
            end: Token index not to read beyond.
            right_side: The expression is a claim's result: ``per X`` after it
                ends it (``= $11,500 per month``) instead of dividing it.

        Returns:
            The value and the index of the first token not consumed.

        Raises:
            ParseFailed: No expression starts at ``start``.
        """
        self.pos = start
        self.end = end
        self.right_side = right_side
        value = self._expression(0)
        return value, self.pos

    def _unit(self, name: str) -> Value:
        unit = unit_value(name, self.reverse)
        if self.mac_as_flop and "MAC" in name:
            return Value(unit.v / 2, unit.w, unit.a / 2, unit.dims, exact=True, unit=name)
        return unit

    def _peek(self) -> Token | None:
        return self.tokens[self.pos] if self.pos < self.end else None

    def _expression(self, min_precedence: int) -> Value:
        left = self._unary()
        tokens = self.tokens
        while True:
            if self.pos >= self.end:
                break
            token = tokens[self.pos]
            if token.kind is not OP:
                break
            precedence = _BINARY[token.text]
            if precedence < min_precedence or (precedence == min_precedence and precedence != 30):
                break
            if self.pos + 1 >= self.end:
                break  # a dangling operator ends the expression before it
            op_index = self.pos
            self.pos += 1
            op = token.text
            if op in ("^", "**"):
                right = self._expression(30)
                left = power(left, right)
                # "2^30 B": a unit after a power applies to the power, not the exponent.
                left = self._postfix(left, after_power=True)
            elif op == "@":
                right = self._expression(precedence + 1)
                left = div(left, right) if self.at_divides else mul(left, right)
            elif op in ("×", "*"):
                left = mul(left, self._expression(precedence + 1))
            elif op == "/":
                left = div(left, self._expression(precedence + 1))
            else:
                is_range = op == "-" and self._is_range(op_index)
                right = self._expression(precedence + 1)
                if is_range:
                    left = self._range(left, right, op_index)
                else:
                    left = add(left, right, 1.0 if op == "+" else -1.0)
        return left

    def _is_range(self, index: int) -> bool:
        """``5-7`` (or ``$2-$3``) written without spaces, rising, is a range, not a difference."""
        minus = self.tokens[index]
        before = self.tokens[index - 1] if index > 0 else None
        after = self._range_high(index)
        return (
            before is not None
            and after is not None
            and before.kind is NUM
            and not minus.space_before
            and before.value < after.value
            and (self.tokens[index + 1].kind is NUM or self._dollar_before(index - 1))
        )

    def _range_high(self, minus: int) -> Token | None:
        """The number token of a range's high end (after ``-`` or ``-$``)."""
        index = minus + 1
        if index < self.end and self.tokens[index].kind is DOLLAR:
            index += 1
            if index >= self.end or self.tokens[index].space_before:
                return None
        if index >= self.end:
            return None
        token = self.tokens[index]
        if token.kind is not NUM or self.tokens[minus + 1].space_before:
            return None
        return token

    def _dollar_before(self, index: int) -> bool:
        return index > 0 and self.tokens[index - 1].kind is DOLLAR

    def _range(self, low: Value, high: Value, minus: int) -> Value:
        """One end of ``low-high``; a bare low end shares the high end's unit and suffix."""
        if self.range_end is None:
            return Value.bad("range")
        if self.range_end == 1:
            return high
        before = self.tokens[minus - 1]
        after = self._range_high(minus)
        if after is None or before.unit or before.text[-1].isalpha() or high.why is not None:
            return low  # "7B-13B", "2.8GB-5.6GB": the low end is complete
        digits = after.text.rstrip("KkMBT").replace(",", "")
        try:
            plain = float(digits)
        except ValueError:
            return low
        if plain == 0:
            return low
        # "100-200 ms", "1-2T", "50-60% of 989 TFLOPS": scale the high end.
        factor = before.value / plain
        return Value(high.v * factor, high.w * factor, high.a * factor, high.dims)

    def _unary(self) -> Value:
        if self.pos >= self.end:
            raise ParseFailed("expression expected")
        token = self.tokens[self.pos]
        if token.kind is OP and token.text in ("-", "+"):
            self.pos += 1
            operand = self._expression(_UNARY_PRECEDENCE)
            if token.text == "+" or operand.why is not None:
                return operand
            return operand.negated()
        if token.kind is SQRT:
            self.pos += 1
            return square_root(self._expression(_UNARY_PRECEDENCE))
        value = self._postfix(self._primary())
        minus = self.pos
        if (
            minus + 1 < self.end
            and self.tokens[minus].kind is OP
            and self.tokens[minus].text == "-"
            and self._is_range(minus)
        ):
            # "7B-13B", "100-200 ms", "50-60% of 989 TFLOPS": a range binds tighter
            # than any operator around it.
            self.pos += 1
            high = self._postfix(self._primary())
            return self._range(value, high, minus)
        return value

    def _primary(self) -> Value:
        if self.pos >= self.end:
            raise ParseFailed("expression expected")
        token = self.tokens[self.pos]
        kind = token.kind
        if kind is NUM:
            self.pos += 1
            if token.unit:
                unit = self._compound_unit(self._unit(token.unit), token.unit)
                return literal_in_unit(token, unit)
            return literal_value(token)
        if kind is LP:
            self.pos += 1
            inner = self._expression(0)
            closing = self._peek()
            if closing is None or closing.kind is not RP:
                raise ParseFailed("missing )")
            self.pos += 1
            return inner.grouped()
        if kind is DOLLAR:
            self.pos += 1
            dollar = self._unit("$")
            following = self._peek()
            if following is not None and following.kind is NUM and not following.space_before:
                amount = self._primary()
                return literal_unit(amount, dollar)
            return dollar
        if kind is NAME:
            return self._name(token)
        raise ParseFailed(f"unexpected {token.text!r}")

    def _name(self, token: Token) -> Value:
        name = token.text
        following = self.tokens[self.pos + 1] if self.pos + 1 < self.end else None
        if (
            name not in FUNCTIONS
            and name[:1].isupper()
            and name.lower() in FUNCTIONS
            and following is not None
            and following.kind is LP
        ):
            name = name.lower()  # "Max(8GB, 7GB)" at the start of a sentence
        if name in FUNCTIONS and following is not None and following.kind is LP:
            self.pos += 2
            args = [self._expression(0)]
            while (sep := self._peek()) is not None and sep.kind is COMMA:
                self.pos += 1
                args.append(self._expression(0))
            closing = self._peek()
            if closing is None or closing.kind is not RP:
                raise ParseFailed("missing )")
            self.pos += 1
            return FUNCTIONS[name](*args)
        self.pos += 1
        previous = self.tokens[self.pos - 2] if self.pos >= 2 else None
        after_slash = previous is not None and previous.kind is OP and previous.text == "/"
        if after_slash and is_unit_spelling(name):
            # "$/GB/month" is ($/GB)/month: leave the next "/" to the operator loop.
            return self._unit_power(self._unit(name))
        if name in self.variables:
            known = self.variables[name]
            return Value(known.v, known.w, known.a, known.dims, exact=known.exact)
        if name in _CONSTANTS:
            return Value(_CONSTANTS[name], _CONSTANTS[name], _CONSTANTS[name])
        if is_unit_spelling(name) and _bare_unit_ok(name):
            return self._compound_unit(self._unit(name), name)
        return Value.bad("symbolic")

    def _postfix(self, value: Value, *, after_power: bool = False) -> Value:
        """Units, labels, ``per X``, percent signs and glued parentheses after an operand."""
        tokens = self.tokens
        labelled = False
        while True:
            if self.pos >= self.end:
                return value
            token = tokens[self.pos]
            kind = token.kind
            previous = tokens[self.pos - 1]
            if (
                kind is NAME
                and (not value.unit or labelled)
                and is_unit_spelling(token.text)
                and (previous.kind in _QUANTITY_ENDS or labelled)
                and (after_power or not self._in_exponent())
            ):
                if token.text in FUNCTIONS and self._next_is_lp():
                    return value
                self.pos += 1
                unit = self._compound_unit(self._unit(token.text), token.text)
                value = literal_unit(value, unit)
                labelled = False
                continue
            if (
                kind is NAME
                and token.space_before
                and (
                    previous.kind is NUM
                    or labelled
                    or (value.unit and value.scale and not self.right_side)
                )
                and (is_label(token.text) or _is_acronym(token.text))
                and token.text not in self.variables
                and not self._next_is_lp()
                and (after_power or not self._in_exponent())
            ):
                # "80 layers * 8 KV heads", "2 MiB huge page": prose naming what a
                # number counts.
                self.pos += 1
                if not value.unit:
                    value = value.labelled(token.text)
                labelled = True
                continue
            if (
                kind is NAME
                and token.text == "per"
                and not self.right_side
                and self.pos + 1 < self.end
                and tokens[self.pos + 1].kind is NAME
                and (value.unit or previous.kind in _QUANTITY_ENDS)
            ):
                # "2 B per param" divides; "0.6 GFLOPs per frame" names what it counts.
                following = tokens[self.pos + 1].text
                if is_unit_spelling(following):
                    self.pos += 2
                    value = div(value, self._compound_unit(self._unit(following), following))
                    value = value.labelled("per " + following)
                    labelled = False
                    continue
                if is_label(following) and following not in self.variables:
                    self.pos += 2
                    labelled = True
                    continue
                return value
            if kind is PCT:
                self.pos += 1
                value = literal_unit(value, Value(0.01, 0.01, 0.01, unit="%"))
                nxt = self._peek()
                if (
                    nxt is not None
                    and nxt.kind is NAME
                    and nxt.text == "of"
                    and self._numeric_at(self.pos + 1)
                ):
                    self.pos += 1
                    return mul(value, self._expression(21))
                continue
            if kind is LP and not token.space_before:
                value = mul(value, self._primary())
                continue
            return value

    def _in_exponent(self) -> bool:
        """Whether the operand just read is an exponent (``2^30 B``: B is not its unit)."""
        index = self.pos - 2
        tokens = self.tokens
        if index >= 1 and tokens[index].kind is OP and tokens[index].text in ("-", "+"):
            index -= 1  # "10^-3 s": the sign belongs to the exponent
        return index >= 0 and tokens[index].kind is OP and tokens[index].text in ("^", "**")

    def _numeric_at(self, index: int) -> bool:
        """Whether an operand starts at ``index`` (``45% of 312 TFLOP/s``, not ``10% of step``)."""
        if index >= self.end:
            return False
        token = self.tokens[index]
        if token.kind in (NUM, DOLLAR, LP, SQRT):
            return True
        return token.kind is NAME and (
            token.text in self.variables or token.text in _CONSTANTS or token.text in FUNCTIONS
        )

    def _next_is_lp(self) -> bool:
        index = self.pos + 1
        return index < self.end and self.tokens[index].kind is LP

    def _compound_unit(self, unit: Value, text: str) -> Value:
        """Absorb glued ``/unit``, ``×unit`` and ``^n`` (``GB/s``, ``tokens/s/GPU``)."""
        start = self.pos
        unit = self._unit_power(unit)
        while self.pos + 1 < self.end:
            op = self.tokens[self.pos]
            nxt = self.tokens[self.pos + 1]
            if op.kind is not OP or op.space_before or nxt.space_before:
                break
            if op.text in ("/", "×") and nxt.kind is NAME and is_unit_spelling(nxt.text):
                self.pos += 2
                other = self._unit_power(self._unit(nxt.text))
                unit = div(unit, other) if op.text == "/" else mul(unit, other)
                continue
            if op.text == "/" and nxt.kind is NAME and is_label(nxt.text):
                self.pos += 2  # "tokens/step", "frames/s": what is counted per what
                continue
            break
        if self.pos == start:
            return unit  # a plain unit (the common case): its shared value as is
        text += "".join(t.text for t in self.tokens[start : self.pos])
        return Value(unit.v, unit.w, unit.a, unit.dims, exact=unit.exact, unit=text)

    def _unit_power(self, unit: Value) -> Value:
        """``cm^2``, ``s^-1``: a whole power right after a unit raises the unit alone.

        Superscripts and ``^{2}`` reach here as ``^2`` too (the lexer writes them so).
        """
        if self.pos + 1 < self.end:
            tokens = self.tokens
            op = tokens[self.pos]
            if op.kind is not OP or op.text != "^":
                return unit
            index = self.pos + 1
            sign = 1.0
            if tokens[index].kind is OP and tokens[index].text in ("-", "+"):
                sign = -1.0 if tokens[index].text == "-" else 1.0
                index += 1
            if index < self.end and tokens[index].kind is NUM and tokens[index].exact:
                self.pos = index + 1
                exponent = sign * tokens[index].value
                return power(unit, Value(exponent, exponent, exponent, exact=True))
        return unit


Unit = tuple[str, ...]
"""A unit as written after a number: a spelling, then glued operator and spelling pairs
(``("GB",)``, ``("FLOP", "/", "s")``); empty for none."""
Chain = tuple["tuple[str, int, Unit] | tuple[str, Chain]", ...]
"""A side that is a plain chain of literals (see :func:`chain_of`): each step is the
operator before it (``""`` for the first) with a NUM index and its unit, or with a
parenthesised chain."""


def chain_of(tokens: list[Token], start: int, end: int) -> Chain | None:
    """The side ``tokens[start:end]`` as a :data:`Chain`, if it is that simple.

    Simple means numbers, each with at most one unit (``2 bytes``, ``100MB``,
    ``1.5 TFLOP/s``), or parenthesised chains (``(50 GB/s)``), joined by spaced
    operators of one precedence: ``*``, ``×`` and ``/``, or ``+`` and ``-``. That is
    what :class:`Parser` reads by folding :func:`mul` and :func:`div`, or
    :func:`add`, from the left, so :func:`evaluate_chain` gives the same value
    without parsing. (Spaced, a ``-`` is never a range.)
    """
    steps: list[tuple[str, int, Unit] | tuple[str, Chain]] = []
    index = start
    op = ""
    family: tuple[str, ...] = ()
    while index < end:
        token = tokens[index]
        if token.kind is LP:
            close = index + 1
            while close < end and tokens[close].kind not in (LP, RP):
                close += 1
            if close >= end or tokens[close].kind is not RP:
                return None  # unclosed, or nested parentheses
            inner = chain_of(tokens, index + 1, close)
            if inner is None:
                return None
            steps.append((op, inner))
            index = close + 1
        elif token.kind is NUM:
            number = index
            index += 1
            unit: Unit = ()
            if token.unit:
                unit = (token.unit,)
            elif (
                index < end and tokens[index].kind is NAME and is_unit_spelling(tokens[index].text)
            ):
                unit = (tokens[index].text,)
                index += 1
            # Glued "/unit" and "×unit", as Parser._compound_unit absorbs them.
            while (
                unit
                and index + 1 < end
                and tokens[index].kind is OP
                and tokens[index].text in ("/", "×")
                and not tokens[index].space_before
                and tokens[index + 1].kind is NAME
                and not tokens[index + 1].space_before
                and is_unit_spelling(tokens[index + 1].text)
            ):
                unit += (tokens[index].text, tokens[index + 1].text)
                index += 2
            steps.append((op, number, unit))
        else:
            return None
        if index >= end:
            return tuple(steps)
        sign = tokens[index]
        if (
            sign.kind is not OP
            or not sign.space_before
            or index + 1 >= end
            or not tokens[index + 1].space_before
        ):
            return None
        if not family:
            family = _PRODUCT if sign.text in _PRODUCT else _SUM
        if sign.text not in family:
            return None  # another precedence (or a power): left to the parser
        op = sign.text
        index += 1
    return None


_PRODUCT = ("*", "×", "/")
_SUM = ("+", "-")


@cache
def _unit_of(unit: Unit, reverse: bool) -> Value:
    """The value of a unit as written (what Parser._compound_unit makes of it)."""
    value = unit_value(unit[0], reverse)
    if len(unit) == 1:
        return value
    for index in range(1, len(unit), 2):
        other = unit_value(unit[index + 1], reverse)
        value = div(value, other) if unit[index] == "/" else mul(value, other)
    return Value(value.v, value.w, value.a, value.dims, exact=value.exact, unit="".join(unit))


def evaluate_chain(tokens: list[Token], chain: Chain, *, reverse: bool = False) -> Value:
    """The value of a :data:`Chain` with the numbers now in ``tokens``."""
    value: Value | None = None
    for step in chain:
        if len(step) == 2:
            op, inner = step
            # What Parser reads for a parenthesised expression.
            leaf = evaluate_chain(tokens, inner, reverse=reverse).grouped()
        else:
            op, index, unit = step
            if unit:
                leaf = literal_in_unit(tokens[index], _unit_of(unit, reverse))
            else:
                leaf = literal_value(tokens[index])
        if value is None:
            value = leaf
        elif op == "/":
            value = div(value, leaf)
        elif op == "+":
            value = add(value, leaf, 1.0)
        elif op == "-":
            value = add(value, leaf, -1.0)
        else:
            value = mul(value, leaf)
    assert value is not None
    return value

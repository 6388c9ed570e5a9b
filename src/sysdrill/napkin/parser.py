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
from collections.abc import Callable, Mapping

from sysdrill.napkin.lexer import Kind, Token
from sysdrill.napkin.units import (
    Dims,
    dims_div,
    dims_mul,
    dims_pow,
    has_binary_prefix,
    is_unit_spelling,
    resolve_unit,
)

__all__ = ["FUNCTIONS", "ParseFailed", "Parser", "Value"]


class ParseFailed(Exception):
    """Internal: the tokens do not form an expression here."""


class Value:
    """A compiled quantity, or the reason it is not one.

    Attributes:
        v: Magnitude in base units (bytes, seconds, FLOP, dollars...).
        w: Magnitude as written, with every unit scale taken as 1.
        a: Magnitude in base units with decimal and binary prefixes swapped.
        dims: Dimension vector.
        exact: Built only from integers written in full.
        ulp: One unit in the last written digit, in base units, when the value is
            a single literal (0 otherwise).
        sig: Significant digits written, for a single literal.
        why: None for a number; otherwise why it cannot be evaluated
            (``"symbolic"``, ``"range"``, ``"mixed units"``...).
        unit: The unit as written, for a single literal (``"GB/s"``).
        scale: For a single literal, the base-unit size of one written unit, so
            that ``v / scale`` is the number as written (with its suffix).
    """

    __slots__ = ("a", "dims", "exact", "scale", "sig", "ulp", "unit", "v", "w", "why")

    def __init__(
        self,
        v: float,
        w: float,
        a: float,
        dims: Dims = (),
        *,
        exact: bool = False,
        ulp: float = 0.0,
        sig: int = 0,
        why: str | None = None,
        unit: str = "",
        scale: float = 0.0,
    ) -> None:
        self.v = v
        self.w = w
        self.a = a
        self.dims = dims
        self.exact = exact
        self.ulp = ulp
        self.sig = sig
        self.why = why
        self.unit = unit
        self.scale = scale

    @classmethod
    def bad(cls, why: str) -> Value:
        """A value that cannot be evaluated, for the given reason."""
        return cls(math.nan, math.nan, math.nan, why=why)

    def __repr__(self) -> str:
        return f"Value(v={self.v!r}, dims={self.dims!r}, why={self.why!r})"


def _combine(left: Value, right: Value) -> Value | None:
    if left.why is not None:
        return left
    if right.why is not None:
        return right
    return None


def _mul(left: Value, right: Value) -> Value:
    bad = _combine(left, right)
    if bad is not None:
        return bad
    return Value(
        left.v * right.v,
        left.w * right.w,
        left.a * right.a,
        dims_mul(left.dims, right.dims),
        exact=left.exact and right.exact,
    )


def _div(left: Value, right: Value) -> Value:
    bad = _combine(left, right)
    if bad is not None:
        return bad
    if right.v == 0 or right.w == 0 or right.a == 0:
        return Value.bad("division by zero")
    return Value(
        left.v / right.v,
        left.w / right.w,
        left.a / right.a,
        dims_div(left.dims, right.dims),
        exact=left.exact and right.exact,
    )


def _add(left: Value, right: Value, sign: float) -> Value:
    bad = _combine(left, right)
    if bad is not None:
        return bad
    if left.dims != right.dims:
        return Value.bad("mixed units")
    return Value(
        left.v + sign * right.v,
        left.w + sign * right.w,
        left.a + sign * right.a,
        left.dims,
        exact=left.exact and right.exact,
    )


def _pow(base: Value, exponent: Value) -> Value:
    bad = _combine(base, exponent)
    if bad is not None:
        return bad
    if exponent.dims:
        return Value.bad("exponent with units")
    power = exponent.v
    dims: Dims = ()
    if base.dims:
        if power != int(power):
            return Value.bad("fractional power of a unit")
        dims = dims_pow(base.dims, int(power))
    try:
        return Value(
            base.v**power,
            base.w**power,
            base.a**power,
            dims,
            exact=base.exact and exponent.exact and power >= 0,
        )
    except (OverflowError, ZeroDivisionError):
        return Value.bad("overflow")
    except TypeError:  # pragma: no cover - complex result of a negative base
        return Value.bad("complex result")


def _unary(func: Callable[[float], float], *, keep_exact: bool = False) -> Callable[..., Value]:
    def apply(*args: Value) -> Value:
        if len(args) != 1:
            raise ParseFailed("one argument expected")
        (arg,) = args
        if arg.why is not None:
            return arg
        if arg.dims:
            return Value.bad("function of a quantity with units")
        try:
            return Value(func(arg.v), func(arg.w), func(arg.a), exact=keep_exact and arg.exact)
        except (ValueError, OverflowError):
            return Value.bad("math domain error")

    return apply


def _rounding(func: Callable[[float], float]) -> Callable[..., Value]:
    def apply(*args: Value) -> Value:
        if len(args) != 1:
            raise ParseFailed("one argument expected")
        (arg,) = args
        if arg.why is not None:
            return arg
        if arg.dims:
            # Round in the unit as written (ceil(2.5 GB) is 3 GB, not 2.5e9 bytes).
            factor = arg.v / arg.w if arg.w else 1.0
            return Value(func(arg.w) * factor, func(arg.w), func(arg.w) * factor, arg.dims)
        return Value(func(arg.v), func(arg.w), func(arg.a), exact=arg.exact)

    return apply


def _extreme(pick: Callable[..., Value]) -> Callable[..., Value]:
    def apply(*args: Value) -> Value:
        if not args:
            raise ParseFailed("arguments expected")
        for arg in args:
            if arg.why is not None:
                return arg
        if any(arg.dims != args[0].dims for arg in args):
            return Value.bad("mixed units")
        chosen = pick(args, key=lambda arg: arg.v)
        return Value(
            chosen.v,
            chosen.w,
            chosen.a,
            chosen.dims,
            exact=all(arg.exact for arg in args),
        )

    return apply


def _sqrt(*args: Value) -> Value:
    if len(args) != 1:
        raise ParseFailed("one argument expected")
    (arg,) = args
    if arg.why is not None:
        return arg
    if any(exp % 2 for _, exp in arg.dims):
        return Value.bad("square root of an odd power of a unit")
    if arg.v < 0:
        return Value.bad("square root of a negative number")
    dims = tuple((k, e // 2) for k, e in arg.dims)
    return Value(math.sqrt(arg.v), math.sqrt(arg.w), math.sqrt(arg.a), dims)


FUNCTIONS: dict[str, Callable[..., Value]] = {
    "min": _extreme(min),
    "max": _extreme(max),
    "ceil": _rounding(math.ceil),
    "floor": _rounding(math.floor),
    "round": _rounding(round),
    "sqrt": _sqrt,
    "log2": _unary(math.log2),
    "log10": _unary(math.log10),
    "log": _unary(math.log),
    "ln": _unary(math.log),
    "exp": _unary(math.exp),
    "sin": _unary(math.sin),
    "cos": _unary(math.cos),
}
"""Functions the parser knows, by name."""

_CONSTANTS = {"π": math.pi, "pi": math.pi}
_BINARY = {"+": 10, "-": 10, "×": 20, "*": 20, "/": 20, "^": 30, "**": 30}
_UNARY_PRECEDENCE = 25
_QUANTITY_ENDS = (Kind.NUM, Kind.RP, Kind.PCT)


_UNIT_VALUES: dict[tuple[str, bool], Value] = {}


def _unit_value(name: str, reverse: bool = False) -> Value:
    """A unit as a value; ``a`` reads a decimal prefix as binary (GB as GiB).

    With ``reverse``, binary prefixes are read as decimal instead (GiB as GB), for
    the other half of the prefix-ambiguity check.
    """
    # Values are never mutated, so one per spelling is shared.
    key = (name, reverse)
    value = _UNIT_VALUES.get(key)
    if value is None:
        spec = resolve_unit(name)
        binary = has_binary_prefix(name)
        if reverse:
            scale = spec.alt_scale if binary else spec.scale
            value = Value(scale, 1.0, scale, spec.dims, exact=True, unit=name)
        else:
            alt = spec.scale if binary else spec.alt_scale
            value = Value(spec.scale, 1.0, alt, spec.dims, exact=True, unit=name)
        _UNIT_VALUES[key] = value
    return value


_NOT_LABELS = frozenset(
    "and are but each for from into is not nor over per than that the then this "
    "via was were which while with yet also just only both".split()
)


def _is_label(name: str) -> bool:
    """A lowercase prose word (``layers``, ``heads``) that may name what a number counts."""
    return (
        len(name) >= 3
        and name.isalpha()
        and name.islower()
        and not is_unit_spelling(name)
        and name not in FUNCTIONS
        and name not in _CONSTANTS
        and name not in _NOT_LABELS
    )


def _bare_unit_ok(name: str) -> bool:
    """Whether a unit spelling standing alone (not after a number) reads as a unit."""
    return len(name) > 1 and name not in ("min", "Ah", "mA", "sec", "bit", "tok")


class Parser:
    """Parse and evaluate one run of tokens.

    Args:
        tokens: Tokens of one line.
        variables: Values defined earlier (``N = 8``), by name.
        reverse: Read binary prefixes as decimal ones (GiB as GB).
    """

    __slots__ = ("end", "pos", "reverse", "tokens", "variables")

    def __init__(
        self, tokens: list[Token], variables: Mapping[str, Value], *, reverse: bool = False
    ) -> None:
        self.tokens = tokens
        self.variables = variables
        self.reverse = reverse
        self.pos = 0
        self.end = len(tokens)

    def parse(self, start: int, end: int) -> tuple[Value, int]:
        """Parse the longest expression starting at ``start`` (not beyond ``end``).

        Returns:
            The value and the index of the first token not consumed.

        Raises:
            ParseFailed: No expression starts at ``start``.
        """
        self.pos = start
        self.end = end
        value = self._expression(0)
        return value, self.pos

    def _peek(self) -> Token | None:
        return self.tokens[self.pos] if self.pos < self.end else None

    def _expression(self, min_precedence: int) -> Value:
        left = self._unary()
        tokens = self.tokens
        while True:
            if self.pos >= self.end:
                break
            token = tokens[self.pos]
            if token.kind is not Kind.OP:
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
                left = _pow(left, right)
            elif op in ("×", "*"):
                left = _mul(left, self._expression(precedence + 1))
            elif op == "/":
                left = _div(left, self._expression(precedence + 1))
            else:
                is_range = op == "-" and self._is_range(op_index)
                right = self._expression(precedence + 1)
                if is_range:
                    left = Value.bad("range")
                else:
                    left = _add(left, right, 1.0 if op == "+" else -1.0)
        return left

    def _is_range(self, index: int) -> bool:
        """``5-7`` written without spaces, rising, is a range rather than a difference."""
        minus = self.tokens[index]
        before = self.tokens[index - 1] if index > 0 else None
        after = self.tokens[index + 1]
        return (
            before is not None
            and before.kind is Kind.NUM
            and after.kind is Kind.NUM
            and not minus.space_before
            and not after.space_before
            and before.value < after.value
        )

    def _unary(self) -> Value:
        if self.pos >= self.end:
            raise ParseFailed("expression expected")
        token = self.tokens[self.pos]
        if token.kind is Kind.OP and token.text in ("-", "+"):
            self.pos += 1
            operand = self._expression(_UNARY_PRECEDENCE)
            if token.text == "+" or operand.why is not None:
                return operand
            return Value(
                -operand.v,
                -operand.w,
                -operand.a,
                operand.dims,
                exact=operand.exact,
                ulp=operand.ulp,
                sig=operand.sig,
                unit=operand.unit,
                scale=operand.scale,
            )
        if token.kind is Kind.SQRT:
            self.pos += 1
            return _sqrt(self._expression(_UNARY_PRECEDENCE))
        return self._postfix(self._primary())

    def _primary(self) -> Value:
        if self.pos >= self.end:
            raise ParseFailed("expression expected")
        token = self.tokens[self.pos]
        kind = token.kind
        if kind is Kind.NUM:
            self.pos += 1
            value = Value(
                token.value,
                token.value,
                token.alt,
                exact=token.exact,
                ulp=token.ulp,
                sig=token.sig,
                scale=1.0,
            )
            if token.unit:
                unit = self._compound_unit(_unit_value(token.unit, self.reverse), token.unit)
                value = _literal_unit(value, unit)
            return value
        if kind is Kind.LP:
            self.pos += 1
            inner = self._expression(0)
            closing = self._peek()
            if closing is None or closing.kind is not Kind.RP:
                raise ParseFailed("missing )")
            self.pos += 1
            return Value(inner.v, inner.w, inner.a, inner.dims, exact=inner.exact, why=inner.why)
        if kind is Kind.DOLLAR:
            self.pos += 1
            dollar = _unit_value("$", self.reverse)
            following = self._peek()
            if following is not None and following.kind is Kind.NUM and not following.space_before:
                amount = self._primary()
                return _literal_unit(amount, dollar)
            return dollar
        if kind is Kind.NAME:
            return self._name(token)
        raise ParseFailed(f"unexpected {token.text!r}")

    def _name(self, token: Token) -> Value:
        name = token.text
        following = self.tokens[self.pos + 1] if self.pos + 1 < self.end else None
        if name in FUNCTIONS and following is not None and following.kind is Kind.LP:
            self.pos += 2
            args = [self._expression(0)]
            while (sep := self._peek()) is not None and sep.kind is Kind.COMMA:
                self.pos += 1
                args.append(self._expression(0))
            closing = self._peek()
            if closing is None or closing.kind is not Kind.RP:
                raise ParseFailed("missing )")
            self.pos += 1
            return FUNCTIONS[name](*args)
        self.pos += 1
        previous = self.tokens[self.pos - 2] if self.pos >= 2 else None
        after_slash = previous is not None and previous.kind is Kind.OP and previous.text == "/"
        if after_slash and is_unit_spelling(name):
            # "$/GB/month" is ($/GB)/month: leave the next "/" to the operator loop.
            return self._unit_power(_unit_value(name, self.reverse))
        if name in self.variables:
            known = self.variables[name]
            return Value(known.v, known.w, known.a, known.dims, exact=known.exact)
        if name in _CONSTANTS:
            return Value(_CONSTANTS[name], _CONSTANTS[name], _CONSTANTS[name])
        if is_unit_spelling(name) and _bare_unit_ok(name):
            return self._compound_unit(_unit_value(name, self.reverse), name)
        return Value.bad("symbolic")

    def _postfix(self, value: Value) -> Value:
        """Units, percent signs and glued parentheses that follow an operand."""
        tokens = self.tokens
        while True:
            if self.pos >= self.end:
                return value
            token = tokens[self.pos]
            kind = token.kind
            if (
                kind is Kind.NAME
                and not value.unit
                and is_unit_spelling(token.text)
                and tokens[self.pos - 1].kind in _QUANTITY_ENDS
            ):
                if token.text in FUNCTIONS and self._next_is_lp():
                    return value
                self.pos += 1
                unit = self._compound_unit(_unit_value(token.text, self.reverse), token.text)
                value = _literal_unit(value, unit)
                continue
            if (
                kind is Kind.NAME
                and not value.unit
                and token.space_before
                and tokens[self.pos - 1].kind is Kind.NUM
                and _is_label(token.text)
                and token.text not in self.variables
                and not self._next_is_lp()
            ):
                # "80 layers * 8 heads": a prose word naming what a number counts.
                self.pos += 1
                value = Value(
                    value.v,
                    value.w,
                    value.a,
                    value.dims,
                    exact=value.exact,
                    ulp=value.ulp,
                    sig=value.sig,
                    scale=value.scale,
                    unit=token.text,
                )
                continue
            if kind is Kind.PCT:
                self.pos += 1
                value = _literal_unit(value, Value(0.01, 0.01, 0.01, unit="%"))
                nxt = self._peek()
                if nxt is not None and nxt.kind is Kind.NAME and nxt.text == "of":
                    self.pos += 1
                    return _mul(value, self._expression(21))
                continue
            if kind is Kind.LP and not token.space_before:
                value = _mul(value, self._primary())
                continue
            return value

    def _next_is_lp(self) -> bool:
        index = self.pos + 1
        return index < self.end and self.tokens[index].kind is Kind.LP

    def _compound_unit(self, unit: Value, text: str) -> Value:
        """Absorb glued ``/unit``, ``×unit`` and ``^n`` (``GB/s``, ``tokens/s/GPU``)."""
        start = self.pos
        unit = self._unit_power(unit)
        while self.pos + 1 < self.end:
            op = self.tokens[self.pos]
            nxt = self.tokens[self.pos + 1]
            if op.kind is not Kind.OP or op.space_before or nxt.space_before:
                break
            if op.text in ("/", "×") and nxt.kind is Kind.NAME and is_unit_spelling(nxt.text):
                self.pos += 2
                other = self._unit_power(_unit_value(nxt.text, self.reverse))
                unit = _div(unit, other) if op.text == "/" else _mul(unit, other)
                continue
            break
        text += "".join(t.text for t in self.tokens[start : self.pos])
        return Value(unit.v, unit.w, unit.a, unit.dims, exact=unit.exact, unit=text)

    def _unit_power(self, unit: Value) -> Value:
        if self.pos + 1 < self.end:
            op = self.tokens[self.pos]
            nxt = self.tokens[self.pos + 1]
            if op.kind is Kind.OP and op.text == "^" and nxt.kind is Kind.NUM and nxt.exact:
                self.pos += 2
                return _pow(unit, Value(nxt.value, nxt.value, nxt.value, exact=True))
        return unit


def _literal_unit(value: Value, unit: Value) -> Value:
    """A number times its unit, keeping the literal's rounding information."""
    if value.why is not None:
        return value
    if unit.why is not None:
        return unit
    return Value(
        value.v * unit.v,
        value.w * unit.w,
        value.a * unit.a,
        dims_mul(value.dims, unit.dims),
        exact=value.exact and unit.exact,
        ulp=value.ulp * unit.v,
        sig=value.sig,
        unit=f"{value.unit} {unit.unit}".strip(),
        scale=(value.scale or 1.0) * unit.v,
    )

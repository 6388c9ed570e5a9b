"""Compiled quantities and the arithmetic on them: what the napkin parser evaluates to.

A :class:`Value` carries the number in base units, the number as written (unit
scales taken as 1, so ``48 GB`` is 48), the number with 1000/1024 prefixes swapped,
and a dimension vector; a value that cannot be computed carries the reason instead.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from functools import cache

from sysdrill.napkin.lexer import Token
from sysdrill.napkin.units import (
    Dims,
    dims_div,
    dims_mul,
    dims_pow,
    has_binary_prefix,
    resolve_unit,
)

__all__ = [
    "FUNCTIONS",
    "OVERFLOW",
    "TOO_LARGE",
    "ParseFailed",
    "Value",
    "add",
    "div",
    "literal_in_unit",
    "literal_unit",
    "literal_value",
    "mul",
    "power",
    "square_root",
    "unit_value",
]


class ParseFailed(Exception):
    """Internal: the tokens do not form an expression here."""


TOO_LARGE = "number too large"
"""How the reason of a literal beyond the float range starts (``number too large: 1e400``)."""
OVERFLOW = "overflow"
"""The reason of arithmetic whose result is beyond the float range (``1e300 GB * 1e300``)."""
_INF = math.inf
_NUMBER_PART = re.compile(r"[\d.,]+(?:[eE][-+]?\d+)?")
"""The figure of a literal's text, without a glued unit or suffix (``1e400`` of ``1e400GB``)."""


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

    def labelled(self, unit: str) -> Value:
        """A copy whose written unit is ``unit`` (a label such as ``layers``)."""
        return Value(
            self.v,
            self.w,
            self.a,
            self.dims,
            exact=self.exact,
            ulp=self.ulp,
            sig=self.sig,
            scale=self.scale,
            unit=unit,
        )

    def negated(self) -> Value:
        """A copy with the sign flipped (``-3 GB``), keeping what was written."""
        return Value(
            -self.v,
            -self.w,
            -self.a,
            self.dims,
            exact=self.exact,
            ulp=self.ulp,
            sig=self.sig,
            scale=self.scale,
            unit=self.unit,
        )

    def grouped(self) -> Value:
        """The value of ``(expression)``: what it computes, not what a literal wrote."""
        return Value(self.v, self.w, self.a, self.dims, exact=self.exact, why=self.why)

    @classmethod
    def bad(cls, why: str) -> Value:
        """A value that cannot be evaluated, for the given reason."""
        return cls(math.nan, math.nan, math.nan, why=why)

    def __repr__(self) -> str:
        return f"Value(v={self.v!r}, dims={self.dims!r}, why={self.why!r})"


def _too_large(token: Token) -> Value:
    """The bad value of a literal that no float holds (``1e400``, ``1e300 TB`` in bytes)."""
    figure = _NUMBER_PART.match(token.text)
    return Value.bad(f"{TOO_LARGE}: {figure.group(0) if figure else token.text}")


def _checked(v: float, w: float, a: float, dims: Dims, *, exact: bool) -> Value:
    """A computed value, or :data:`OVERFLOW` when a magnitude left the float range.

    Literals are finite (:func:`literal_value`), so an infinity or NaN here is made by
    the arithmetic (``1e300 GB * 1e300``, or ``inf - inf`` after it) and is never shown.
    """
    # Chained comparisons are False for NaN too, and cost less than math.isfinite calls.
    if -_INF < v < _INF and -_INF < w < _INF and -_INF < a < _INF:
        return Value(v, w, a, dims, exact=exact)
    return Value.bad(OVERFLOW)


def _combine(left: Value, right: Value) -> Value | None:
    if left.why is not None:
        return left
    if right.why is not None:
        return right
    return None


def mul(left: Value, right: Value) -> Value:
    """The product of two values."""
    # _combine inlined: this is the engine's most frequent operation.
    if left.why is not None:
        return left
    if right.why is not None:
        return right
    return _checked(
        left.v * right.v,
        left.w * right.w,
        left.a * right.a,
        dims_mul(left.dims, right.dims),
        exact=left.exact and right.exact,
    )


def div(left: Value, right: Value) -> Value:
    """The quotient of two values (a bad value on division by zero)."""
    if left.why is not None:
        return left
    if right.why is not None:
        return right
    if right.v == 0 or right.w == 0 or right.a == 0:
        return Value.bad("division by zero")
    return _checked(
        left.v / right.v,
        left.w / right.w,
        left.a / right.a,
        dims_div(left.dims, right.dims),
        exact=left.exact and right.exact,
    )


def add(left: Value, right: Value, sign: float) -> Value:
    """The sum (``sign`` 1) or difference (``sign`` -1); a bad value if dimensions differ."""
    bad = _combine(left, right)
    if bad is not None:
        return bad
    if left.dims != right.dims:
        return Value.bad("mixed units")
    return _checked(
        left.v + sign * right.v,
        left.w + sign * right.w,
        left.a + sign * right.a,
        left.dims,
        exact=left.exact and right.exact,
    )


def power(base: Value, exponent: Value) -> Value:
    """``base`` to a pure-number power (whole powers only for quantities with units)."""
    bad = _combine(base, exponent)
    if bad is not None:
        return bad
    if exponent.dims:
        return Value.bad("exponent with units")
    raised = exponent.v
    dims: Dims = ()
    if base.dims:
        if not math.isfinite(raised):
            return Value.bad(OVERFLOW)  # an infinite or NaN exponent (1e308 * 10)
        if raised != int(raised):
            return Value.bad("fractional power of a unit")
        dims = dims_pow(base.dims, int(raised))
    try:
        return _checked(
            base.v**raised,
            base.w**raised,
            base.a**raised,
            dims,
            exact=base.exact and exponent.exact and raised >= 0,
        )
    except (OverflowError, ZeroDivisionError):
        return Value.bad(OVERFLOW)
    except TypeError:  # pragma: no cover - complex result of a negative base
        return Value.bad("complex result")


def _one(args: tuple[Value, ...]) -> Value:
    """The single argument of a one-argument function."""
    if len(args) != 1:
        raise ParseFailed("one argument expected")
    return args[0]


def _unary(func: Callable[[float], float], *, keep_exact: bool = False) -> Callable[..., Value]:
    def apply(*args: Value) -> Value:
        arg = _one(args)
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
        arg = _one(args)
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


def square_root(*args: Value) -> Value:
    """The square root (units must be even powers)."""
    arg = _one(args)
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
    "sqrt": square_root,
    "log2": _unary(math.log2),
    "log10": _unary(math.log10),
    "log": _unary(math.log),
    "ln": _unary(math.log),
    "exp": _unary(math.exp),
    "sin": _unary(math.sin),
    "cos": _unary(math.cos),
}
"""Functions the parser knows, by name."""


@cache
def unit_value(name: str, reverse: bool = False) -> Value:
    """A unit as a value; ``a`` reads a decimal prefix as binary (GB as GiB).

    With ``reverse``, binary prefixes are read as decimal instead (GiB as GB), for
    the other half of the prefix-ambiguity check.
    """
    # One value per spelling is shared by every parse and thread: values that
    # leave this function are never changed (arithmetic makes new ones).
    spec = resolve_unit(name)
    binary = has_binary_prefix(name)
    if reverse:
        scale = spec.alt_scale if binary else spec.scale
        return Value(scale, 1.0, scale, spec.dims, exact=True, unit=name)
    alt = spec.scale if binary else spec.alt_scale
    return Value(spec.scale, 1.0, alt, spec.dims, exact=True, unit=name)


def literal_unit(value: Value, unit: Value) -> Value:
    """A number times its unit, keeping the literal's rounding information."""
    product = mul(value, unit)
    if product.why is None:
        # A fresh value, so setting the literal's fields is safe.
        product.ulp = value.ulp * unit.v
        product.sig = value.sig
        product.unit = f"{value.unit} {unit.unit}".strip()
        product.scale = (value.scale or 1.0) * unit.v
    return product


def literal_in_unit(token: Token, unit: Value) -> Value:
    """``literal_unit(literal_value(token), unit)``, built in one step (the common case)."""
    if unit.why is not None:
        return unit  # what mul gives for a unit that could not be read
    scale = unit.v
    v, w, a = token.value * scale, token.value * unit.w, token.alt * unit.a
    if not (-_INF < v < _INF and -_INF < w < _INF and -_INF < a < _INF):
        return _too_large(token)  # 1e400 GB, or 1e300 PB (finite, but not in bytes)
    return Value(
        v,
        w,
        a,
        unit.dims,
        exact=token.exact and unit.exact,
        ulp=token.ulp * scale,
        sig=token.sig,
        unit=unit.unit.strip(),
        scale=scale,
    )


def literal_value(token: Token) -> Value:
    """The value of a number token, with the rounding information of what was written.

    The one place a written number becomes a value: a literal beyond the float range
    (``1e400``, which the lexer reads as infinity) is refused here, so no infinity or
    NaN is computed from it or shown.
    """
    if not (-_INF < token.value < _INF and -_INF < token.alt < _INF):
        return _too_large(token)
    return Value(
        token.value,
        token.value,
        token.alt,
        exact=token.exact,
        ulp=token.ulp,
        sig=token.sig,
        scale=1.0,
    )

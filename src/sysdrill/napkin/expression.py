"""Evaluate napkin-math expressions with units (the ``sysdrill calc "EXPR"`` engine)."""

from __future__ import annotations

import math
from functools import cache

from sysdrill.errors import ExpressionSyntax, UnitMismatch
from sysdrill.napkin.lexer import Kind, normalize, tokenize
from sysdrill.napkin.parser import Parser
from sysdrill.napkin.results import CalcResult
from sysdrill.napkin.units import (
    COUNT_DIMENSIONS,
    Dims,
    format_dims,
    is_unit_spelling,
    resolve_unit,
)
from sysdrill.napkin.values import ParseFailed, Value

__all__ = ["calc_expression", "evaluate", "format_number", "format_value", "parse_unit"]

MAX_EXPRESSION_CHARS = 2000
"""Longest expression :func:`evaluate` reads; longer text is refused, not parsed."""


def evaluate(text: str) -> Value:
    """Parse and evaluate a whole expression.

    Args:
        text: The expression (LaTeX, Unicode and Markdown notation allowed).

    Returns:
        The compiled value (magnitude in base units and dimension vector).

    Raises:
        ExpressionSyntax: Not an expression, or it uses names that are not defined.
        UnitMismatch: Quantities of different dimensions are added or compared.
    """
    if len(text) > MAX_EXPRESSION_CHARS:
        raise ExpressionSyntax(
            f"expression is {len(text)} characters long; the limit is {MAX_EXPRESSION_CHARS}"
        )
    tokens = tokenize(normalize(text))
    if not tokens:
        raise ExpressionSyntax("empty expression; write one such as '2 * 100 MB / (50 GB/s)'")
    try:
        value, stop = Parser(tokens, {}).parse(0, len(tokens))
    except ParseFailed as exc:
        raise ExpressionSyntax(f"cannot read {text!r}: {exc}") from None
    except RecursionError:
        raise ExpressionSyntax("expression is nested too deeply") from None
    if stop != len(tokens):
        raise ExpressionSyntax(
            f"cannot read {text!r} from {tokens[stop].text!r} on; check operators and parentheses"
        )
    if value.why == "mixed units":
        raise UnitMismatch(f"{text!r} adds or compares quantities of different dimensions")
    if value.why is not None:
        names = [t.text for t in tokens if t.kind is Kind.NAME]
        hint = f" (names: {', '.join(names)})" if names else ""
        raise ExpressionSyntax(f"cannot evaluate {text!r}: {value.why}{hint}")
    return value


def parse_unit(text: str) -> tuple[float, Dims]:
    """Read a unit such as ``"ms"``, ``"GB/s"``, ``"%"`` or ``"$/GPU-hour"``.

    Returns:
        The unit's size in base units and its dimension vector.

    Raises:
        ExpressionSyntax: ``text`` is not a unit.
    """
    stripped = text.strip()
    if stripped == "%":
        return 0.01, ()
    if is_unit_spelling(stripped):
        spec = resolve_unit(stripped)
        return spec.scale, spec.dims
    tokens = tokenize(normalize(stripped))
    try:
        value, stop = Parser(tokens, {}).parse(0, len(tokens))
    except ParseFailed:
        stop, value = -1, Value.bad("syntax")
    if (
        not tokens
        or stop != len(tokens)
        or value.why is not None
        or any(t.kind is Kind.NUM for t in tokens)
    ):
        raise ExpressionSyntax(f"unknown unit {text!r}; try one such as 'ms', 'GB/s' or 'GiB'")
    return value.v, value.dims


def format_number(number: float, *, digits: int = 4) -> str:
    """Format a number with up to ``digits`` significant digits, for people.

    Integers below 10^15 keep all their digits and get thousands separators;
    very large or small numbers use ``e`` notation (``5.88e22``).
    """
    if number == 0 or not math.isfinite(number):
        return "0" if number == 0 else str(number)
    magnitude = abs(number)
    if magnitude >= 1e15 or magnitude < 1e-4:
        mantissa, _, exponent = f"{number:.{digits - 1}e}".partition("e")
        mantissa = mantissa.rstrip("0").rstrip(".") if "." in mantissa else mantissa
        return f"{mantissa}e{int(exponent)}"
    if number == round(number) and magnitude >= 10 ** (digits - 1):
        return f"{round(number):,}"
    text = f"{number:.{digits}g}"
    if "e" in text:
        return f"{number:,.0f}"
    if "." not in text and magnitude >= 1000:
        return f"{int(text):,}"
    return text


def _family(dims: Dims) -> tuple[tuple[str, float], ...] | None:
    """Display units for a dimension, largest first, as (spelling, scale)."""
    return _families().get(dims)


@cache
def _families() -> dict[Dims, tuple[tuple[str, float], ...]]:
    # Built whole, then returned: a thread never sees a half-built table.
    families: dict[Dims, tuple[tuple[str, float], ...]] = {}
    groups = {
        "time": ("years", "days", "h", "min", "s", "ms", "µs", "ns"),
        "bytes": ("PB", "TB", "GB", "MB", "KB", "byte"),
        "rate": ("PB/s", "TB/s", "GB/s", "MB/s", "KB/s", "byte/s"),
        "flop": ("EFLOP", "PFLOP", "TFLOP", "GFLOP", "MFLOP", "FLOP"),
        "flops": ("EFLOP/s", "PFLOP/s", "TFLOP/s", "GFLOP/s", "MFLOP/s", "FLOP/s"),
        "power": ("GW", "MW", "kW", "W", "mW", "µW"),
        "energy": ("GWh", "MWh", "kWh", "kJ", "J", "mJ", "µJ", "pJ"),
        "freq": ("GHz", "MHz", "kHz", "Hz"),
    }
    for spellings in groups.values():
        entries = []
        for spelling in spellings:
            if "/" in spelling:
                top, bottom = spelling.split("/")
                scale = resolve_unit(top).scale / resolve_unit(bottom).scale
                family_dims = _dims_ratio(top, bottom)
            else:
                spec = resolve_unit(spelling)
                scale, family_dims = spec.scale, spec.dims
            entries.append((spelling, scale))
        families[family_dims] = tuple(entries)
    return families


def _dims_ratio(top: str, bottom: str) -> Dims:
    from sysdrill.napkin.units import dims_div

    return dims_div(resolve_unit(top).dims, resolve_unit(bottom).dims)


def format_value(value: Value) -> tuple[float, str, str]:
    """Choose a sensible unit for a value and format it.

    Returns:
        ``(magnitude, unit, display)`` such as ``(3.5, "ms", "3.5 ms")``.
    """
    if not value.dims:
        return value.v, "", format_number(value.v)
    if value.dims == (("currency", 1),):
        return value.v, "$", f"${format_number(value.v, digits=6)}"
    family = _family(value.dims)
    if family is not None:
        magnitude = abs(value.v)
        for spelling, scale in family:
            if magnitude >= scale * 0.9999 or spelling == family[-1][0]:
                number = value.v / scale
                return number, spelling, f"{format_number(number)} {spelling}"
    unit = format_dims(value.dims)
    if all(key in COUNT_DIMENSIONS for key, _ in value.dims):
        unit = unit.replace("·", "×")
    return value.v, unit, f"{format_number(value.v)} {unit}"


def calc_expression(text: str, *, to_unit: str | None = None) -> CalcResult:
    """Evaluate an expression with units and express it in a sensible unit.

    Args:
        text: The expression, e.g. ``"2*(8-1)/8 * 100 MB / (50 GB/s)"``.
        to_unit: Unit to express the result in (e.g. ``"us"``); a sensible unit
            is chosen when None.

    Returns:
        The value, its unit, and a display string such as ``"3.5 ms"``.

    Raises:
        ExpressionSyntax: The text is not an expression, or uses unknown names.
        UnitMismatch: Dimensions do not agree (in a sum, or with ``to_unit``).
    """
    value = evaluate(text)
    if to_unit is None:
        magnitude, unit, display = format_value(value)
        return CalcResult(magnitude, unit, display)
    scale, dims = parse_unit(to_unit)
    if dims != value.dims:
        have = format_dims(value.dims) if value.dims else "a pure number"
        raise UnitMismatch(f"cannot express {have} in {to_unit}; choose a unit of the same kind")
    magnitude = value.v / scale
    unit = to_unit.strip()
    return CalcResult(magnitude, unit, f"{format_number(magnitude)} {unit}".strip())

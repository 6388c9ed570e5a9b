"""Evaluate napkin-math expressions with units (the ``sysdrill calc "EXPR"`` engine).

Showing the result is :mod:`sysdrill.napkin.quantity`'s job (one formatter).
"""

from __future__ import annotations

from sysdrill.errors import ExpressionSyntax, UnitMismatch
from sysdrill.napkin.lexer import Kind, normalize, tokenize
from sysdrill.napkin.parser import Parser
from sysdrill.napkin.units import (
    Dims,
    is_unit_spelling,
    resolve_unit,
)
from sysdrill.napkin.values import OVERFLOW, TOO_LARGE, ParseFailed, Value

__all__ = ["MAX_EXPRESSION_CHARS", "evaluate", "parse_unit"]

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

    A number beyond the float range (``1e400``), or arithmetic that leaves it, is an
    ExpressionSyntax naming the number: no infinity or NaN is ever returned.
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
    if value.why is not None and value.why.startswith(TOO_LARGE):
        raise ExpressionSyntax(value.why)  # "number too large: 1e400", the figure as typed
    if value.why == OVERFLOW:
        raise ExpressionSyntax(f"{text!r} gives a result too large to compute")
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

"""What a verdict says: the ok and wrong verdicts, the corrected line, numbers as written."""

from __future__ import annotations

import math
from collections.abc import Callable

from sysdrill.napkin.lexer import _SUFFIXES, NUM, Token
from sysdrill.napkin.results import ClaimVerdict, Verdict
from sysdrill.napkin.tolerances import Link, in_unit, is_integral
from sysdrill.napkin.values import Value

__all__ = ["format_like", "number_text", "ok_verdict", "replaced", "with_unit", "wrong_verdict"]


def ok_verdict(
    make: Callable[..., ClaimVerdict], left: Value, right: Value, unit: str
) -> ClaimVerdict:
    """The ok verdict, with both sides in the right side's written unit."""
    return make(
        Verdict.OK,
        "holds",
        computed=in_unit(left, right),
        claimed=in_unit(right, right),
        unit=unit,
    )


def format_like(number: float, token: Token | None, sig: int) -> str:
    """Format ``number`` in the style of the literal it replaces."""
    from sysdrill.napkin.quantity import format_number

    digits = max(3, sig + 1)
    if token is not None:
        text = token.text
        suffix = text[-1] if text[-1] in _SUFFIXES and not token.unit else ""
        if suffix:
            return format_number(number / _SUFFIXES[suffix], digits=digits) + suffix
        if "e" in text.lower() and not token.unit:
            mantissa, _, exponent = f"{number:.{digits - 1}e}".partition("e")
            return f"{mantissa}e{int(exponent)}"
    if is_integral(number) and abs(number) < 1e15:
        grouped = token is not None and "," in token.text
        return f"{round(number):,}" if grouped else str(round(number))
    return format_number(number, digits=digits)


def wrong_verdict(
    link: Link,
    computed: float,
    left: Value,
    right: Value,
    unit: str,
    line: str,
    norm: str,
    rhs_tokens: list[Token],
) -> ClaimVerdict:
    """A wrong verdict; ``computed`` is the left side in the right side's written unit.

    The message says what was computed and from what: ``expected 16 from 2048 /
    128; the line says 15``.
    """
    from sysdrill.napkin.quantity import format_value

    suggestion = None
    if right.scale:
        literal = next((t for t in rhs_tokens if t.kind is NUM), None)
        if literal is not None:
            new = format_like(computed, literal, right.sig) + literal.unit
            suggestion = replaced(line, norm, literal.start, literal.end, new)
        number = format_like(computed, literal, right.sig)
        shown = with_unit(number, unit)
        about = "" if _shows_exactly(number, computed) else "≈ "
    else:
        shown = format_value(left)[2]
        about = "" if is_integral(computed) and abs(computed) < 1e15 else "≈ "
    return link.verdict(
        Verdict.WRONG,
        f"expected {about}{shown} from {link.lhs}; the line says {link.rhs}",
        computed=computed,
        claimed=in_unit(right, right),
        unit=unit,
        suggestion=suggestion.strip() if suggestion else None,
    )


def _shows_exactly(number: str, value: float) -> bool:
    text = number.replace(",", "")
    factor = 1.0
    if text and text[-1] in _SUFFIXES:
        text, factor = text[:-1], _SUFFIXES[text[-1]]
    try:
        return math.isclose(float(text) * factor, value, rel_tol=1e-12)
    except ValueError:
        return False


def with_unit(number: str, unit: str) -> str:
    """A formatted number with its unit as written (``$2,520``, ``16%``, ``4 GB``)."""
    if unit == "$":
        return f"${number}"
    if unit == "%":
        return f"{number}%"
    return f"{number} {unit}".strip()


def replaced(line: str, norm: str, start: int, end: int, new: str) -> str:
    """The line with ``norm[start:end]`` replaced, in the line as written when it is unique."""
    old = norm[start:end]
    if line.count(old) == 1:
        return line.replace(old, new, 1)
    return norm[:start] + new + norm[end:]


def number_text(number: float) -> str:
    """A number for a message: grouped when whole, else four significant digits."""
    from sysdrill.napkin.quantity import format_number

    if is_integral(number) and abs(number) < 1e15:
        return f"{round(number):,}"
    return format_number(number, digits=4)

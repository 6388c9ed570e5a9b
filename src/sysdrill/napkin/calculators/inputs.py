"""Reading calculator inputs as people type them: ``50GB/s``, ``400 Gbps``, ``5 us``, ``7B``.

Every input is read by :func:`sysdrill.napkin.quantity.read_quantity`, the reader
the claim checker and answer grading use, so a spelling one of them reads is
accepted here too. The value then crosses into pint, in the calculator's unit,
because the calculators compute with pint quantities.
"""

from __future__ import annotations

import re

from sysdrill.errors import ExpressionSyntax, UnitMismatch
from sysdrill.napkin.calculators._quantity import Quantity, quantity
from sysdrill.napkin.quantity import read_in_unit, read_quantity

__all__ = ["parse_count", "parse_number", "parse_quantity"]


def parse_quantity(text: str, *, unit: str, name: str, default_unit: str | None = None) -> Quantity:
    """Read ``text`` as a quantity in ``unit``.

    Args:
        text: What the user typed, e.g. ``"50GB/s"``, ``"7B params"``, ``"$2/GPU-hour"``.
        unit: The unit the calculator works in, e.g. ``"byte / s"`` (a spelling
            both pint and our unit table read).
        name: The input's name, for messages (``"--bandwidth"``).
        default_unit: Unit of a number written without one (``"7B"``); None means a
            unit is required. Calculators give ``unit`` itself here.

    Returns:
        The pint quantity in ``unit``.

    Raises:
        ExpressionSyntax: ``text`` is not a number with a unit.
        UnitMismatch: the unit cannot be converted to ``unit``, or is missing.
    """
    example = _example(unit)
    try:
        number = read_in_unit(text, unit=unit, plain_in_unit=default_unit is not None)
    except UnitMismatch as exc:
        if not read_quantity(text).dims:
            raise UnitMismatch(f"{name}: {text!r} needs a unit (for example '{example}')") from exc
        raise UnitMismatch(
            f"{name}: {text!r} cannot be converted to {unit} (for example '{example}')"
        ) from exc
    except ExpressionSyntax as exc:
        raise ExpressionSyntax(f"{name}: {_reason(exc)}") from exc
    return quantity(number, unit)


def _reason(exc: ExpressionSyntax) -> str:
    text = str(exc)
    return text if text.startswith("unknown unit") else f"{text} (for example '1 GB')"


def parse_number(text: str, *, name: str) -> float:
    """Read a plain number or a percentage (``"0.4"``, ``"40%"``) as a float.

    Raises:
        ExpressionSyntax: ``text`` is not a number.
    """
    try:
        return read_in_unit(text, unit="")
    except (ExpressionSyntax, UnitMismatch):
        raise ExpressionSyntax(
            f"{name}: {text!r} is not a number (for example '0.4' or '40%')"
        ) from None


_THOUSANDS_OR_POWERS = re.compile(r"^\s*(\d[\d,]*(?:\.\d+)?)\s*([kKmM])\s*$")
"""A count written ``4k`` or ``1M``: people mean 4,000 as often as 4,096 (sequence lengths)."""


def parse_count(text: str, *, name: str) -> int:
    """Read a whole number (``"8"``, ``"65,536"``, ``"7B"``, ``"4*1024"``, ``"2^12"``).

    ``4k`` and ``1M`` are refused: for sequence lengths, hidden sizes or GPU
    counts they mean 4,096 as often as 4,000, and a silent guess would be wrong
    half the time. The message names both readings so the user can type one.

    Raises:
        ExpressionSyntax: ``text`` is not a whole number, or is an ambiguous ``k``/``M`` count.
    """
    ambiguous = _THOUSANDS_OR_POWERS.match(text)
    if ambiguous:
        number, suffix = float(ambiguous[1].replace(",", "")), ambiguous[2].lower()
        decimal, binary = (1000, 1024) if suffix == "k" else (1000**2, 1024**2)
        spelled = "*1024" if suffix == "k" else "*1024*1024"
        raise ExpressionSyntax(
            f"{name}: {text.strip()!r} is ambiguous: {number * decimal:,.0f} or "
            f"{number * binary:,.0f}? Type the number ({number * decimal:.0f}, or "
            f"{ambiguous[1]}{spelled} for {number * binary:,.0f})"
        )
    problem = ExpressionSyntax(f"{name}: {text!r} is not a whole number (for example '8')")
    try:
        value = read_in_unit(text, unit="")
    except (ExpressionSyntax, UnitMismatch):
        raise problem from None
    if "%" in text or not value.is_integer():
        raise problem
    return int(value)


_EXAMPLES = {
    "byte": "1 GB",
    "byte / s": "50 GB/s",
    "s": "5 us",
    "FLOP / s": "312 TFLOP/s",
    "FLOP / byte": "100 FLOP/byte",
    "FLOP": "3.1e23 FLOP",
    "param": "7B",
    "token": "1.4T",
    "token / s": "250000 tokens/s",
    "USD / GPU / hour": "$2.50/GPU-hour",
    "GPU * hour": "1000 GPU-hours",
    "byte / param": "16 B/param",
    "FLOP / token": "4.2e10 FLOP/token",
}


def _example(unit: str) -> str:
    return _EXAMPLES.get(unit, f"1 {unit}")

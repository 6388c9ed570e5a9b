"""Reading calculator inputs as people type them: ``50GB/s``, ``5 us``, ``7B``, ``40%``.

A quantity is one number (``65,536``, ``1.5e3``), an optional magnitude suffix
(``K``, ``M``, ``B``, ``T`` for thousand to trillion; only for counts such as
params, tokens and FLOPs, where ``B`` cannot mean byte), and a unit that pint
reads. Arithmetic belongs in ``sysdrill calc "EXPR"``, not in option values.
"""

from __future__ import annotations

import re

from sysdrill.errors import ExpressionSyntax, UnitMismatch
from sysdrill.napkin.calculators._quantity import Quantity, as_unit
from sysdrill.napkin.units import get_registry

__all__ = ["parse_count", "parse_number", "parse_quantity"]

_NUMBER = (
    r"[+-]?(?:\d{1,3}(?:,\d{3})+|\d+(?:_\d+)*)(?:\.\d*)?(?:[eE][+-]?\d+)?"
    r"|[+-]?\.\d+(?:[eE][+-]?\d+)?"
)
_QUANTITY = re.compile(rf"^\s*(\$)?\s*({_NUMBER})\s*(.*?)\s*$")
_SUFFIX = re.compile(r"^([kKMBGT])(?![A-Za-z])\s*(.*)$")
_SCALE = {"k": 1e3, "K": 1e3, "M": 1e6, "B": 1e9, "G": 1e9, "T": 1e12}
_COUNT_DIMENSIONS = ("param", "token", "FLOP", "sample", "GPU", "request")
_INFORMATION = ("byte", "bit")
"""A magnitude suffix is not read where a byte is expected (``16 B/param``)."""


def _to_float(text: str) -> float:
    return float(text.replace(",", "").replace("_", ""))


def _is_count_unit(unit: str) -> bool:
    # "16 B/param" is bytes: a suffix is read only where no byte is expected.
    if any(word in unit for word in _INFORMATION):
        return False
    return unit == "" or any(re.search(rf"\b{word}\b", unit) for word in _COUNT_DIMENSIONS)


def parse_quantity(text: str, *, unit: str, name: str, default_unit: str | None = None) -> Quantity:
    """Read ``text`` as a quantity convertible to ``unit``.

    Args:
        text: What the user typed, e.g. ``"50GB/s"``, ``"7B params"``, ``"$2/GPU-hour"``.
        unit: The unit the calculator works in (pint syntax), e.g. ``"byte / s"``.
        name: The input's name, for messages (``"--bandwidth"``).
        default_unit: Unit given to a bare number; None means a unit is required.

    Returns:
        The quantity in ``unit``.

    Raises:
        ExpressionSyntax: ``text`` is not a number with a unit.
        UnitMismatch: the unit cannot be converted to ``unit``, or is missing.
    """
    registry = get_registry()
    match = _QUANTITY.match(text)
    if match is None:
        raise ExpressionSyntax(
            f"{name}: cannot read {text!r} as a number with a unit (for example '{_example(unit)}')"
        )
    dollar, number, rest = match.groups()
    magnitude = _to_float(number)
    suffix = _SUFFIX.match(rest)
    if suffix is not None and _is_count_unit(unit):
        magnitude *= _SCALE[suffix.group(1)]
        rest = suffix.group(2)
    rest = _normalise_units(re.sub(r"\bGPU-hours?\b", "(GPU * hour)", rest))
    if dollar:
        rest = f"USD {rest}" if rest.startswith("/") else f"USD * {rest}" if rest else "USD"
    if rest in ("", "x", "×"):
        if default_unit is None:
            raise UnitMismatch(f"{name}: {text!r} needs a unit (for example '{_example(unit)}')")
        rest = default_unit
    try:
        units = registry.parse_units(rest.replace("$", "USD"))
    except Exception as exc:  # pint raises several unrelated types for bad unit text
        raise ExpressionSyntax(f"{name}: unknown unit {rest!r} in {text!r}") from exc
    value = registry.Quantity(magnitude, units)
    try:
        return as_unit(value, unit, name=name)
    except UnitMismatch as exc:
        raise UnitMismatch(
            f"{name}: {text!r} cannot be converted to {unit} (for example '{_example(unit)}')"
        ) from exc


def _normalise_units(text: str) -> str:
    """Rewrite the napkin spellings pint lacks: ``KB`` (kilo), ``TFLOPS`` and ``TOPS`` (rates)."""
    text = re.sub(r"\bK(B|b|bit|bits|byte|bytes|Hz|W|FLOP|FLOPs|MAC)\b", r"k\1", text)

    def rate(match: re.Match[str]) -> str:
        prefix = match.group(1).replace("K", "k")
        return f"{prefix}FLOP / s"

    return re.sub(r"\b([kKMGTPE]?)(?:FLOPS|OPS)\b", rate, text)


def parse_number(text: str, *, name: str) -> float:
    """Read a plain number or a percentage (``"0.4"``, ``"40%"``) as a float.

    Raises:
        ExpressionSyntax: ``text`` is not a number.
    """
    match = re.fullmatch(rf"\s*({_NUMBER})\s*(%?)\s*", text)
    if match is None:
        raise ExpressionSyntax(f"{name}: {text!r} is not a number (for example '0.4' or '40%')")
    value = _to_float(match.group(1))
    return value / 100 if match.group(2) else value


def parse_count(text: str, *, name: str) -> int:
    """Read a whole number, allowing ``K``/``M``/``B`` suffixes (``"8"``, ``"16K"``, ``"65,536"``).

    Raises:
        ExpressionSyntax: ``text`` is not a whole number.
    """
    match = re.fullmatch(rf"\s*({_NUMBER})\s*([kKMBT]?)\s*", text)
    if match is None:
        raise ExpressionSyntax(f"{name}: {text!r} is not a whole number (for example '8')")
    value = _to_float(match.group(1)) * _SCALE.get(match.group(2), 1)
    if not value.is_integer():
        raise ExpressionSyntax(f"{name}: {text!r} is not a whole number (for example '8')")
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

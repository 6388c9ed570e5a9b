"""Helpers shared by the calculators: unit checks, range checks and display.

pint has no type stubs, so quantities are typed as ``Quantity`` (an alias of
``Any``) to keep signatures readable.
"""

from __future__ import annotations

import math
import re
from enum import Enum
from typing import Any, TypeAlias

from sysdrill.errors import UnitMismatch, UsageError
from sysdrill.napkin.units import get_registry

__all__ = [
    "Quantity",
    "as_unit",
    "describe",
    "quantity",
    "require_count",
    "require_fraction",
    "require_positive",
]

Quantity: TypeAlias = Any
"""A ``pint.Quantity`` from :func:`sysdrill.napkin.units.get_registry`."""


def quantity(value: float, unit: str) -> Quantity:
    """Build a quantity in the shared registry."""
    return get_registry().Quantity(value, unit)


def as_unit(value: Quantity, unit: str, *, name: str) -> Quantity:
    """Return ``value`` converted to ``unit``, or raise if its dimension differs.

    Args:
        value: A pint quantity.
        unit: The unit the calculator works in (for example ``"byte / second"``).
        name: The argument's name, for the error message.

    Raises:
        UnitMismatch: ``value`` is not a quantity, or not convertible to ``unit``.
    """
    registry = get_registry()
    if not isinstance(value, registry.Quantity):
        raise UnitMismatch(
            f"{name} needs a unit compatible with {unit}, got the bare number {value!r}"
        )
    if not value.is_compatible_with(unit) or _information_power(value) != _information_power(
        registry.Quantity(1, unit)
    ):
        raise UnitMismatch(
            f"{name} is {format(value.units, '~P') or 'dimensionless'}, "
            f"which cannot be converted to {unit}"
        )
    return value.to(unit)


def _information_power(value: Quantity) -> int:
    """Net power of bits and bytes in a quantity's units.

    pint's default bit and byte are dimensionless, so ``50 /s`` would pass as a
    bandwidth; counting them keeps bytes from mixing with plain numbers.
    """
    # pint spells bit/s "baud": "Gbps" parses as gigabaud.
    return sum(
        int(power)
        for name, power in value.unit_items()
        if str(name).endswith(("bit", "byte", "baud"))
    )


def require_count(value: int, *, name: str, minimum: int = 1) -> int:
    """Return ``value`` if it is an integer of at least ``minimum``, else raise UsageError."""
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise UsageError(f"{name} must be a whole number of at least {minimum}, got {value!r}")
    return value


def require_positive(value: Quantity, *, name: str) -> Quantity:
    """Return ``value`` if its magnitude is finite and above zero, else raise UsageError."""
    magnitude = float(value.magnitude if hasattr(value, "magnitude") else value)
    if not (math.isfinite(magnitude) and magnitude > 0):
        raise UsageError(f"{name} must be greater than zero, got {value}")
    return value


def require_fraction(
    value: float, *, name: str, allow_zero: bool = True, allow_one: bool = True
) -> float:
    """Return ``value`` if it lies in [0, 1] (ends as allowed), else raise UsageError."""
    low_ok = value > 0 or (allow_zero and value == 0)
    high_ok = value < 1 or (allow_one and value == 1)
    if not (math.isfinite(value) and low_ok and high_ok):
        low = "[" if allow_zero else "("
        high = "]" if allow_one else ")"
        raise UsageError(f"{name} must lie in {low}0, 1{high}, got {value!r}")
    return value


def _count_text(magnitude: float, digits: int) -> str:
    for scale, suffix in ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "K")):
        if abs(magnitude) >= scale:
            return f"{magnitude / scale:.{digits}g}{suffix}"
    return f"{magnitude:.{digits}g}"


def _time_text(seconds: float, digits: int) -> str:
    # Long spans read better in minutes, hours or days than in kiloseconds.
    year, day = 86400 * 365, 86400
    spans = ((2 * year, year, "years"), (7 * day, day, "days"), (7200, 3600, "hours"))
    for threshold, size, unit in (*spans, (120, 60, "min")):
        if abs(seconds) >= threshold:
            return f"{seconds / size:.{digits}g} {unit}"
    return describe(quantity(seconds, "s").to_compact(), digits=digits)


def _plain_number(value: float | int) -> str:
    if isinstance(value, int) or (value.is_integer() and abs(value) < 1e15):
        return f"{int(value):,}"
    return f"{value:.6g}"


_COUNTS = ("param", "token", "sample")

_FIXED_FORMS: dict[tuple[tuple[str, int], ...], str] = {
    (("GPU", -1), ("USD", 1), ("hour", -1)): "${:,.2f}/GPU-hour",
    (("FLOP", 1), ("byte", -1)): "{:.4g} FLOP/B",
}
"""Units shown without an SI prefix: prices per GPU-hour and arithmetic intensity."""


def describe(value: Quantity, *, digits: int = 4) -> str:
    """Render a value for people with ``digits`` significant figures.

    Times use ms/us/s up to two minutes, then min, hours, days, years;
    FLOP counts use scientific notation; params and tokens use K/M/B/T;
    dollars and GPU-hours use thousands separators; plain numbers keep six
    significant figures; other quantities take the nearest SI prefix
    (``3.5 ms``, ``175 MB``, ``28.57 GB/s``).
    """
    registry = get_registry()
    if isinstance(value, Enum):
        return str(value.value)
    if isinstance(value, bool) or not isinstance(value, float | int | registry.Quantity):
        return str(value)
    if not isinstance(value, registry.Quantity):
        return _plain_number(value)
    names = dict(value.unit_items())
    key = tuple(sorted(names.items()))
    magnitude = float(value.magnitude)
    if value.dimensionless and not names:
        return f"{magnitude:.{digits}g}"
    if key in _FIXED_FORMS:
        return _FIXED_FORMS[key].format(magnitude)
    if value.check("[time]") and len(names) == 1:
        seconds = float(value.to("s").magnitude)
        if abs(seconds) >= 120:
            return _time_text(seconds, digits)
    if names == {"USD": 1}:
        return f"${magnitude:,.2f}" if abs(magnitude) < 1e6 else f"${magnitude:,.0f}"
    if names == {"GPU": 1, "hour": 1}:
        return (
            f"{magnitude:,.0f} GPU-hours" if abs(magnitude) >= 100 else f"{magnitude:.3g} GPU-hours"
        )
    if names == {"FLOP": 1}:
        return f"{magnitude:.{min(digits, 3)}g} FLOP"
    counted = [name for name, power in names.items() if name in _COUNTS and power == 1]
    if counted and (len(names) == 1 or names.get("second") == -1) and len(names) <= 2:
        rate = "/s" if len(names) == 2 else ""
        count = float(value.to(f"{counted[0]}{rate}").magnitude)
        return f"{_count_text(count, digits)} {counted[0]}s{rate}"
    compact = value.to_compact() if magnitude != 0 else value
    # pint's symbols for our count units are plural ("tokens"); per-unit rates read singular.
    unit = re.sub(
        r"/(tokens|params|samples|GPUs)\b",
        lambda m: "/" + m.group(1)[:-1],
        format(compact.units, "~P"),
    )
    text = f"{compact.magnitude:.{digits}g}"
    return f"{text} {unit}" if unit else text

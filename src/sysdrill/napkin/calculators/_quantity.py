"""Helpers shared by the calculators: unit checks, range checks and display.

pint has no type stubs, so quantities are typed as ``Quantity`` (an alias of
``Any``) to keep signatures readable.
"""

from __future__ import annotations

import math
from enum import Enum
from typing import Any, TypeAlias

from sysdrill.errors import UnitMismatch, UsageError
from sysdrill.napkin.quantity import format_number, format_quantity
from sysdrill.napkin.units import from_pint, get_registry

__all__ = [
    "Percent",
    "Quantity",
    "as_unit",
    "describe",
    "quantity",
    "require_count",
    "require_fraction",
    "require_non_negative",
    "require_positive",
]

Quantity: TypeAlias = Any
"""A ``pint.Quantity`` from :func:`sysdrill.napkin.units.get_registry`."""


class Percent(float):
    """A dimensionless fraction (0.25) that people read as a percentage (``25%``).

    It is a float, so arithmetic and JSON see the fraction; only :func:`describe`
    shows it as a percentage.
    """

    __slots__ = ()


def quantity(value: float, unit: str) -> Quantity:
    """Build a quantity in the shared registry."""
    return get_registry().Quantity(value, unit)


def as_unit(value: Quantity, unit: str, *, name: str) -> Quantity:
    """Return ``value`` converted to ``unit``, or raise if its dimension differs.

    Dimensions are compared in our unit system (:func:`sysdrill.napkin.units.from_pint`),
    where bytes are a dimension: pint alone would let ``50 /s`` pass as a bandwidth.

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
    if from_pint(value)[1] != from_pint(registry.Quantity(1, unit))[1]:
        raise UnitMismatch(
            f"{name} is {format(value.units, '~P') or 'dimensionless'}, "
            f"which cannot be converted to {unit}"
        )
    return value.to(unit)


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


def require_non_negative(value: Quantity, *, name: str) -> Quantity:
    """Return ``value`` if its magnitude is finite and at least zero, else raise UsageError."""
    magnitude = float(value.magnitude if hasattr(value, "magnitude") else value)
    if not (math.isfinite(magnitude) and magnitude >= 0):
        raise UsageError(f"{name} must not be negative, got {describe(value)}")
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


def describe(value: Any) -> str:
    """Render a calculator input or output for people, with the one napkin formatter.

    Quantities go through :func:`sysdrill.napkin.quantity.format_quantity`
    (``3.5 ms``, ``1.75 GB``, ``7B params``, ``$2.50/GPU-hour``); plain numbers
    keep six significant digits; enums show their value; a :class:`Percent`
    shows as a percentage with four significant digits (``15.79%``).
    """
    registry = get_registry()
    if isinstance(value, Enum):
        return str(value.value)
    if isinstance(value, Percent):
        return _percent(value)
    if isinstance(value, registry.Quantity):
        return format_quantity(*from_pint(value))[2]
    if isinstance(value, bool) or not isinstance(value, float | int):
        return str(value)
    return format_number(value, digits=6)


def _percent(value: float) -> str:
    if not math.isfinite(value):
        return format_number(value, digits=4)
    return f"{format_number(value * 100, digits=4)}%"

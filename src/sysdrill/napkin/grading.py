"""Grade typed numeric answers ("3600 us" against an expected 3.6 ms)."""

from __future__ import annotations

import re

from sysdrill.errors import NapkinError, UnitMismatch
from sysdrill.napkin.expression import parse_unit
from sysdrill.napkin.quantity import format_number, read_in_unit, read_quantity
from sysdrill.napkin.results import NumericGrade

__all__ = ["example_answer", "grade_numeric_answer", "unreadable_answer"]

_HEDGE = re.compile(
    r"^(?:about|around|roughly|approximately|approx\.?|circa|ca\.)\s+", re.IGNORECASE
)
"""Words people put before an estimate ("about 128 KiB"); the number is read alone."""
_THOUSANDS = re.compile(r"^([-+]?(?:\d[\d,]*\.?\d*|\.\d+)(?:e[-+]?\d+)?)\s*([kKMG])$")
"""A number with a bare multiplier, "128 k" or "1.2M": thousands of the unit's base."""
_MULTIPLIERS = {"k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9}
_SPACED_THOUSANDS = re.compile(r"^([-+~≈]?\s*\d{1,3})((?:[ \u00a0\u202f]\d{3})+)(?!\d)")
"""Digits grouped by spaces, "14 000 MB" (thin and no-break spaces too)."""
_NUMBER_WORDS = {"thousand": "e3", "million": "e6", "billion": "e9", "trillion": "e12"}
_NUMBER_WORD = re.compile(r"(\d)\s*(thousand|million|billion|trillion)\b", re.IGNORECASE)
"""A count in words after a number, "14 billion bytes"."""


def _read_given(given: str, unit_text: str) -> float:
    """Read a typed answer in ``unit_text``, as people type it.

    Hedges ("about"), bare multipliers ("128 k"), a closing full stop, digits
    grouped by spaces ("14 000 MB") and counts in words ("14 billion bytes") are
    allowed.

    Raises:
        NapkinError: If the text is no quantity, or not in the unit's dimension.
    """
    text = _HEDGE.sub("", given.strip()).rstrip(" .!;,")
    text = _SPACED_THOUSANDS.sub(lambda m: m.group(1) + re.sub(r"\s", "", m.group(2)), text)
    text = _NUMBER_WORD.sub(lambda m: m.group(1) + _NUMBER_WORDS[m.group(2).lower()], text)
    bare = _THOUSANDS.match(text)
    if bare is not None:
        number = float(bare.group(1).replace(",", "")) * _MULTIPLIERS[bare.group(2)]
        if not unit_text:
            return number
        # "128 k" against KiB is 128 thousand bytes: the multiplier scales the base unit.
        one_unit = float(read_quantity(example_answer(1, unit_text)).v)
        return number / one_unit
    return read_in_unit(text, unit=unit_text, plain_in_unit=True)


def unreadable_answer(given: str, *, expected_value: float, expected_unit: str) -> str | None:
    """Why ``given`` cannot be read as an answer in ``expected_unit``, or None if it can.

    A quantity in the wrong dimension is readable (it is graded wrong); text that
    is no quantity at all gets the form to type, such as ``'128 KiB'``.
    """
    try:
        _read_given(given, expected_unit.strip())
    except UnitMismatch:
        return None
    except NapkinError:
        return (
            f"Could not read {given.strip()!r} as a number; type a value such as "
            f"'{example_answer(expected_value, expected_unit.strip())}'."
        )
    return None


def example_answer(value: float, unit: str) -> str:
    """How a learner would type ``value`` in ``unit``: ``"3.5 ms"``, ``"$1.8/GPU-hour"``, ``"8"``.

    Dollars go in front, as people write them (``2.5 $`` is not read as a sum of money).
    """
    unit = unit.strip()
    number = format_number(value, digits=6)
    if unit.startswith("$"):
        return f"${number}{unit[1:]}"
    return f"{number} {unit}" if unit else number


def grade_numeric_answer(
    given: str, *, expected_value: float, expected_unit: str, tolerance: float
) -> NumericGrade:
    """Grade a typed answer against the expected value.

    The answer is read like every quantity in sysdrill
    (:func:`sysdrill.napkin.quantity.read_quantity`), so any spelling the claim
    checker and the calculators read is accepted here too.

    Args:
        given: What the learner typed: ``"3.6 ms"``, ``"3600 us"``, or a plain
            number, which is read in ``expected_unit``.
        expected_value: The right answer, in ``expected_unit``.
        expected_unit: Unit of ``expected_value`` (``""`` for a pure number).
        tolerance: Accepted relative error as a fraction (0.05 is 5 %).

    Returns:
        Whether it is correct, the given value in ``expected_unit``, and a message
        (naming the expected unit when the dimension is wrong).

    Raises:
        ExpressionSyntax: ``expected_unit`` is not a unit (a content error).
    """
    unit_text = expected_unit.strip()
    if unit_text:
        parse_unit(unit_text)  # a content error, raised before the learner's answer is read
    shown_unit = f" {unit_text}" if unit_text else ""
    try:
        value_in_unit = _read_given(given, unit_text)
    except UnitMismatch as exc:
        return NumericGrade(False, None, f"{exc}.")
    except NapkinError:
        return NumericGrade(
            False,
            None,
            f"Could not read {given.strip()!r} as a number; type a value such as "
            f"'{example_answer(expected_value, unit_text)}'.",
        )
    scale = max(abs(expected_value), 1e-300)
    # A relative 1e-9 on top of the tolerance absorbs unit-conversion rounding, so an
    # exact answer (tolerance 0) typed in another unit still counts.
    correct = abs(value_in_unit - expected_value) <= (tolerance * (1 + 1e-9) + 1e-9) * scale
    if expected_value == 0:
        correct = abs(value_in_unit) <= tolerance
    expected_text = f"{format_number(expected_value)}{shown_unit}"
    if correct:
        message = f"Correct: {format_number(value_in_unit)}{shown_unit} (expected {expected_text})."
    else:
        message = (
            f"Not quite: {format_number(value_in_unit)}{shown_unit}, expected {expected_text} "
            f"within {tolerance:.0%}."
        )
    return NumericGrade(correct, value_in_unit, message)

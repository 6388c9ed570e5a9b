"""Grade typed numeric answers ("3600 us" against an expected 3.6 ms)."""

from __future__ import annotations

from sysdrill.errors import NapkinError, UnitMismatch
from sysdrill.napkin.answers import read_answer
from sysdrill.napkin.expression import parse_unit
from sysdrill.napkin.quantity import format_number
from sysdrill.napkin.results import NumericGrade

__all__ = [
    "answer_form",
    "example_answer",
    "form_example",
    "grade_numeric_answer",
    "tolerance_text",
    "unreadable_answer",
]

_EXAMPLE_NUMBERS = (3.0, 40.0)
"""The numbers an answer form's example uses: the first unless the answer is near it."""
_NEAR = 2.5
"""How close (as a ratio) an example may come to the answer before the next is used."""
_SHOWN_CHARS = 60
"""Longest part of an unreadable reply quoted back to the learner."""


def tolerance_text(expected_value: float, unit: str, tolerance: float) -> str:
    """What a tolerance accepts, in words that cannot be misread for a percentage answer.

    "within 2%" of 15.79 % reads as 13.79 to 17.79 %; the tolerance is relative, so
    the accepted range is given too: ``within 2 % of it: 15.47 to 16.11 %``.

    Args:
        expected_value: The expected answer, in ``unit``.
        unit: The expected unit (``""`` for a plain number).
        tolerance: Relative tolerance, a fraction (0.02 for 2 %); absolute when
            ``expected_value`` is 0, as :func:`grade_numeric_answer` reads it.
    """
    shown_unit = f" {unit}" if unit else ""
    if tolerance <= 0:
        return "exactly"
    allowed = tolerance * abs(expected_value) if expected_value else tolerance
    low, high = expected_value - allowed, expected_value + allowed
    accepted = f"{format_number(low)} to {format_number(high)}{shown_unit}"
    if not expected_value:  # nothing to be a share of: the tolerance is absolute
        return f"from {accepted}"
    return f"within {tolerance * 100:g} % of it: {accepted}"


def answer_form(unit: str, *, avoid: float | None = None) -> str:
    """The form an answer in ``unit`` takes, with an example that is never the answer.

    The example shows the unit and how to write it (a dollar sign in front, a
    percent sign after); its number is 3, or 40 when ``avoid`` (the expected
    value) is within a factor of 2.5 of 3, so that typing the example back is
    never right, whatever the tolerance short of 150 %.

    Args:
        unit: The expected unit (``""`` for a plain number).
        avoid: The expected value, which the example must not come near.

    Returns:
        ``"a number with a unit, like 3 ms"``, ``"a plain number, like 3"``,
        ``"a percentage, like 3%"`` or ``"an amount in dollars, like $3/GPU-hour"``.
    """
    unit = unit.strip()
    example = form_example(unit, avoid=avoid)
    if not unit:
        return f"a plain number, like {example}"
    if unit == "%":
        return f"a percentage, like {example.replace(' %', '%')}"
    if unit.startswith("$"):
        return f"an amount in dollars, like {example}"
    return f"a number with a unit, like {example}"


def form_example(unit: str, *, avoid: float | None = None) -> str:
    """What :func:`answer_form` shows as its example: ``"3 ms"``, ``"$40/GPU-hour"``, ``"3"``.

    Args:
        unit: The expected unit (``""`` for a plain number).
        avoid: The expected value, which the example is never near (a factor of 2.5).
    """
    number = _EXAMPLE_NUMBERS[0]
    if avoid is not None and avoid != 0 and 1 / _NEAR <= avoid / number <= _NEAR:
        number = _EXAMPLE_NUMBERS[1]
    return example_answer(number, unit.strip())


def _unreadable_message(given: str, unit: str, expected_value: float) -> str:
    shown = given.strip()
    if len(shown) > _SHOWN_CHARS:
        shown = shown[:_SHOWN_CHARS] + "..."
    return f"Could not read {shown!r} as a number; type {answer_form(unit, avoid=expected_value)}."


def unreadable_answer(given: str, *, expected_value: float, expected_unit: str) -> str | None:
    """Why ``given`` cannot be read as an answer in ``expected_unit``, or None if it can.

    A quantity in the wrong dimension is readable (it is graded wrong); text that
    is no quantity at all (or gives no single value: a bound, two alternatives)
    gets the form to type (:func:`answer_form`), such as "a number with a unit,
    like 3 KiB", never the expected value. How answers are read:
    :mod:`sysdrill.napkin.answers`.
    """
    try:
        read_answer(given, unit=expected_unit.strip(), expected_value=expected_value)
    except UnitMismatch:
        return None
    except NapkinError:
        return _unreadable_message(given, expected_unit.strip(), expected_value)
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
        low, high = read_answer(given, unit=unit_text, expected_value=expected_value)
    except UnitMismatch as exc:
        return NumericGrade(False, None, f"{exc}.")
    except NapkinError:
        return NumericGrade(False, None, _unreadable_message(given, unit_text, expected_value))
    value_in_unit = low / 2 + high / 2  # halves first: two ends near 1e308 sum to inf
    scale = max(abs(expected_value), 1e-300)
    # A relative 1e-9 on top of the tolerance absorbs unit-conversion rounding, so an
    # exact answer (tolerance 0) typed in another unit still counts.
    allowed = (tolerance * (1 + 1e-9) + 1e-9) * scale
    if expected_value == 0:
        allowed = tolerance
    # A range counts when its middle is within the tolerance and neither end is off by
    # more than twice it: "14-15 GB" for 14 GB, not "10-20 GB".
    correct = abs(value_in_unit - expected_value) <= allowed and all(
        abs(end - expected_value) <= 2 * allowed for end in (low, high)
    )
    expected_text = f"{format_number(expected_value)}{shown_unit}"
    if correct:
        message = f"Correct: {format_number(value_in_unit)}{shown_unit} (expected {expected_text})."
    else:
        message = (
            f"Not quite: {format_number(value_in_unit)}{shown_unit}, expected {expected_text} "
            f"({tolerance_text(expected_value, unit_text, tolerance)})."
        )
    return NumericGrade(correct, value_in_unit, message)

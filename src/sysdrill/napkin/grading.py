"""Grade typed numeric answers ("3600 us" against an expected 3.6 ms)."""

from __future__ import annotations

from sysdrill.errors import NapkinError
from sysdrill.napkin.expression import evaluate, format_number, parse_unit
from sysdrill.napkin.lexer import Kind, normalize, tokenize
from sysdrill.napkin.results import NumericGrade
from sysdrill.napkin.units import Dims, format_dims, is_unit_spelling

__all__ = ["grade_numeric_answer"]


def grade_numeric_answer(
    given: str, *, expected_value: float, expected_unit: str, tolerance: float
) -> NumericGrade:
    """Grade a typed answer against the expected value.

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
    unit_scale: float = 1.0
    unit_dims: Dims = ()
    if unit_text:
        unit_scale, unit_dims = parse_unit(unit_text)
    shown_unit = f" {unit_text}" if unit_text else ""
    try:
        value = evaluate(given)
    except NapkinError:
        return NumericGrade(
            False,
            None,
            f"Could not read {given.strip()!r} as a number; type a value such as "
            f"'{format_number(expected_value)}{shown_unit}'.",
        )
    if _is_plain(given):
        # A plain number is read in the expected unit.
        value_in_unit = value.v
    elif value.dims != unit_dims:
        have = format_dims(value.dims) if value.dims else "a pure number"
        want = unit_text or "a pure number"
        return NumericGrade(
            False, None, f"{given.strip()!r} is in {have}; the answer is expected in {want}."
        )
    else:
        value_in_unit = value.v / unit_scale
    scale = max(abs(expected_value), 1e-300)
    correct = abs(value_in_unit - expected_value) <= tolerance * scale * (1 + 1e-9)
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


def _is_plain(text: str) -> bool:
    """Whether an answer is written without any unit, percent or currency sign."""
    return not any(
        token.kind in (Kind.PCT, Kind.DOLLAR)
        or token.unit
        or (token.kind is Kind.NAME and is_unit_spelling(token.text))
        for token in tokenize(normalize(text))
    )

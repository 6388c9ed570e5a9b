"""A reply that cannot be read is asked again with the form expected, never the answer (issue 29).

The re-prompt used to be "type a value such as '12.276 ms'", where the example was
the expected answer itself: typing it back scored Correct.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sysdrill.napkin.grading import (
    answer_form,
    example_answer,
    grade_numeric_answer,
    unreadable_answer,
)
from sysdrill.napkin.quantity import format_number

UNITS = ("ms", "s", "hours", "KiB", "GB", "GB/s", "TFLOP/s", "", "%", "$", "$/GPU-hour", "samples")


def _example(message: str) -> str:
    """The example a re-prompt gives: what follows ``like``."""
    return message.rsplit("like ", 1)[1].rstrip(".")


def test_the_reprompt_of_a_typo_names_the_form_not_the_answer() -> None:
    message = unreadable_answer("twelve-ish", expected_value=12.276, expected_unit="ms")
    assert (
        message == "Could not read 'twelve-ish' as a number; type a number with a unit, like 3 ms."
    )
    assert "12.276" not in message and "12.28" not in message


@pytest.mark.parametrize(
    ("unit", "form"),
    [
        ("ms", "a number with a unit, like 3 ms"),
        ("", "a plain number, like 3"),
        ("%", "a percentage, like 3%"),
        ("$/GPU-hour", "an amount in dollars, like $3/GPU-hour"),
    ],
)
def test_the_answer_form_follows_the_unit_only(unit: str, form: str) -> None:
    assert answer_form(unit, avoid=1000.0) == form


def test_an_answer_near_the_example_number_gets_another_example() -> None:
    assert answer_form("ms", avoid=3.0) == "a number with a unit, like 40 ms"
    assert answer_form("ms", avoid=7.0) == "a number with a unit, like 40 ms"
    assert answer_form("ms", avoid=8.0) == "a number with a unit, like 3 ms"


@settings(max_examples=300, derandomize=True, database=None)
@given(
    value=st.one_of(
        st.floats(min_value=1e-6, max_value=1e12),
        st.floats(min_value=-1e12, max_value=-1e-6),
        st.sampled_from([3.0, 40.0, 12.276, 1.0, 7.5, 2.9, 100.0]),
    ),
    unit=st.sampled_from(UNITS),
    tolerance=st.sampled_from([0.0, 0.05, 0.2, 0.5]),
    typo=st.sampled_from(["lots", "12.3 msx", "forty-ish", "?", "a few", "n/a x"]),
)
def test_typing_back_the_reprompt_is_never_graded_correct(
    value: float, unit: str, tolerance: float, typo: str
) -> None:
    message = unreadable_answer(typo, expected_value=value, expected_unit=unit)
    assert message is not None
    example = _example(message)
    assert example not in (example_answer(value, unit), format_number(value))
    grade = grade_numeric_answer(
        example, expected_value=value, expected_unit=unit, tolerance=tolerance
    )
    assert not grade.correct, (value, unit, message, grade.message)
    # The graded message of the same typo says the same: the form, not the value.
    graded = grade_numeric_answer(
        typo, expected_value=value, expected_unit=unit, tolerance=tolerance
    )
    assert graded.message == message


def test_a_long_unreadable_reply_is_quoted_short() -> None:
    message = unreadable_answer("x" * 10_000, expected_value=128, expected_unit="KiB")
    assert message is not None and len(message) < 200

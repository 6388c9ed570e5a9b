"""Grading typed numeric answers."""

from __future__ import annotations

import pytest

from sysdrill.errors import ExpressionSyntax
from sysdrill.napkin import grade_numeric_answer
from sysdrill.napkin.grading import unreadable_answer


def test_grade_accepts_an_equivalent_unit() -> None:
    grade = grade_numeric_answer("3600 us", expected_value=3.6, expected_unit="ms", tolerance=0.05)
    assert grade.correct
    assert grade.given_value == pytest.approx(3.6)


def test_grade_reads_a_plain_number_in_the_expected_unit() -> None:
    grade = grade_numeric_answer("3.7", expected_value=3.6, expected_unit="ms", tolerance=0.05)
    assert grade.correct
    assert grade.given_value == pytest.approx(3.7)


def test_grade_rejects_an_answer_outside_the_tolerance() -> None:
    grade = grade_numeric_answer("5 ms", expected_value=3.6, expected_unit="ms", tolerance=0.05)
    assert not grade.correct
    assert grade.given_value == pytest.approx(5)
    assert grade.message == (
        "Not quite: 5 ms, expected 3.6 ms (within 5 % of it: 3.42 to 3.78 ms)."
    )


def test_grade_names_the_expected_unit_on_a_wrong_dimension() -> None:
    grade = grade_numeric_answer("3.6 GB", expected_value=3.6, expected_unit="ms", tolerance=0.05)
    assert not grade.correct
    assert grade.given_value is None
    assert grade.message == "'3.6 GB' is a size; the answer is a time, in ms."


def test_a_wrong_dimension_without_a_common_name_gives_its_symbols() -> None:
    grade = grade_numeric_answer(
        "2 B/param", expected_value=3.6, expected_unit="ms", tolerance=0.05
    )
    assert grade.message == "'2 B/param' is in B/param; the answer is a time, in ms."


def test_grade_explains_an_unreadable_answer() -> None:
    grade = grade_numeric_answer("lots", expected_value=16, expected_unit="", tolerance=0)
    assert not grade.correct
    assert grade.given_value is None
    assert "type a plain number, like 3." in grade.message


def test_grade_accepts_notation_and_suffixes() -> None:
    grade = grade_numeric_answer(
        "1.12e11 bytes", expected_value=112, expected_unit="GB", tolerance=0.01
    )
    assert grade.correct
    assert grade_numeric_answer("112B", expected_value=112e9, expected_unit="", tolerance=0).correct
    assert grade_numeric_answer("2¹⁶", expected_value=65536, expected_unit="", tolerance=0).correct


def test_grade_of_a_zero_expected_value_uses_an_absolute_tolerance() -> None:
    assert grade_numeric_answer("0", expected_value=0, expected_unit="", tolerance=0.01).correct
    assert not grade_numeric_answer("1", expected_value=0, expected_unit="", tolerance=0.01).correct


def test_grade_with_an_unknown_expected_unit_raises() -> None:
    with pytest.raises(ExpressionSyntax):
        grade_numeric_answer("3", expected_value=3, expected_unit="furlongs", tolerance=0.1)


def test_grade_reads_percentages_in_a_percent_unit() -> None:
    assert grade_numeric_answer("16%", expected_value=16, expected_unit="%", tolerance=0.05).correct
    assert grade_numeric_answer("16", expected_value=16, expected_unit="%", tolerance=0.05).correct
    assert grade_numeric_answer(
        "0.158", expected_value=0.16, expected_unit="", tolerance=0.05
    ).correct


def test_grade_reads_a_plain_count_in_the_expected_count_unit() -> None:
    grade = grade_numeric_answer("2048", expected_value=2048, expected_unit="samples", tolerance=0)
    assert grade.correct
    assert grade.message == "Correct: 2,048 samples (expected 2,048 samples)."


@pytest.mark.parametrize(
    ("value", "unit", "typed"),
    [
        (1.795, "$/GPU-hour", "$1.795/GPU-hour"),
        (2.5, "$", "$2.5"),
        (8, "", "8"),
        (3.5, "ms", "3.5 ms"),
    ],
)
def test_example_answer_is_what_a_learner_types_and_it_grades_correct(value, unit, typed) -> None:
    from sysdrill.napkin.grading import example_answer

    assert example_answer(value, unit) == typed
    grade = grade_numeric_answer(typed, expected_value=value, expected_unit=unit, tolerance=0.0)
    assert grade.correct, grade.message


@pytest.mark.parametrize(
    "typed",
    ["~128 KiB", "about 128 KiB", "roughly 128 KiB", "128KiB", "1.3e5 bytes", "0.13 MB", "128 k"],
)
def test_hedged_and_abbreviated_answers_read_as_the_same_quantity(typed):
    grade = grade_numeric_answer(typed, expected_value=128, expected_unit="KiB", tolerance=0.05)
    assert grade.correct is True


@pytest.mark.parametrize(
    "typed",
    ["14 GB.", "~ 14 GB.", "about 14 GB!", "14 000 MB", "14\u202f000 MB", "14 billion bytes"],
)
def test_a_full_stop_spaced_digits_and_counts_in_words_read_as_typed(typed):
    grade = grade_numeric_answer(typed, expected_value=14, expected_unit="GB", tolerance=0.05)
    assert grade.correct is True, grade.message


def test_a_bare_thousands_multiplier_scales_a_plain_number():
    grade = grade_numeric_answer("2.1k", expected_value=2100, expected_unit="", tolerance=0.01)
    assert (grade.correct, grade.given_value) == (True, 2100.0)


def test_unreadable_answer_names_the_form_and_a_wrong_unit_is_readable():
    assert unreadable_answer("lots", expected_value=128, expected_unit="KiB") == (
        "Could not read 'lots' as a number; type a number with a unit, like 3 KiB."
    )
    assert unreadable_answer("5 ms", expected_value=128, expected_unit="KiB") is None
    assert unreadable_answer("about 128 KiB", expected_value=128, expected_unit="KiB") is None

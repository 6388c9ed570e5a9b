from __future__ import annotations

from dataclasses import dataclass

import pytest

from sysdrill.errors import UnitMismatch, UsageError
from sysdrill.study.grading import (
    grade_answer,
    grade_multiple_choice,
    grade_numeric,
    grading_mode,
    is_no_answer,
    option_index,
    self_grade,
)
from sysdrill.study.ratings import GradedBy, Rating


@dataclass(frozen=True)
class FakeGrade:
    correct: bool
    given_value: float | None
    message: str


class FakeGrader:
    """Stands in for the napkin engine and records what it was asked."""

    def __init__(self, grade: FakeGrade | Exception):
        self.grade = grade
        self.calls: list[tuple[str, dict]] = []

    def __call__(self, given, **kwargs):
        self.calls.append((given, kwargs))
        if isinstance(self.grade, Exception):
            raise self.grade
        return self.grade


@pytest.fixture
def choice(make_item):
    return make_item(
        "mc",
        question="Which is fastest?",
        details={
            "options": ["HBM", "DRAM", "SSD", "HDD"],
            "correct_index": 0,
            "realistic_solution": "HBM.",
            "common_mistake": "Picking DRAM.",
        },
    )


@pytest.fixture
def numeric(make_item):
    return make_item(
        "num",
        format="numeric",
        question="Transfer time?",
        answer_value=3.6,
        answer_unit="ms",
        answer_tolerance=0.1,
        details={"napkin_math": "7.2 GB / 2 TB/s = 3.6 ms"},
    )


@pytest.mark.parametrize("answer", ["a", "A", "1", 0, "a)"])
def test_multiple_choice_accepts_letters_numbers_and_indexes(choice, answer):
    result = grade_multiple_choice(choice, answer)
    assert (result.correct, result.suggested_rating) == (True, Rating.GOOD)
    assert result.graded_by is GradedBy.MULTIPLE_CHOICE


def test_wrong_choice_names_the_right_option(choice):
    result = grade_multiple_choice(choice, "c")
    assert result.correct is False
    assert result.suggested_rating is Rating.AGAIN
    assert result.message == "Wrong: the answer is (a) HBM."
    assert (result.chosen_index, result.correct_index) == (2, 0)
    assert result.common_mistake == "Picking DRAM."


@pytest.mark.parametrize("answer", ["e", "5", "zero", 7])
def test_choice_outside_the_options_is_a_usage_error(answer):
    with pytest.raises(UsageError, match="a-d"):
        option_index(answer, options=4)


def test_numeric_answer_goes_through_the_grader_with_the_item_tolerance(numeric):
    grader = FakeGrader(FakeGrade(True, 3.6, "Correct: 3.6 ms."))
    result = grade_numeric(numeric, "3600 us", grader=grader)
    assert grader.calls == [
        ("3600 us", {"expected_value": 3.6, "expected_unit": "ms", "tolerance": 0.1})
    ]
    assert (result.correct, result.given_value, result.graded_by) == (True, 3.6, GradedBy.NUMERIC)
    assert result.napkin_math == "7.2 GB / 2 TB/s = 3.6 ms"


def test_wrong_numeric_answer_states_the_expected_value(numeric):
    result = grade_numeric(numeric, "9 ms", grader=FakeGrader(FakeGrade(False, 9.0, "Too high.")))
    assert result.message == (
        "Not quite: 9 ms. Expected 3.6 ms (within 10 % of it: 3.24 to 3.96 ms)."
    )
    assert result.suggested_rating is Rating.AGAIN


def test_unit_mismatch_from_the_engine_is_a_wrong_answer(numeric):
    grader = FakeGrader(UnitMismatch("'GB' is not a time."))
    result = grade_numeric(numeric, "3 GB", grader=grader)
    assert result.correct is False
    assert result.message.startswith("'GB' is not a time.")


def test_numeric_default_tolerance_is_five_percent(make_item):
    item = make_item("n", format="numeric", question="?", answer_value=2.0, answer_unit="s")
    grader = FakeGrader(FakeGrade(True, 2.0, "ok"))
    grade_numeric(item, "2 s", grader=grader)
    assert grader.calls[0][1]["tolerance"] == 0.05


def test_equivalent_unit_is_right_through_the_napkin_engine(numeric):
    result = grade_numeric(numeric, "3600 us")
    assert result.correct is True
    assert result.given_value == pytest.approx(3.6)
    assert result.suggested_rating is Rating.GOOD


def test_wrong_value_through_the_napkin_engine_names_the_answer_once(numeric):
    result = grade_numeric(numeric, "5 ms")
    assert result.correct is False
    assert result.message == (
        "Not quite: 5 ms. Expected 3.6 ms (within 10 % of it: 3.24 to 3.96 ms)."
    )


def test_a_wrong_answer_far_off_is_shown_with_separators_not_exponents(numeric):
    result = grade_numeric(numeric, "2600 s")
    assert result.message.startswith("Not quite: 2,600,000 ms. Expected 3.6 ms")
    assert "e+" not in result.message


def test_wrong_dimension_through_the_napkin_engine_is_wrong_and_shows_the_answer(numeric):
    result = grade_numeric(numeric, "3.6 GB")
    assert (result.correct, result.given_value) == (False, None)
    assert "3.6 ms" in result.message


def test_free_text_returns_material_for_self_grading(make_item):
    item = make_item(
        "ft",
        question="Why?",
        details={
            "realistic_solution": "Because.",
            "common_mistake": "Guessing.",
            "napkin_math": "1 + 1 = 2",
        },
    )
    result = self_grade(item)
    assert result.graded_by is GradedBy.SELF
    assert (result.correct, result.suggested_rating) == (None, None)
    assert (result.model_answer, result.common_mistake, result.napkin_math) == (
        "Because.",
        "Guessing.",
        "1 + 1 = 2",
    )


def test_grade_answer_dispatches_by_item_kind(choice, numeric, make_item):
    free = make_item("ft", question="Why?")
    assert grading_mode(choice) is GradedBy.MULTIPLE_CHOICE
    assert grading_mode(numeric) is GradedBy.NUMERIC
    assert grading_mode(free) is GradedBy.SELF
    assert grade_answer(choice, "a").correct is True
    assert grade_answer(free, "whatever").graded_by is GradedBy.SELF
    grader = FakeGrader(FakeGrade(False, None, "Unreadable."))
    assert grade_answer(numeric, "??", grader=grader).correct is False


def test_blank_answer_to_an_automatic_item_is_wrong(choice):
    result = grade_answer(choice, "  ")
    assert (result.correct, result.message, result.correct_index) == (False, "No answer given.", 0)


@pytest.mark.parametrize("typed", ["", "-", "idk", "IDK.", "no idea", "I don’t know", "dunno"])
def test_no_idea_answers_are_no_answer(typed):
    assert is_no_answer(typed)


@pytest.mark.parametrize("typed", ["?", "7 GB", "none of them", "lots"])
def test_other_answers_are_answers(typed):
    assert not is_no_answer(typed)


def test_numeric_no_idea_is_graded_wrong_with_the_expected_value(make_item):
    item = make_item("n", format="numeric", question="?", answer_value=2.0, answer_unit="s")
    result = grade_numeric(item, "idk")
    assert (result.correct, result.given_value) == (False, None)
    assert result.message == "No answer given. Expected 2 s (within 5 % of it: 1.9 to 2.1 s)."

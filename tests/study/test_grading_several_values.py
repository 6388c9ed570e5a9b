"""Answers of several values: each read and graded on its own (issue 29).

An exercise part asking for "the new batch and the linear-scaled peak learning
rate" (reference ``256 * 32 = 8192 images; 0.1 * 8192 / 256 = 3.2.``) was graded
on one value, 3.2, so the learner's right "batch 8192, lr 3.2" was marked wrong.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from sysdrill.study.grading import grade_values, result_clauses, split_values, unreadable_values


@dataclass(frozen=True)
class Expected:
    value: float
    unit: str


BATCH_AND_LR = (Expected(8192, ""), Expected(3.2, ""))
SIZE_AND_TIME = (Expected(420, "GB"), Expected(10.5, "s"))


def test_a_reference_with_a_result_per_clause_states_several_results() -> None:
    reference = "256 * 32 = 8192 images; 0.1 * 8192 / 256 = 3.2."
    question = "What is the new batch and the linear-scaled peak learning rate?"
    assert result_clauses(reference, question=question) == [
        "256 * 32 = 8192 images",
        "0.1 * 8192 / 256 = 3.2.",
    ]
    both = "5 * 1.28e6 / 8192 = 781.25 steps of warmup and 90 * 1.28e6 / 8192 = 14062.5 steps."
    assert len(result_clauses(both, question="How many warmup steps and how many in all?")) == 2


@pytest.mark.parametrize(
    ("reference", "question"),
    [
        ("6 * 13e9 * 2100 = 1.638e14, and 1.638e14 / 312e12 = 52.5%.", "What is MFU with 6N only?"),
        ("46 / 88 = 52.5%; that is about half.", "What share is that, and why?"),
        ("8192 / 256 = 32 times fewer steps.", "How much fewer steps and why?"),
    ],
)
def test_steps_towards_one_result_are_one_result(reference: str, question: str) -> None:
    assert result_clauses(reference, question=question) == [reference]


def test_two_values_are_read_and_both_graded_right() -> None:
    for typed in ("batch 8192, lr 3.2", "8192, 3.2", "8,192 and 3.2", "8192; lr ~3.2"):
        assert unreadable_values(typed, BATCH_AND_LR) is None, typed
        grade = grade_values(typed, BATCH_AND_LR, tolerance=0.05)
        assert grade.correct, (typed, grade.message)
        assert grade.wrong == ()


def test_values_in_another_order_count_when_every_one_then_matches() -> None:
    assert grade_values("lr 3.2, batch 8192", BATCH_AND_LR, tolerance=0.05).correct


def test_each_value_has_its_own_tolerance_and_the_wrong_one_is_named() -> None:
    grade = grade_values("8192, 3.5", BATCH_AND_LR, tolerance=0.05)
    assert not grade.correct
    assert grade.wrong == (1,)
    assert grade.message == (
        "First value right: Correct: 8,192 (expected 8,192). "
        "Second value wrong: Not quite: 3.5, expected 3.2 (within 5 % of it: 3.04 to 3.36)."
    )
    # 8,000 is within 5 % of 8,192 and 3.3 within 5 % of 3.2: each is judged on its own.
    assert grade_values("8000, 3.3", BATCH_AND_LR, tolerance=0.05).correct
    assert grade_values("7000, 3.2", BATCH_AND_LR, tolerance=0.05).wrong == (0,)


def test_values_with_units_are_read_in_any_unit() -> None:
    grade = grade_values("0.42 TB and 10500 ms", SIZE_AND_TIME, tolerance=0.05)
    assert grade.correct, grade.message
    assert grade_values("420 GB, 10.5 GB", SIZE_AND_TIME, tolerance=0.05).wrong == (1,)


def test_one_value_for_two_is_asked_again_with_the_form_not_the_answers() -> None:
    message = unreadable_values("3.2", BATCH_AND_LR)
    assert message == (
        "Could not read '3.2' as 2 values, one for each, separated by commas, like 3, 40."
    )
    assert "8192" not in message and "8,192" not in message and "3.2," not in message
    assert unreadable_values("batch lots, lr 3.2", BATCH_AND_LR) is not None
    assert unreadable_values("-", BATCH_AND_LR) is None  # "no idea" is graded wrong at once
    assert grade_values("-", BATCH_AND_LR, tolerance=0.05).correct is False


def test_a_comma_inside_a_number_does_not_split_it() -> None:
    assert split_values("8,192, 3.2", 2) == ["8,192", "3.2"]
    assert split_values("8192 3.2", 2) is None


def test_the_starter_exercise_grades_both_values_of_a_two_value_part() -> None:
    from sysdrill.app.study_vault import open_study_vault
    from sysdrill.content.sample import default_vault_path
    from sysdrill.study.sessions.parts import grade_part, unreadable_part_answer

    item = open_study_vault(default_vault_path()).by_id["cloud-3059"]
    assert unreadable_part_answer(item, 0, "batch 8192, lr 3.2") is None
    assert grade_part(item, 0, "batch 8192, lr 3.2").correct is True
    wrong = grade_part(item, 0, "batch 8192, lr 0.1")
    assert wrong.correct is False and "Second value wrong" in wrong.message

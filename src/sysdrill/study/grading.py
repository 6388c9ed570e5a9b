"""Grading answers: multiple choice and numeric automatically, free text by the learner.

Every result says how it was graded (:class:`~sysdrill.study.ratings.GradedBy`)
and carries the model answer, common mistake and napkin math to show after
the answer. Automatic grades suggest a rating: Good when right, Again when wrong.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from sysdrill.content.models import DEFAULT_ANSWER_TOLERANCE, Item
from sysdrill.errors import NapkinError, UsageError
from sysdrill.study.ratings import GradedBy, Rating

__all__ = [
    "DEFAULT_NUMERIC_TOLERANCE",
    "GradeResult",
    "grade_answer",
    "grade_multiple_choice",
    "grade_numeric",
    "grading_mode",
    "is_no_answer",
    "option_index",
    "self_grade",
]

DEFAULT_NUMERIC_TOLERANCE = DEFAULT_ANSWER_TOLERANCE
"""Relative tolerance (5 %) when a numeric item declares none (the content default)."""


_GIVE_UP = frozenset(
    {"-", "idk", "dunno", "no idea", "no clue", "don't know", "i don't know", "not sure", "pass"}
)
"""What learners type for "no idea" (``-`` in scripts); lower case, closing marks dropped."""


def is_no_answer(text: str | None) -> bool:
    """Whether ``text`` gives no answer: blank, ``-`` or "no idea" (``idk``, ``I don't know``).

    Such an answer is graded wrong at once; it is never sent back as unreadable.
    """
    if text is None:
        return True
    cleaned = re.sub(r"[\s.!]+$", "", text.strip().lower().replace("\u2019", "'"))
    return not cleaned or cleaned in _GIVE_UP


class _NumericGrade(Protocol):
    @property
    def correct(self) -> bool: ...
    @property
    def given_value(self) -> float | None: ...
    @property
    def message(self) -> str: ...


NumericGrader = Callable[..., _NumericGrade]
"""``grade_numeric_answer(given, *, expected_value, expected_unit, tolerance)``."""


@dataclass(frozen=True, slots=True)
class GradeResult:
    """The outcome of grading one answer."""

    graded_by: GradedBy
    correct: bool | None
    """Right or wrong; None when the learner grades (free text)."""
    suggested_rating: Rating | None
    """Good when right, Again when wrong, None for self-grading."""
    message: str
    """One line for the learner."""
    model_answer: str | None
    common_mistake: str | None
    napkin_math: str | None
    chosen_index: int | None = None
    """Multiple choice: the 0-based option chosen."""
    correct_index: int | None = None
    """Multiple choice: the 0-based correct option."""
    given_value: float | None = None
    """Numeric: the answer converted to the item's unit."""


def _reveal(item: Item) -> tuple[str | None, str | None, str | None]:
    details = item.details
    return details.realistic_solution, details.common_mistake, details.napkin_math


def grading_mode(item: Item) -> GradedBy:
    """How an item's answers are graded: multiple choice, numeric, or by the learner."""
    if item.is_multiple_choice and item.details.correct_index is not None:
        return GradedBy.MULTIPLE_CHOICE
    if item.is_numeric and item.answer_unit is not None:
        return GradedBy.NUMERIC
    return GradedBy.SELF


def option_index(answer: str | int, *, options: int) -> int:
    """Read a multiple-choice answer as a 0-based option index.

    Args:
        answer: A letter (``b``), a 1-based number as text (``"2"``), or an
            ``int`` taken as a 0-based index.
        options: How many options the item has.

    Raises:
        UsageError: If the answer names no option.
    """
    letters = "abcdefghijklmnopqrstuvwxyz"[:options]
    if isinstance(answer, int) and not isinstance(answer, bool):
        index = answer
    else:
        text = str(answer).strip().lower().rstrip(").")
        if len(text) == 1 and text in letters:
            index = letters.index(text)
        elif text.isdigit():
            index = int(text) - 1
        else:
            raise UsageError(
                f"Unknown option {str(answer).strip()!r}. Answer with a letter a-{letters[-1]} "
                f"or a number 1-{options}."
            )
    if not 0 <= index < options:
        raise UsageError(
            f"Option {answer!r} is out of range. Answer with a letter a-{letters[-1]} "
            f"or a number 1-{options}."
        )
    return index


def grade_multiple_choice(item: Item, answer: str | int) -> GradeResult:
    """Grade a chosen option against ``details.correct_index``.

    Raises:
        UsageError: If the item has no options or correct index, or the answer names no option.
    """
    options = item.details.options or []
    correct = item.details.correct_index
    if not options or correct is None:
        raise UsageError(f"Item {item.id} is not multiple choice (no options or correct_index).")
    chosen = option_index(answer, options=len(options))
    right = chosen == correct
    letter = "abcdefghijklmnopqrstuvwxyz"[correct]
    message = "Correct." if right else f"Wrong: the answer is ({letter}) {options[correct]}."
    model, mistake, napkin = _reveal(item)
    return GradeResult(
        graded_by=GradedBy.MULTIPLE_CHOICE,
        correct=right,
        suggested_rating=Rating.GOOD if right else Rating.AGAIN,
        message=message,
        model_answer=model,
        common_mistake=mistake,
        napkin_math=napkin,
        chosen_index=chosen,
        correct_index=correct,
    )


def grade_numeric(item: Item, answer: str, *, grader: NumericGrader | None = None) -> GradeResult:
    """Grade a number with a unit through the napkin engine (any equivalent unit counts).

    Args:
        item: An item with ``answer_value`` and ``answer_unit`` (and optionally
            ``answer_tolerance``, a fraction; 5 % when absent).
        answer: What the learner typed, such as ``3600 us``.
        grader: The numeric grader; ``sysdrill.napkin.grade_numeric_answer`` when None.

    Raises:
        UsageError: If the item declares no expected value.
    """
    if item.answer_value is None:
        raise UsageError(f"Item {item.id} has no answer_value to grade against.")
    if grader is None:
        from sysdrill.napkin import grade_numeric_answer

        grader = grade_numeric_answer
    tolerance = (
        item.answer_tolerance if item.answer_tolerance is not None else DEFAULT_NUMERIC_TOLERANCE
    )
    model, mistake, napkin = _reveal(item)
    right: bool
    value: float | None
    if is_no_answer(answer):
        right, value, message = False, None, "No answer given."
    else:
        try:
            grade = grader(
                answer,
                expected_value=item.answer_value,
                expected_unit=item.answer_unit or "",
                tolerance=tolerance,
            )
            right, value, message = grade.correct, grade.given_value, grade.message
        except NapkinError as exc:
            right, value, message = False, None, str(exc)
    unit = f" {item.answer_unit}" if item.answer_unit else ""
    if not right:
        # One wording for every wrong answer, ending with the right number; the
        # engine's own sentence is kept only when it says why no number was read.
        reason = f"Not quite: {value:g}{unit}." if value is not None else message
        message = f"{reason} Expected {item.answer_value:g}{unit} (within {tolerance:.0%})."
    return GradeResult(
        graded_by=GradedBy.NUMERIC,
        correct=right,
        suggested_rating=Rating.GOOD if right else Rating.AGAIN,
        message=message,
        model_answer=model,
        common_mistake=mistake,
        napkin_math=napkin,
        given_value=value,
    )


def self_grade(item: Item) -> GradeResult:
    """Return what the learner compares a free-text answer with; they choose the rating."""
    model, mistake, napkin = _reveal(item)
    return GradeResult(
        graded_by=GradedBy.SELF,
        correct=None,
        suggested_rating=None,
        message="Compare your answer with the model answer, then rate your recall.",
        model_answer=model,
        common_mistake=mistake,
        napkin_math=napkin,
    )


def grade_answer(
    item: Item, answer: str | None, *, grader: NumericGrader | None = None
) -> GradeResult:
    """Grade an answer the way the item allows (see :func:`grading_mode`).

    Args:
        item: The item answered.
        answer: The learner's answer; None or blank gives a wrong automatic grade
            (nothing chosen) or, for free text, the self-grading material.
        grader: Numeric grader override (tests); the napkin engine when None.
    """
    mode = grading_mode(item)
    if mode is GradedBy.SELF:
        return self_grade(item)
    if answer is None or not answer.strip():
        model, mistake, napkin = _reveal(item)
        return GradeResult(
            graded_by=mode,
            correct=False,
            suggested_rating=Rating.AGAIN,
            message="No answer given.",
            model_answer=model,
            common_mistake=mistake,
            napkin_math=napkin,
            correct_index=item.details.correct_index if mode is GradedBy.MULTIPLE_CHOICE else None,
        )
    if mode is GradedBy.MULTIPLE_CHOICE:
        return grade_multiple_choice(item, answer)
    return grade_numeric(item, answer, grader=grader)

"""Grading answers: multiple choice and numeric automatically, free text by the learner.

Every result says how it was graded (:class:`~sysdrill.study.ratings.GradedBy`)
and carries the model answer, common mistake and napkin math to show after
the answer. Automatic grades suggest a rating: Good when right, Again when wrong.

An answer that states several results (an exercise part asking for "the new
batch and the peak learning rate": ``256 * 32 = 8192 images; 0.1 * 8192 / 256 =
3.2.``) expects one value for each (:func:`result_clauses`): the learner types
them separated by commas (``batch 8192, lr 3.2``), and :func:`grade_values`
grades each against its own expected value and tolerance. The answer is right
only when every value is, and the message names the one that is wrong.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from sysdrill.content.models import DEFAULT_ANSWER_TOLERANCE, Item
from sysdrill.errors import NapkinError, UsageError
from sysdrill.study.ratings import GradedBy, Rating

__all__ = [
    "DEFAULT_NUMERIC_TOLERANCE",
    "ExpectedValue",
    "GradeResult",
    "ValuesGrade",
    "grade_answer",
    "grade_multiple_choice",
    "grade_numeric",
    "grade_values",
    "grading_mode",
    "is_no_answer",
    "option_index",
    "result_clauses",
    "self_grade",
    "split_values",
    "unreadable_values",
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
        from sysdrill.napkin.grading import tolerance_text
        from sysdrill.napkin.quantity import format_number

        # One wording for every wrong answer, ending with the right number; the
        # engine's own sentence is kept only when it says why no number was read.
        reason = f"Not quite: {format_number(value)}{unit}." if value is not None else message
        accepted = tolerance_text(item.answer_value, item.answer_unit or "", tolerance)
        message = f"{reason} Expected {format_number(item.answer_value)}{unit} ({accepted})."
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


# -- answers of several values ---------------------------------------------------------


class ExpectedValue(Protocol):
    """A value an answer expects: ``value`` in ``unit`` (``""`` for a plain number)."""

    @property
    def value(self) -> float:
        """The expected value, in :attr:`unit`."""
        ...

    @property
    def unit(self) -> str:
        """The unit of :attr:`value` (``""`` for a plain number)."""
        ...


@dataclass(frozen=True, slots=True)
class ValuesGrade:
    """The grade of an answer of several values."""

    correct: bool
    """Whether every value is right."""
    wrong: tuple[int, ...]
    """0-based positions (in the reference's order) of the values that are wrong."""
    message: str
    """One line: each value right or wrong, the wrong ones with what was expected."""


_CLAUSE_BREAK = re.compile(r"\s*;\s*|,?\s+and\s+|\n+")
"""Where a reference answer may pass from one result to the next."""
_VALUE_BREAK = re.compile(r"\s*(?:;|,\s+|\n|&|\band\b)\s*", re.IGNORECASE)
"""Where a typed answer passes from one value to the next: ``8192, 3.2``, ``8192 and 3.2``
(a comma followed by a space: ``8,192`` is one number)."""
_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth")
_MAX_VALUES = len(_ORDINALS)
"""Most values one answer is graded on (a longer list of results is compared by the learner)."""


_ASKS_SEVERAL = re.compile(r"\band\b|\beach\b|\bboth\b", re.IGNORECASE)
"""A question asking for more than one thing: "the new batch and the peak learning rate"."""


def result_clauses(reference: str, *, question: str | None = None) -> list[str]:
    """The clauses of a reference answer that each compute one result, in order.

    A reference states several results when it joins computations with ``;``,
    ``and`` or a new line and each piece holds its own ``=`` (``256 * 32 = 8192
    images; 0.1 * 8192 / 256 = 3.2.``); a piece without ``=`` belongs to the
    clause before it (``= 52.5%; that is about half`` is one result). With the
    ``question`` given, it must ask for several things (``... and ...``,
    ``each``, ``both``): otherwise the first computations are steps towards the
    one result asked for ("What is MFU?": ``6 * 13e9 * 2100 = 1.638e14, and
    1.638e14 / 312e12 = 52.5%``).

    Returns:
        The clauses; a single one (the whole reference) when it states one result.
    """
    if question is not None and not _ASKS_SEVERAL.search(question):
        return [reference]
    pieces = [piece for piece in _CLAUSE_BREAK.split(reference.strip()) if piece.strip()]
    clauses: list[str] = []
    for piece in pieces:
        if clauses and "=" not in piece:
            clauses[-1] = f"{clauses[-1]}; {piece}"
        else:
            clauses.append(piece)
    if len(clauses) < 2 or len(clauses) > _MAX_VALUES or any("=" not in c for c in clauses):
        return [reference]
    return clauses


def split_values(given: str, count: int) -> list[str] | None:
    """A typed answer cut into ``count`` values, or None when it does not hold that many.

    Values are separated by a comma and a space, ``;``, ``and``, ``&`` or a new line
    (``batch 8192, lr 3.2``); each may carry a label or hedge (``lr ~3.2``).
    """
    values = [v.strip() for v in _VALUE_BREAK.split(given.strip()) if v.strip()]
    return values if len(values) == count else None


def _several_form(expected: Sequence[ExpectedValue]) -> str:
    from sysdrill.napkin.grading import form_example

    examples = ", ".join(form_example(e.unit, avoid=e.value) for e in expected)
    return f"{len(expected)} values, one for each, separated by commas, like {examples}"


def _quoted(given: str) -> str:
    shown = given.strip()
    return repr(shown if len(shown) <= 60 else shown[:60] + "...")


def unreadable_values(given: str, expected: Sequence[ExpectedValue]) -> str | None:
    """Why ``given`` cannot answer ``expected`` (several values), or None when it can.

    The answer must hold one value per expected value, each a quantity (in any
    unit: one of the wrong kind is read, and graded wrong). The message gives the
    form with examples that are never the expected values.
    """
    from sysdrill.napkin.grading import unreadable_answer

    if is_no_answer(given):
        return None
    values = split_values(given, len(expected))
    if values is None or any(
        is_no_answer(value)
        or unreadable_answer(value, expected_value=e.value, expected_unit=e.unit) is not None
        for value, e in zip(values, expected, strict=True)
    ):
        return f"Could not read {_quoted(given)} as {_several_form(expected)}."
    return None


def grade_values(
    given: str,
    expected: Sequence[ExpectedValue],
    *,
    tolerance: float,
    grader: NumericGrader | None = None,
) -> ValuesGrade:
    """Grade an answer of several values, each against its own expected value.

    The values are matched in the reference's order; when that order gets some
    wrong but another order gets all right (``lr 3.2, batch 8192`` for a batch
    and a learning rate), the answer is right.

    Args:
        given: What the learner typed: values separated by commas (:func:`split_values`).
        expected: The expected values, in the reference's order.
        tolerance: Accepted relative error of each value, as a fraction (0.05 is 5 %).
        grader: The numeric grader; ``sysdrill.napkin.grade_numeric_answer`` when None.

    Returns:
        Right only when every value is; the message names each value right or wrong.
    """
    if grader is None:
        from sysdrill.napkin import grade_numeric_answer

        grader = grade_numeric_answer
    values = split_values(given, len(expected)) if not is_no_answer(given) else None
    if values is None:
        wrong = tuple(range(len(expected)))
        if is_no_answer(given):
            return ValuesGrade(False, wrong, "No answer given.")
        return ValuesGrade(
            False, wrong, f"Could not read {_quoted(given)} as {_several_form(expected)}."
        )

    def grades(order: Sequence[str]) -> list[_NumericGrade]:
        return [
            grader(value, expected_value=e.value, expected_unit=e.unit, tolerance=tolerance)
            for value, e in zip(order, expected, strict=True)
        ]

    in_order = grades(values)
    if not all(g.correct for g in in_order):
        for order in itertools.permutations(values):
            if list(order) != values:
                other = grades(order)
                if all(g.correct for g in other):
                    in_order = other
                    break
    wrong = tuple(i for i, g in enumerate(in_order) if not g.correct)
    lines = [
        f"{_ORDINALS[i].capitalize()} value {'right' if g.correct else 'wrong'}: {g.message}"
        for i, g in enumerate(in_order)
    ]
    return ValuesGrade(not wrong, wrong, " ".join(lines))

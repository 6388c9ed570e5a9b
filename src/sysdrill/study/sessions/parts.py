"""The parts of an exercise, (a), (b), (c): one answer each, numeric parts graded.

A part whose reference answer ends in one quantity (``... = 52.5%``,
``16 bytes per parameter: 20.8 GB.``), or whose result (after the last ``=``,
else the whole answer) opens with one quantity that every other figure in it
restates (``About 4,600 s, a little over 76 minutes.``, ``= 131,072 B, that
is 128 KiB.``), is graded like a numeric item, within the item's tolerance;
any other part is compared by the learner. The item is
rated from its parts: when every part is graded, all right is Good, at least
half right is Hard and fewer is Again; otherwise the learner rates it with
each graded part marked right or wrong in front of them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from sysdrill.content.models import Item, Part
from sysdrill.errors import NapkinError
from sysdrill.napkin.units import Dims
from sysdrill.study.grading import DEFAULT_NUMERIC_TOLERANCE, is_no_answer
from sysdrill.study.ratings import Rating

__all__ = [
    "PartExpected",
    "PartGrade",
    "describe_parts",
    "join_part_answers",
    "part_expected",
    "grade_part",
    "rating_from_parts",
    "split_part_answers",
    "unreadable_part_answer",
]

_NUMBER_UNIT = re.compile(r"^(\d[\d,]*\.?\d*(?:e[-+]?\d+)?)\s*([A-Za-z].*)$")
_LEAD = re.compile(
    r"^(?:about|around|roughly|approximately|approx\.?|nearly|almost|close\s+to|~|≈"
    r"|(?:just|a\s+little|slightly)\s+(?:over|under|above|below|more\s+than|less\s+than))\s*",
    re.IGNORECASE,
)
"""Hedges before a reference's figure ("Just under 2.6 TB."): the figure is the answer."""
_ASIDE = re.compile(r"\s*\([^()]*\)")
"""A parenthesis in a reference explains its figure ("~14 GB (7B params × 2 bytes)")."""
_MENTION = re.compile(
    r"(?<![\w.$^/*+-])(\$)?(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?((?:e[-+]?\d+)?)(?![\d,]\d)\s*(%)?"
)
"""A figure in prose: ``$737,280``, ``4,600``, ``1.3e-3``, ``27 %``; not ``t-1`` or ``FP16``."""
_WORD = re.compile(r"[A-Za-zµ][\w/^µ-]*")
_YES_NO = re.compile(r"^(?:yes|no)\b", re.IGNORECASE)
_RESTATED = 0.03
"""How close figures must be to restate one quantity (``1138 s``, ``19 minutes``)."""


@dataclass(frozen=True, slots=True)
class PartExpected:
    """The quantity a numeric part expects: ``value`` in ``unit`` (``""`` for a number)."""

    value: float
    unit: str


@dataclass(frozen=True, slots=True)
class PartGrade:
    """One part of an answer and what became of it."""

    label: str
    answer: str
    correct: bool | None
    """True or False for a graded part; None for a part the learner compares."""
    message: str


def part_expected(part: Part) -> PartExpected | None:
    """The quantity ``part`` expects, when its reference answer ends in exactly one.

    The text after the last ``=``, ``≈`` or ``:`` (a parenthesis left out, hedges
    such as "just under" too) is read as one quantity; a percentage
    is kept in percent so that ``52.5`` and ``52.5%`` both read as meant.
    """
    from sysdrill.napkin.answers import typed_quantity_text
    from sysdrill.napkin.expression import parse_unit
    from sysdrill.napkin.quantity import format_value, read_quantity

    if not part.answer:
        return None
    answer = _ASIDE.sub("", part.answer).strip() or part.answer
    tail = re.split(r"=|≈|:\s", answer.strip())[-1].strip().rstrip(".").strip()
    tail = typed_quantity_text(_LEAD.sub("", tail))
    if not tail or not re.match(r"^[$\d.]", tail):
        return _restated_result(answer)
    try:
        value = read_quantity(tail)
    except NapkinError:
        return _restated_result(answer)
    if tail.endswith("%"):
        return PartExpected(float(value.v) * 100, "%")
    written = _NUMBER_UNIT.match(tail)
    if written is not None:
        # Keep the unit the reference wrote (KiB stays KiB) when it reads as one.
        try:
            parse_unit(written.group(2))
        except NapkinError:
            pass
        else:
            return PartExpected(float(written.group(1).replace(",", "")), written.group(2))
    number, unit, _ = format_value(value)
    return PartExpected(number, unit)


def _figure(number: float, text: str) -> tuple[PartExpected, float, Dims]:
    """``number`` with the longest run of words opening ``text`` that reads as its unit.

    Returns the figure as written, its value in base units and its dimensions; a
    number followed by no unit (``4 accumulation steps``) is a plain number.
    """
    from sysdrill.napkin.quantity import read_quantity

    words: list[str] = []
    for token in re.split(r"[,;:()]|\.\s", text, maxsplit=1)[0].split()[:4]:
        word = token.rstrip(".")
        if not _WORD.fullmatch(word):
            break
        words.append(word)
    for count in range(len(words), 0, -1):
        unit = " ".join(words[:count])
        try:
            value = read_quantity(f"{number!r} {unit}")
        except NapkinError:
            continue
        return PartExpected(number, unit), float(value.v), value.dims
    return PartExpected(number, ""), number, ()


def _mentions(text: str) -> list[tuple[PartExpected, float, Dims]]:
    """Every figure in ``text``: as written, in base units, and its dimensions."""
    found: list[tuple[PartExpected, float, Dims]] = []
    for match in _MENTION.finditer(text):
        dollar, whole, fraction, exponent, percent = match.groups()
        number = float(whole.replace(",", "") + (fraction or "") + exponent)
        if dollar:
            found.append((PartExpected(number, "$"), number, (("currency", 1),)))
        elif percent:
            found.append((PartExpected(number, "%"), number / 100, ()))
        else:
            found.append(_figure(number, text[match.end() :]))
    return found


def _restated_result(answer: str) -> PartExpected | None:
    """The quantity a worded result opens with, when every other figure in it restates it.

    The result is the text after the last ``=`` (or ``≈``), else the whole answer; it must
    open (after a hedge such as "About") with the figure, so that a figure met
    in passing (``below FP16's smallest value, about 6e-8``) is never taken for
    the answer. An answer with several results (``=`` more than once) or that
    opens with yes or no is left to the learner.
    """
    if answer.count("=") > 1 or _YES_NO.match(answer):
        return None  # several results, or a yes/no answer with a figure as its reason
    result = _LEAD.sub("", re.split(r"=|≈", answer)[-1].strip())
    if not re.match(r"^\$?\d", result):
        return None
    mentions = _mentions(result)
    if not mentions:
        return None
    first, base, dims = mentions[0]
    for _, other, other_dims in mentions[1:]:
        if other_dims != dims or abs(other - base) > _RESTATED * max(abs(base), 1e-300):
            return None
    return first


def part_expected_values(part: Part) -> tuple[PartExpected, ...]:
    """Every quantity ``part`` expects: one per result when its question asks for several."""
    from sysdrill.study.grading import result_clauses

    if not part.answer:
        return ()
    clauses = result_clauses(part.answer, question=part.text)
    if len(clauses) > 1:
        found = [part_expected(part.model_copy(update={"answer": c})) for c in clauses]
        if all(f is not None for f in found):
            return tuple(f for f in found if f is not None)
    single = part_expected(part)
    return () if single is None else (single,)


def _tolerance(item: Item) -> float:
    return item.answer_tolerance if item.answer_tolerance is not None else DEFAULT_NUMERIC_TOLERANCE


def unreadable_part_answer(item: Item, index: int, text: str) -> str | None:
    """Why ``text`` cannot answer part ``index`` of ``item``, or None when it can.

    Only numeric parts reject an answer: one that is no quantity at all (``-``
    and other "no idea" answers such as ``idk`` are always accepted, and graded wrong).
    """
    from sysdrill.napkin.grading import unreadable_answer

    parts = item.parts or ()
    if not 0 <= index < len(parts) or is_no_answer(text):
        return None
    expected = part_expected_values(parts[index])
    if not expected:
        return None
    if len(expected) > 1:
        from sysdrill.study.grading import unreadable_values

        return unreadable_values(text, expected)
    return unreadable_answer(text, expected_value=expected[0].value, expected_unit=expected[0].unit)


def grade_part(item: Item, index: int, text: str) -> PartGrade:
    """Grade the answer ``text`` to part ``index`` of ``item``."""
    from sysdrill.napkin.grading import grade_numeric_answer

    part = (item.parts or ())[index]
    given = text.strip() or "-"
    expected = part_expected_values(part)
    if not expected:
        return PartGrade(part.label, given, None, "compare with the reference answer")
    if is_no_answer(given):
        return PartGrade(part.label, given, False, "no answer given")
    if len(expected) > 1:
        from sysdrill.study.grading import grade_values

        several = grade_values(given, expected, tolerance=_tolerance(item))
        return PartGrade(part.label, given, several.correct, several.message)
    grade = grade_numeric_answer(
        given,
        expected_value=expected[0].value,
        expected_unit=expected[0].unit,
        tolerance=_tolerance(item),
    )
    return PartGrade(part.label, given, grade.correct, grade.message)


def join_part_answers(item: Item, answers: Sequence[str]) -> str:
    """The item's answer made of its parts' answers, one ``label answer`` line each."""
    labels = [part.label for part in item.parts or ()]
    return "\n".join(f"{label} {given}" for label, given in zip(labels, answers, strict=False))


def split_part_answers(item: Item, text: str) -> list[str] | None:
    """Read an answer joined by :func:`join_part_answers` back into its parts.

    Returns None when ``text`` is not one ``label answer`` line per part (an
    exercise answered as a whole).
    """
    parts = item.parts or ()
    lines = text.split("\n")
    if not parts or len(lines) != len(parts):
        return None
    answers = []
    for part, line in zip(parts, lines, strict=True):
        if not line.startswith(part.label):
            return None
        answers.append(line[len(part.label) :].strip() or "-")
    return answers


def rating_from_parts(grades: Sequence[PartGrade]) -> Rating | None:
    """The rating when every part was graded (Good, Hard, Again); None otherwise."""
    if not grades or any(grade.correct is None for grade in grades):
        return None
    right = sum(1 for grade in grades if grade.correct)
    if right == len(grades):
        return Rating.GOOD
    return Rating.HARD if 2 * right >= len(grades) else Rating.AGAIN


def describe_parts(grades: Sequence[PartGrade]) -> str:
    """One line per graded part: ``(a) right: ...`` or ``(b) wrong: ...``.

    Parts the learner compares are left out: their answers are shown with the reference.
    """
    return "\n".join(
        f"{grade.label} {'right' if grade.correct else 'wrong'}: {grade.message}"
        for grade in grades
        if grade.correct is not None
    )

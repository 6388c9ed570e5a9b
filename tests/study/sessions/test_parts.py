"""Exercises answered part by part: numeric parts graded, the item rated from its parts."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from sysdrill.content.loader import load_vault
from sysdrill.errors import AnswerUnreadable
from sysdrill.study.ratings import GradedBy, Rating
from sysdrill.study.sessions.parts import (
    PartExpected,
    PartGrade,
    grade_part,
    part_expected,
    rating_from_parts,
    split_part_answers,
)
from sysdrill.study.sessions.state_machine import Phase, Session, SessionKind, SessionLineup

VAULT = load_vault(Path(__file__).resolve().parent / "parts_vault")
ITEMS = {item.id: item for item in VAULT.items}


class _Recorder:
    def __init__(self) -> None:
        self.results = []

    def record(self, result, *, now):
        self.results.append(result)
        return now + timedelta(days=1)


def _session(*ids: str) -> tuple[Session, _Recorder]:
    plan = SessionLineup(
        kind=SessionKind.PRACTICE, title="Practice", items=tuple(ITEMS[i] for i in ids)
    )
    recorder = _Recorder()
    moment = datetime(2026, 11, 25, 9, 0, tzinfo=UTC)
    return Session(plan, recorder=recorder, clock=lambda: moment), recorder


def test_a_part_ending_in_one_quantity_expects_it_in_the_unit_written():
    parts = ITEMS["ex-parts"].parts
    assert parts is not None
    assert part_expected(parts[0]) == PartExpected(128.0, "KiB")
    assert part_expected(parts[1]) == PartExpected(50.0, "%")
    assert part_expected(parts[2]) is None


@pytest.mark.parametrize(
    "typed", ["128 KiB", "~128 KiB", "about 128 KiB", "128KiB", "1.3e5 bytes", "0.13 MB", "128 k"]
)
def test_a_numeric_part_reads_answers_as_people_type_them(typed):
    assert grade_part(ITEMS["ex-parts"], 0, typed).correct is True


def test_a_wrong_or_missing_part_answer_is_graded_wrong():
    item = ITEMS["ex-parts"]
    assert grade_part(item, 1, "40").correct is False
    assert grade_part(item, 1, "-") == PartGrade("(b)", "-", False, "no answer given")


def test_all_parts_right_is_good_half_is_hard_fewer_is_again():
    def grades(*marks):
        return [PartGrade(f"({i})", "x", mark, "") for i, mark in enumerate(marks)]

    assert rating_from_parts(grades(True, True)) is Rating.GOOD
    assert rating_from_parts(grades(True, False)) is Rating.HARD
    assert rating_from_parts(grades(True, False, False)) is Rating.AGAIN
    assert rating_from_parts(grades(True, None)) is None


def test_an_answer_not_split_by_part_labels_is_taken_as_a_whole():
    item = ITEMS["ex-parts"]
    assert split_part_answers(item, "(a) 1\n(b) 2\n(c) yes") == ["1", "2", "yes"]
    assert split_part_answers(item, "all of it at once") is None


def test_an_all_numeric_exercise_is_rated_from_its_parts():
    session, recorder = _session("ex-num")
    session.answer_part("128 KiB")
    assert session.part_answers == ["128 KiB"]
    session.answer_part("40 %")
    [result] = recorder.results
    assert (result.rating, result.graded_by, result.score) == (Rating.HARD, GradedBy.NUMERIC, 0.5)
    assert session.last_feedback is not None
    assert session.last_feedback.message.splitlines()[-1] == "1 of 2 parts right."
    assert session.phase is Phase.DONE


def test_an_exercise_with_a_prose_part_marks_the_numeric_parts_then_waits_for_a_rating():
    session, recorder = _session("ex-parts")
    for answer in ("128 KiB", "50", "yes"):
        session.answer_part(answer)
    assert session.phase is Phase.RATE
    assert recorder.results == []
    assert session.last_feedback is not None
    lines = session.last_feedback.message.splitlines()
    assert lines[0].startswith("(a) right: Correct: 128 KiB")
    assert lines[1].startswith("(b) right: Correct: 50 %")
    assert lines[2] == "Compare your answers with the reference, then rate."


def test_an_unreadable_part_answer_is_refused_and_nothing_is_recorded():
    session, recorder = _session("ex-num")
    with pytest.raises(AnswerUnreadable, match="type a number with a unit, like 3 KiB"):
        session.answer_part("a lot")
    assert (session.part_answers, recorder.results) == ([], [])
    session.answer_part("128 KiB")
    assert session.part_answers == ["128 KiB"]


def _part(answer: str):
    from sysdrill.content.models import Part

    return Part(label="(a)", text="How much?", answer=answer)


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("About 48.8 hours, the per-GPU figure divided by the number of GPUs.", (48.8, "hours")),
        ("About 4,600 s, a little over 76 minutes.", (4600.0, "s")),
        ("2 * 32 * 8 * 128 * 2 B = 131,072 B, that is 128 KiB.", (131072.0, "B")),
        ("sqrt(2 * 30 * 21600) = 1138 s, about 19 minutes.", (1138.0, "s")),
        ("(48 GB - 16 GB - 4 GB) / (1500 * 131072 B) = 142.4, so about 142.", (142.4, "")),
        ("1536 / (96 * 4) = 4 accumulation steps.", (4.0, "")),
        ("(520 - 430) / 3 = 30 ms per doubling.", (30.0, "ms")),
    ],
)
def test_a_worded_result_restating_one_quantity_is_graded(answer, expected):
    assert part_expected(_part(answer)) == PartExpected(*expected)


@pytest.mark.parametrize(
    "answer",
    [
        "It is below FP16's smallest value, about 6e-8, and becomes zero.",
        "About 23 ms on one node at 200 GB/s; about 114 ms at 64 GPUs.",
        "The bubble halves to 45 ms, so about 285 ms.",
        "No: it adds only (430 - 400) / 3 = 10 ms each, so the cost rises.",
        "5 * 1.28e6 / 8192 = 781.25 steps of warmup and 90 * 1.28e6 / 8192 = 14062.5 in all.",
        "About half an interval, 38 minutes, plus the time to restart and reload.",
    ],
)
def test_a_part_without_one_clear_result_is_left_to_the_learner(answer):
    assert part_expected(_part(answer)) is None

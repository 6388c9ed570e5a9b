"""What a session is made of: its kinds, phases, plan, results and feedback.

The records :class:`~sysdrill.study.sessions.state_machine.Session` works with, apart
from the machine itself, so that views and stores can name them without it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Protocol

from sysdrill.content.enums import ItemKind
from sysdrill.content.models import Item
from sysdrill.study.grading import grading_mode
from sysdrill.study.ratings import GradedBy, Rating, RatingScale
from sysdrill.study.sessions.new_items import ChainNewLimit

__all__ = [
    "AnswerMode",
    "Clock",
    "Feedback",
    "ItemResult",
    "Outcome",
    "Phase",
    "Recorder",
    "SessionKind",
    "SessionLineup",
    "answer_mode",
]

Clock = Callable[[], datetime]
"""Returns the current time in UTC; injected so that tests control time."""


class SessionKind(StrEnum):
    """The kinds of study session."""

    PRACTICE = "practice"
    QUIZ = "quiz"
    GAUNTLET = "gauntlet"
    CHAIN = "chain"
    DAILY = "daily"


class AnswerMode(StrEnum):
    """How the learner answers an item."""

    FLASHCARD = "flashcard"
    """Recall the back, then rate."""
    MULTIPLE_CHOICE = "multiple-choice"
    """Pick an option; graded against ``details.correct_index``."""
    NUMERIC = "numeric"
    """Type a number with a unit; graded against ``answer_value``."""
    FREE_TEXT = "free-text"
    """Write an answer, see the model answer, grade yourself."""


class Phase(StrEnum):
    """What the session waits for."""

    ANSWER = "answer"
    RATE = "rate"
    RUBRIC = "rubric"
    CHAIN = "chain"
    DONE = "done"


class Outcome(StrEnum):
    """What became of one item of a session."""

    ANSWERED = "answered"
    SKIPPED = "skipped"
    OUT_OF_TIME = "out-of-time"
    NOT_REACHED = "not-reached"


def answer_mode(item: Item) -> AnswerMode:
    """Choose how an item is answered: options, a number, a flashcard, or free text."""
    graded_by = grading_mode(item)
    if graded_by is GradedBy.MULTIPLE_CHOICE:
        return AnswerMode.MULTIPLE_CHOICE
    if graded_by is GradedBy.NUMERIC:
        return AnswerMode.NUMERIC
    if item.kind is ItemKind.FLASHCARD:
        return AnswerMode.FLASHCARD
    return AnswerMode.FREE_TEXT


@dataclass(frozen=True, slots=True)
class Feedback:
    """What the learner sees after answering."""

    correct: bool | None
    """True or False for graded answers; None for free text (not graded yet)."""
    message: str
    """One line: "Correct.", "Not quite: the answer is (c) ...", "Time is up."."""
    timed_out: bool = False


@dataclass(slots=True)
class ItemResult:
    """One item of a session and what became of it."""

    item: Item
    outcome: Outcome
    rating: Rating | None = None
    graded_by: GradedBy | None = None
    answer: str | None = None
    """What the learner answered (option letter, number, text), if anything."""
    correct: bool | None = None
    """Whether an automatically graded answer was right (None for self-graded)."""
    score: float | None = None
    """Share of the item earned, 0.0 to 1.0 (gauntlets and quizzes)."""
    rubric_covered: int | None = None
    rubric_total: int | None = None
    duration_ms: int = 0
    warmup: bool = False
    reviewed_at: datetime | None = None
    """When the item was graded (UTC), if it was."""
    next_due: datetime | None = None
    """When the scheduler will show the item again, if it was recorded."""


class Recorder(Protocol):
    """Where graded items go (the study database, or a list in tests)."""

    def record(self, result: ItemResult, *, now: datetime) -> datetime | None:
        """Record one graded item and return when it is due next, if known."""
        ...


@dataclass(frozen=True, slots=True)
class SessionLineup:
    """What a session asks and how it grades."""

    kind: SessionKind
    title: str
    items: tuple[Item, ...]
    time_limit: timedelta | None = None
    """One countdown for the whole session (gauntlets), or None."""
    rubric_scoring: bool = False
    """Free-text answers are scored against a rubric instead of a rating."""
    graded_by: GradedBy | None = None
    """Recorded for every item instead of the answer's own grading (gauntlets)."""
    offer_chain: bool = False
    """Offer the next item of a chain after answering a chain member."""
    chain_new_limit: ChainNewLimit | None = None
    """The new items chain offers may add (None: no limit)."""
    repeat_again: bool = False
    """Ask items rated Again once more at the end of the session."""
    warmup_ids: frozenset[str] = frozenset()
    rating_scale: RatingScale = RatingScale.AGAIN_TO_EASY
    """The one scale every rating of the session is asked on (the learner's setting)."""
    meta: dict[str, str] = field(default_factory=dict)
    """Details stored with the session (filters, deck, format)."""

"""The mock interview's turns: what the interviewer asks, hears and replies, without a model.

An interview walks a short ladder of items (a chain's levels, or a topic's or a
plan's items by level). The interviewer asks an item's scenario and question;
each learner turn is an answer, a clarifying question, a request for a hint, a
skip or the end. An answer is judged (:func:`~sysdrill.study.interview_assess.assess_answer`:
key points and napkin verdicts) and the interviewer replies with one intent:

- correct a mistake, when the napkin engine finds a claim wrong (once per item);
- advance to the next item when most key points are made (two thirds of the
  points' scores), or after :data:`MAX_ANSWERS_PER_ITEM` answers;
- probe deeper on a missed point when a third or more is made;
- hint otherwise (twice at most, the second from the item's common mistake);
- close after the last item.

Everything here is pure: :func:`decide` picks the intent, :func:`respond` writes
the scripted reply and the next state. A language model may replace the reply's
words and, when its JSON block is valid, the intent (:mod:`sysdrill.study.interview_prompt`);
the state still moves by :func:`respond`'s rules. Each item left gets a rating
for FSRS (:func:`item_rating`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from sysdrill.content.models import Item
from sysdrill.study.interview_assess import (
    Assessment,
    answer_clarifying_question,
    assess_answer,
    content_words,
)
from sysdrill.study.ratings import Rating
from sysdrill.study.sessions.rubric import rating_for_score
from sysdrill.study.sessions.text import plain_text

__all__ = [
    "ADVANCE_AT",
    "MAX_ANSWERS_PER_ITEM",
    "MAX_HINTS_PER_ITEM",
    "MAX_PROBES_PER_ITEM",
    "MODEL_INTENTS",
    "PROBE_AT",
    "Intent",
    "InterviewState",
    "ItemProgress",
    "LearnerMove",
    "Reply",
    "decide",
    "item_rating",
    "judge",
    "opening",
    "read_move",
    "respond",
    "start_state",
]

ADVANCE_AT = 2 / 3
"""Share of the key points' scores from which an answer moves the interview on."""
PROBE_AT = 1 / 3
"""Share from which the interviewer probes deeper rather than hints."""
MAX_ANSWERS_PER_ITEM = 4
"""Answers to one item before the interviewer moves on regardless."""
MAX_HINTS_PER_ITEM = 2
"""Hints on one item before the interviewer moves on."""
MAX_PROBES_PER_ITEM = 2
"""Probes on one item before the interviewer moves on."""
_CLARIFY_MAX_WORDS = 25


class Intent(StrEnum):
    """What one interviewer turn does."""

    ASK = "ask"
    """Ask an item's question (the first turn of each item)."""
    PROBE = "probe"
    """Probe deeper on a point the answer missed."""
    HINT = "hint"
    """Give a hint."""
    CORRECT = "correct"
    """Correct a mistake the napkin engine found."""
    ADVANCE = "advance"
    """Move to the next item of the ladder (the next level of a chain)."""
    CLOSE = "close"
    """End the interview."""
    CLARIFY = "clarify"
    """Answer the learner's clarifying question."""


MODEL_INTENTS = (Intent.PROBE, Intent.HINT, Intent.CORRECT, Intent.ADVANCE, Intent.CLOSE)
"""The intents a model may choose after an answer."""


class LearnerMove(StrEnum):
    """What one learner turn is."""

    ANSWER = "answer"
    CLARIFY = "clarify"
    """A clarifying question about the brief."""
    HINT = "hint"
    """A request for a hint."""
    SKIP = "skip"
    """Give up on this item and move on."""
    END = "end"
    """End the interview now."""


_COMMANDS = {
    "/hint": LearnerMove.HINT,
    "/skip": LearnerMove.SKIP,
    "/next": LearnerMove.SKIP,
    "/end": LearnerMove.END,
    "/quit": LearnerMove.END,
}


def read_move(text: str) -> tuple[LearnerMove, str]:
    """What a typed line means: ``/hint``, ``/skip``, ``/end``, ``? question`` or an answer.

    A short line that ends with a question mark and holds no claim (no ``=``)
    is a clarifying question too.
    """
    stripped = text.strip()
    command = stripped.split(maxsplit=1)[0].lower() if stripped else ""
    if command in _COMMANDS:
        return _COMMANDS[command], stripped[len(command) :].strip()
    if stripped.startswith("?"):
        return LearnerMove.CLARIFY, stripped[1:].strip()
    if (
        stripped.endswith("?")
        and "=" not in stripped
        and len(stripped.split()) <= _CLARIFY_MAX_WORDS
    ):
        return LearnerMove.CLARIFY, stripped
    return LearnerMove.ANSWER, stripped


@dataclass(frozen=True, slots=True)
class ItemProgress:
    """How the interview went on one item of its ladder."""

    item_id: str
    answers: int = 0
    hints: int = 0
    probes: int = 0
    corrections: int = 0
    best_fraction: float = 0.0
    """Best share of the key points made by one answer, 0.0 to 1.0."""
    skipped: bool = False
    done: bool = False
    """The interview moved past this item (it was rated)."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready mapping."""
        return {
            "item_id": self.item_id,
            "answers": self.answers,
            "hints": self.hints,
            "probes": self.probes,
            "corrections": self.corrections,
            "best_fraction": self.best_fraction,
            "skipped": self.skipped,
            "done": self.done,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ItemProgress:
        """The progress :meth:`to_dict` wrote."""
        return cls(
            item_id=str(data["item_id"]),
            answers=int(data["answers"]),
            hints=int(data["hints"]),
            probes=int(data["probes"]),
            corrections=int(data["corrections"]),
            best_fraction=float(data["best_fraction"]),
            skipped=bool(data["skipped"]),
            done=bool(data["done"]),
        )


@dataclass(frozen=True, slots=True)
class InterviewState:
    """Where an interview stands: its ladder of items and the progress on each."""

    progress: tuple[ItemProgress, ...]
    position: int = 0
    """Index of the item being asked."""
    closed: bool = False

    @property
    def item_ids(self) -> tuple[str, ...]:
        """The ladder, in the order it is asked."""
        return tuple(p.item_id for p in self.progress)

    @property
    def current(self) -> ItemProgress:
        """The progress on the item being asked."""
        return self.progress[self.position]

    @property
    def is_last(self) -> bool:
        """Whether the item being asked is the ladder's last."""
        return self.position >= len(self.progress) - 1

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready mapping."""
        return {
            "progress": [p.to_dict() for p in self.progress],
            "position": self.position,
            "closed": self.closed,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> InterviewState:
        """The state :meth:`to_dict` wrote."""
        return cls(
            progress=tuple(ItemProgress.from_dict(p) for p in data["progress"]),
            position=int(data["position"]),
            closed=bool(data["closed"]),
        )


def start_state(item_ids: Sequence[str]) -> InterviewState:
    """A new interview over ``item_ids`` (at least one), asking the first."""
    return InterviewState(tuple(ItemProgress(item_id) for item_id in item_ids))


@dataclass(frozen=True, slots=True)
class Reply:
    """One interviewer turn."""

    intent: Intent
    text: str
    item_id: str | None
    """The item the turn is about (the next one for ADVANCE; None for CLOSE)."""
    assessment: Assessment | None = None
    """The judged answer the turn replies to, if it replies to one."""
    ratings: tuple[tuple[str, Rating], ...] = ()
    """Items left by this turn, with their ratings for FSRS."""


def opening(item: Item) -> str:
    """An item's question as the interviewer asks it: the scenario first."""
    parts = [plain_text(item.scenario)] if item.scenario else []
    if item.question:
        parts.append(plain_text(item.question))
    elif item.title:
        parts.append(f"Tell me about {plain_text(item.title)}.")
    return "\n\n".join(parts) or f"Tell me what you know about {item.id}."


def decide(state: InterviewState, move: LearnerMove, assessment: Assessment | None) -> Intent:
    """The intent of the interviewer's reply to one learner move (the rubric's rules).

    Args:
        state: The interview before the move (not closed).
        move: What the learner did.
        assessment: The judged answer, for an ``ANSWER`` move.
    """
    if move is LearnerMove.END:
        return Intent.CLOSE
    if move is LearnerMove.SKIP:
        return Intent.CLOSE if state.is_last else Intent.ADVANCE
    if move is LearnerMove.CLARIFY:
        return Intent.CLARIFY
    progress = state.current
    moving_on = Intent.CLOSE if state.is_last else Intent.ADVANCE
    if move is LearnerMove.HINT:
        return Intent.HINT if progress.hints < MAX_HINTS_PER_ITEM else moving_on
    assert assessment is not None
    if assessment.wrong_math and progress.corrections < 1:
        return Intent.CORRECT
    fraction = assessment.fraction if assessment.points else 1.0
    if fraction >= ADVANCE_AT or progress.answers + 1 >= MAX_ANSWERS_PER_ITEM:
        return moving_on
    if fraction >= PROBE_AT:
        return Intent.PROBE if progress.probes < MAX_PROBES_PER_ITEM else moving_on
    return Intent.HINT if progress.hints < MAX_HINTS_PER_ITEM else moving_on


def item_rating(progress: ItemProgress) -> Rating:
    """The FSRS rating of one item of an interview, once it is left.

    Skipped, or never answered: Again. Otherwise the gauntlet's rule on the best
    answer's share of the key points (:func:`rating_for_score`), at most Good
    after one hint and at most Hard after two.
    """
    if progress.skipped or progress.answers == 0:
        return Rating.AGAIN
    rating = rating_for_score(progress.best_fraction)
    if progress.hints >= MAX_HINTS_PER_ITEM:
        return min(rating, Rating.HARD)
    if progress.hints:
        return min(rating, Rating.GOOD)
    return rating


def _words_missing(point: str, answer: str) -> list[str]:
    said = content_words(answer)
    words = re.findall(
        r"[A-Za-z][A-Za-z0-9\-]{3,}", plain_text(point.removeprefix("Napkin math: "))
    )
    seen: list[str] = []
    for word in words:
        lowered = word.lower()
        if lowered in seen or content_words(lowered) <= said or not content_words(lowered):
            continue
        seen.append(lowered)
    return sorted(seen, key=len, reverse=True)[:3]


def _pitfall(item: Item) -> str | None:
    text = item.details.common_mistake
    if not text:
        return None
    first = plain_text(text).split("\n")[0]
    first = re.sub(r"^\s*The Pitfall:\s*", "", first)
    return first.strip() or None


def _scripted(
    intent: Intent,
    state: InterviewState,
    item: Item,
    assessment: Assessment | None,
    answer: str,
    next_item: Item | None,
) -> str:
    progress = state.current
    if intent is Intent.CLARIFY:
        return answer_clarifying_question(item, answer)
    if intent is Intent.CORRECT and assessment is not None:
        wrong = assessment.wrong_math[:2]
        listed = "; ".join(v.sentence() for v in wrong)
        return f"Let me stop you on a number. {listed}. Redo that step: what changes?"
    if intent is Intent.PROBE and assessment is not None:
        missed = assessment.missed()
        words = _words_missing(missed[0], answer) if missed else []
        if words:
            return (
                f"Good so far. Go one step deeper: where do {', '.join(words)} "
                "come into your answer?"
            )
        return "Good so far. Go one step deeper: what would break first at ten times the scale?"
    if intent is Intent.HINT:
        if progress.hints == 0 and assessment is not None and assessment.missed():
            words = _words_missing(assessment.missed()[0], answer)
            if words:
                return f"A hint: think about {', '.join(words)}."
        pitfall = _pitfall(item)
        if pitfall and progress.hints <= 1:
            return f"A hint: a common trap here is this: {pitfall} Does your answer avoid it?"
        points = assessment.missed() if assessment is not None else []
        if not points:
            from sysdrill.study.sessions.rubric import build_rubric

            points = list(build_rubric(item).points)
        if points:
            return f"A hint: {points[0]}"
        return "A hint: work from the numbers the scenario gives, one step at a time."
    summary = _summary(intent, progress, assessment)
    if intent is Intent.ADVANCE and next_item is not None:
        level = f" ({next_item.level.value})" if next_item.level else ""
        return f"{summary}\n\nNext question{level}:\n\n{opening(next_item)}"
    return f"{summary}\n\nThat is the end of the interview. Thank you."


def _summary(intent: Intent, progress: ItemProgress, assessment: Assessment | None) -> str:
    if progress.skipped or assessment is None:
        return "Let us leave that one."
    missed = assessment.missed()
    if not missed:
        return "That covers the key points."
    return "You covered part of it. What I was also listening for: " + "; ".join(missed[:3])


def respond(
    state: InterviewState,
    item: Item,
    move: LearnerMove,
    answer: str,
    *,
    intent: Intent,
    assessment: Assessment | None,
    next_item: Item | None,
) -> tuple[InterviewState, Reply]:
    """The interviewer's scripted reply with ``intent``, and the state after it.

    Args:
        state: The interview before the move (not closed).
        item: The item being asked (``state.current``).
        move: What the learner did.
        answer: What the learner typed (the answer, or the question).
        intent: The reply's intent (:func:`decide`'s, or a model's when valid).
        assessment: The judged answer, for an ``ANSWER`` move.
        next_item: The ladder's next item (None at the last).

    Returns:
        The new state and the reply; a reply that leaves an item carries its rating.
    """
    if intent is Intent.ADVANCE and next_item is None:
        intent = Intent.CLOSE
    progress = state.current
    if move is LearnerMove.ANSWER and assessment is not None:
        fraction = assessment.fraction if assessment.points else 1.0
        progress = replace(
            progress,
            answers=progress.answers + 1,
            best_fraction=max(progress.best_fraction, fraction),
        )
    elif move is LearnerMove.SKIP:
        progress = replace(progress, skipped=True)
    progress = replace(
        progress,
        hints=progress.hints + (intent is Intent.HINT),
        probes=progress.probes + (intent is Intent.PROBE),
        corrections=progress.corrections + (intent is Intent.CORRECT),
    )
    # The reply reads the progress as it was before this turn's counters rose.
    text = _scripted(intent, state, item, assessment, answer, next_item)
    ratings: tuple[tuple[str, Rating], ...] = ()
    position = state.position
    closed = False
    if intent in (Intent.ADVANCE, Intent.CLOSE):
        progress = replace(progress, done=True)
        # An item the learner ended on without a word is not rated.
        if progress.answers or progress.skipped:
            ratings = ((progress.item_id, item_rating(progress)),)
        if intent is Intent.ADVANCE:
            position += 1
        else:
            closed = True
    progresses = list(state.progress)
    progresses[state.position] = progress
    new_state = InterviewState(tuple(progresses), position=position, closed=closed)
    about = next_item.id if intent is Intent.ADVANCE and next_item is not None else item.id
    return new_state, Reply(
        intent=intent,
        text=text,
        item_id=None if closed else about,
        assessment=assessment,
        ratings=ratings,
    )


def judge(item: Item, move: LearnerMove, text: str) -> Assessment | None:
    """The assessment of a learner move: an answer's, None for any other move."""
    return assess_answer(item, text) if move is LearnerMove.ANSWER else None

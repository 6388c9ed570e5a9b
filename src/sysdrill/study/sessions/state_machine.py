"""The session state machine: one item after another, graded, recorded, reported.

A :class:`Session` is a small state machine that the scripted line mode and
the terminal UI drive alike. Each item is in one :class:`Phase` at a time:

- ``answer``: the learner picks an option, types a number or writes an answer;
  options and numbers are graded at once, free text moves on to ``rate``
  (or ``rubric`` in a gauntlet) with the model answer revealed;
- ``rate``: the learner grades their own recall on the plan's rating scale
  (flashcards start here, and take a rating only once :meth:`Session.reveal`
  showed their back);
- ``rubric``: the learner ticks the key points their answer covered;
- ``chain``: the item belongs to a chain and the next one is offered;
- ``done``: the session is over and :meth:`Session.report` holds the score.

Every graded item goes to the :class:`Recorder` at once, so a session that is
cut short keeps what was answered. Time comes from an injected clock; a
gauntlet's single countdown is checked against it, so tests never sleep.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from datetime import datetime, timedelta

from sysdrill.content.models import Item
from sysdrill.errors import AnswerUnreadable, UsageError
from sysdrill.study.clock import require_utc
from sysdrill.study.grading import (
    NumericGrader,
    grade_multiple_choice,
    grade_numeric,
    is_no_answer,
)
from sysdrill.study.ratings import GradedBy, Rating
from sysdrill.study.sessions.answer_math import claim_lines
from sysdrill.study.sessions.chains import ChainIndex, ChainStep
from sysdrill.study.sessions.parts import (
    describe_parts,
    grade_part,
    join_part_answers,
    rating_from_parts,
    split_part_answers,
    unreadable_part_answer,
)
from sysdrill.study.sessions.rating_choices import RatingChoice, rating_choices
from sysdrill.study.sessions.records import (
    AnswerMode,
    Clock,
    Feedback,
    ItemResult,
    Outcome,
    Phase,
    Recorder,
    SessionKind,
    SessionLineup,
    answer_mode,
)
from sysdrill.study.sessions.rubric import Rubric, build_rubric, rating_for_score
from sysdrill.study.sessions.view import option_label

__all__ = [
    "AnswerMode",
    "Clock",
    "Feedback",
    "ItemResult",
    "Outcome",
    "Phase",
    "Recorder",
    "Session",
    "SessionKind",
    "SessionLineup",
    "answer_mode",
]


class Session:
    """One run of a session plan.

    Args:
        plan: The items and rules.
        recorder: Receives every graded item at once.
        clock: The current time (UTC); called when an item is shown and when it is graded.
        chains: Chain lookup, for the "next in chain" offer.
        grader: Numeric grader (``grade_numeric_answer`` signature); the napkin
            engine when None.
    """

    def __init__(
        self,
        plan: SessionLineup,
        *,
        recorder: Recorder,
        clock: Clock,
        chains: ChainIndex | None = None,
        grader: NumericGrader | None = None,
    ) -> None:
        self.plan = plan
        self._grader = grader
        self._recorder = recorder
        self._clock = clock
        self._chains = chains
        self.started_at = self._now()
        self.ended_at: datetime | None = None
        self.deadline = self.started_at + plan.time_limit if plan.time_limit else None
        self.queue: list[Item] = list(plan.items)
        self.index = 0
        self.results: list[ItemResult] = []
        self.phase = Phase.DONE
        self.rubric: Rubric | None = None
        self.chain_offer: ChainStep | None = None
        self.last_feedback: Feedback | None = None
        self._presented_at = self.started_at
        self._answer: str | None = None
        self._back_shown = False
        """Whether the current flashcard's back was shown (:meth:`reveal`)."""
        self._repeated: set[str] = set()
        self.part_answers: list[str] = []
        """Answers given so far to the parts of the current exercise."""
        self._begin_item()

    # -- state -----------------------------------------------------------------

    def _now(self) -> datetime:
        return require_utc(self._clock())

    @property
    def current(self) -> Item | None:
        """The item in front of the learner, or None when the session is over."""
        if self.phase is Phase.DONE or self.index >= len(self.queue):
            return None
        return self.queue[self.index]

    @property
    def mode(self) -> AnswerMode | None:
        """How the current item is answered."""
        item = self.current
        return answer_mode(item) if item is not None else None

    @property
    def position(self) -> int:
        """1-based position of the current item."""
        return self.index + 1

    @property
    def total(self) -> int:
        """Items in the session so far (grows when a chain is followed or an item repeats)."""
        return len(self.queue)

    @property
    def is_warmup(self) -> bool:
        """Whether the current item is the gauntlet's warm-up."""
        item = self.current
        return item is not None and item.id in self.plan.warmup_ids

    @property
    def given_answer(self) -> str | None:
        """The learner's answer to the current item, once given (free text awaiting a grade)."""
        return self._answer

    def remaining(self) -> timedelta | None:
        """Time left on the countdown (never negative), or None without one."""
        if self.deadline is None:
            return None
        end = self.ended_at or self._now()
        return max(self.deadline - end, timedelta(0))

    def _require(self, *phases: Phase) -> Item:
        item = self.current
        if item is None or self.phase not in phases:
            wanted = " or ".join(phase.value for phase in phases)
            raise UsageError(f"The session waits for {self.phase.value}, not {wanted}.")
        return item

    # -- moving on -------------------------------------------------------------

    def _begin_item(self) -> None:
        self.rubric = None
        self.chain_offer = None
        self._answer = None
        self._back_shown = False
        self.part_answers = []
        if self.index >= len(self.queue):
            self._finish()
            return
        self._presented_at = self._now()
        item = self.queue[self.index]
        self.phase = Phase.RATE if answer_mode(item) is AnswerMode.FLASHCARD else Phase.ANSWER

    def _advance(self) -> None:
        self.index += 1
        self._begin_item()

    def _finish(self) -> None:
        self.phase = Phase.DONE
        if self.ended_at is None:
            self.ended_at = self._now()

    def _after_result(self, result: ItemResult) -> None:
        if (
            self.plan.repeat_again
            and result.rating is Rating.AGAIN
            and result.item.id not in self._repeated
        ):
            self._repeated.add(result.item.id)
            self.queue.append(result.item)
        if self.plan.offer_chain and self._chains is not None:
            step = self._chains.next_after(result.item.id)
            upcoming = self.queue[self.index + 1] if self.index + 1 < len(self.queue) else None
            answered = {r.item.id for r in self.results}
            limit = self.plan.chain_new_limit
            if (
                step is not None
                and step.item.id not in answered
                and (upcoming is None or upcoming.id != step.item.id)
                and (
                    limit is None
                    or limit.may_offer(step.item.id, queue=self.queue, planned=self.plan.items)
                )
            ):
                self.chain_offer = step
                self.phase = Phase.CHAIN
                return
        self._advance()

    def _duration_ms(self, now: datetime) -> int:
        return max(0, int((now - self._presented_at) / timedelta(milliseconds=1)))

    def _record(
        self,
        item: Item,
        *,
        rating: Rating,
        graded_by: GradedBy,
        correct: bool | None,
        score: float | None,
        covered: int | None = None,
    ) -> ItemResult:
        now = self._now()
        result = ItemResult(
            item=item,
            outcome=Outcome.ANSWERED,
            rating=rating,
            graded_by=self.plan.graded_by or graded_by,
            answer=self._answer,
            correct=correct,
            score=score,
            rubric_covered=covered,
            rubric_total=len(self.rubric.points) if self.rubric and covered is not None else None,
            duration_ms=self._duration_ms(now),
            warmup=item.id in self.plan.warmup_ids,
            reviewed_at=now,
        )
        result.next_due = self._recorder.record(result, now=now)
        self.results.append(result)
        return result

    def _timed_out(self) -> bool:
        if self.deadline is None or self._now() < self.deadline:
            return False
        self._expire()
        return True

    def _expire(self) -> None:
        for position, item in enumerate(self.queue[self.index :]):
            outcome = Outcome.OUT_OF_TIME if position == 0 else Outcome.NOT_REACHED
            self.results.append(ItemResult(item, outcome, warmup=item.id in self.plan.warmup_ids))
        self.index = len(self.queue)
        # The gauntlet ended when time ran out, not when someone noticed.
        self.ended_at = self.deadline
        self._finish()

    # -- the learner's moves ---------------------------------------------------

    def tick(self) -> bool:
        """Check the countdown; end the session if it ran out while an answer is awaited.

        Scoring an answer given in time (rating, rubric) is never cut off.

        Returns:
            True if the session ended now because time is up.
        """
        if self.phase is not Phase.ANSWER:
            return False
        return self._timed_out()

    def answer(self, text: str) -> Feedback:
        """Answer the current item: an option letter, a number with a unit, or free text.

        Options and numbers are graded and recorded at once (right is Good, wrong
        is Again); free text reveals the model answer and waits for
        :meth:`rate` or :meth:`score_rubric`.

        Raises:
            UsageError: If no answer is awaited, or an option letter is unknown.
        """
        item = self._require(Phase.ANSWER)
        if self._timed_out():
            self.last_feedback = Feedback(None, "Time is up.", timed_out=True)
            return self.last_feedback
        mode = answer_mode(item)
        if mode is AnswerMode.NUMERIC:
            self._check_numeric(item, text)
        parts = split_part_answers(item, text) if mode is AnswerMode.FREE_TEXT else None
        if parts is not None:
            return self._answer_parts(item, parts)
        if mode in (AnswerMode.MULTIPLE_CHOICE, AnswerMode.NUMERIC):
            if mode is AnswerMode.MULTIPLE_CHOICE:
                grade = grade_multiple_choice(item, text)
                assert grade.chosen_index is not None
                self._answer = option_label(grade.chosen_index)
            else:
                grade = grade_numeric(item, text, grader=self._grader)
                self._answer = text.strip()
            correct = bool(grade.correct)
            self._graded(item, correct, grade.graded_by)
            self.last_feedback = Feedback(correct, grade.message)
            return self.last_feedback
        else:
            self._answer = None if text.strip() in ("", "-") else text.strip()
            if self.plan.rubric_scoring:
                self.rubric = build_rubric(item)
                self.phase = Phase.RUBRIC if self.rubric.points else Phase.RATE
            else:
                self.phase = Phase.RATE
            checked = claim_lines(text)
            message = "\n".join([*checked, "Compare your answer with the model answer."])
            self.last_feedback = Feedback(None, message)
            return self.last_feedback

    def _check_numeric(self, item: Item, text: str) -> None:
        from sysdrill.napkin.grading import unreadable_answer

        if is_no_answer(text) or item.answer_value is None:
            return
        reason = unreadable_answer(
            text, expected_value=item.answer_value, expected_unit=item.answer_unit or ""
        )
        if reason is not None:
            raise AnswerUnreadable(reason)

    def check_part_answer(self, text: str) -> None:
        """Refuse an answer to the next part that cannot be read (nothing is recorded).

        Raises:
            UsageError: If no answer is awaited.
            AnswerUnreadable: If the part expects a quantity and ``text`` is none.
        """
        item = self._require(Phase.ANSWER)
        reason = unreadable_part_answer(item, len(self.part_answers), text)
        if reason is not None:
            raise AnswerUnreadable(reason)

    def answer_part(self, text: str) -> None:
        """Answer the next part of the current exercise; the last part answers the item.

        Raises:
            UsageError: If no answer is awaited.
            AnswerUnreadable: If a numeric part's answer is no quantity.
        """
        self.check_part_answer(text)
        item = self._require(Phase.ANSWER)
        given = text.strip() or "-"
        if len(self.part_answers) + 1 >= len(item.parts or ()):
            answers = [*self.part_answers, given]
            self.part_answers = []
            self.answer(join_part_answers(item, answers))
            return
        self.part_answers.append(given)

    def _answer_parts(self, item: Item, answers: list[str]) -> Feedback:
        grades = [grade_part(item, index, given) for index, given in enumerate(answers)]
        self._answer = join_part_answers(item, answers)
        summary = describe_parts(grades)
        rating = rating_from_parts(grades)
        if rating is None:
            self.phase = Phase.RATE
            if self.plan.rubric_scoring:
                self.rubric = build_rubric(item)
                self.phase = Phase.RUBRIC if self.rubric.points else Phase.RATE
            checked = [
                line
                for grade in grades
                if grade.correct is None
                for line in claim_lines(grade.answer)
            ]
            compare = "\n".join([*checked, "Compare your answers with the reference, then rate."])
            self.last_feedback = Feedback(None, f"{summary}\n{compare}".strip())
            return self.last_feedback
        right = sum(1 for grade in grades if grade.correct)
        result = self._record(
            item,
            rating=rating,
            graded_by=GradedBy.NUMERIC,
            correct=right == len(grades),
            score=right / len(grades),
        )
        self._after_result(result)
        self.last_feedback = Feedback(
            right == len(grades), f"{summary}\n{right} of {len(grades)} parts right."
        )
        return self.last_feedback

    def _graded(self, item: Item, correct: bool, graded_by: GradedBy) -> None:
        rating = Rating.GOOD if correct else Rating.AGAIN
        result = self._record(
            item, rating=rating, graded_by=graded_by, correct=correct, score=float(correct)
        )
        self._after_result(result)

    @property
    def revealed(self) -> bool:
        """Whether the answer of the item awaiting a rating is in front of the learner.

        Free text shows the model answer once answered; a flashcard's back is
        shown by :meth:`reveal`.
        """
        return self.phase is Phase.RATE and (
            self._back_shown or self.mode is not AnswerMode.FLASHCARD
        )

    def reveal(self) -> None:
        """Show the back of the flashcard awaiting a rating (nothing else changes).

        Raises:
            UsageError: If no rating is awaited.
        """
        self._require(Phase.RATE)
        self._back_shown = True

    def rating_choices(self) -> tuple[RatingChoice, ...]:
        """The rating prompt's choices, on the plan's scale, once the answer is shown.

        Each carries the interval it would schedule when :meth:`_intervals` knows it.
        """
        item = self.current
        if item is None or not self.revealed:
            return ()
        return rating_choices(self.plan.rating_scale, self._intervals(item))

    def _intervals(self, item: Item) -> Mapping[Rating, timedelta] | None:
        """The wait each rating would give ``item`` now; None here (no card to read).

        A session bound to a study store overrides this with the item's card.
        """
        return None

    def rate(self, rating: Rating) -> ItemResult:
        """Grade your own recall of the current item (flashcards and free text).

        Raises:
            UsageError: If no rating is awaited, or a flashcard's back was not shown yet.
        """
        item = self._require(Phase.RATE)
        if not self.revealed:
            raise UsageError("Show the answer first, then rate your recall.")
        result = self._record(
            item,
            rating=rating,
            graded_by=GradedBy.SELF,
            correct=None,
            score=1.0 if rating.passed else 0.0,
        )
        self._after_result(result)
        return result

    def score_rubric(self, covered: Collection[int]) -> ItemResult:
        """Score the current free-text answer by the rubric points it covered (0-based).

        Raises:
            UsageError: If no rubric is awaited.
        """
        item = self._require(Phase.RUBRIC)
        assert self.rubric is not None
        chosen = frozenset(covered)
        fraction = self.rubric.score(chosen)
        result = self._record(
            item,
            rating=rating_for_score(fraction),
            graded_by=GradedBy.GAUNTLET,
            correct=None,
            score=fraction,
            covered=len([i for i in chosen if 0 <= i < len(self.rubric.points)]),
        )
        self._after_result(result)
        return result

    def follow_chain(self, accept: bool) -> None:
        """Take or decline the offered next item of the chain.

        Raises:
            UsageError: If nothing is offered.
        """
        self._require(Phase.CHAIN)
        assert self.chain_offer is not None
        if accept:
            following = self.chain_offer.item
            # Taken now, so it is not asked a second time where it stood in the queue.
            later = [item for item in self.queue[self.index + 1 :] if item.id != following.id]
            self.queue[self.index + 1 :] = [following, *later]
        self._advance()

    def skip(self) -> None:
        """Leave the current item without a review (or decline a chain offer)."""
        item = self._require(Phase.ANSWER, Phase.RATE, Phase.RUBRIC, Phase.CHAIN)
        if self.phase is Phase.CHAIN:
            self._advance()
            return
        self.results.append(
            ItemResult(
                item,
                Outcome.SKIPPED,
                duration_ms=self._duration_ms(self._now()),
                warmup=item.id in self.plan.warmup_ids,
            )
        )
        self._advance()

    def quit(self) -> None:
        """End the session now; items not answered are reported as not reached."""
        if self.phase is Phase.DONE:
            return
        start = self.index + 1 if self.phase is Phase.CHAIN else self.index
        for item in self.queue[start:]:
            self.results.append(
                ItemResult(item, Outcome.NOT_REACHED, warmup=item.id in self.plan.warmup_ids)
            )
        self.index = len(self.queue)
        self._finish()

    @property
    def answered(self) -> Sequence[ItemResult]:
        """Results of the items that were graded."""
        return [r for r in self.results if r.outcome is Outcome.ANSWERED]

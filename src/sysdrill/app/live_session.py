"""A session in progress that saves itself: every move is stored as it is made.

The :class:`~sysdrill.study.sessions.state_machine.Session` state machine lives in
one process's memory. :class:`LiveSession` is that machine bound to a saved
record (:class:`~sysdrill.study.sessions.saved.SavedSession`): each move the
learner makes (answer, rate, rubric, chain, skip, quit, a countdown that ran
out) is applied, appended to the record with its time and the review it
wrote, and saved before the call returns. :func:`restore_session` rebuilds
the machine in any process by replaying the moves with the clock set to each
move's time and without writing the reviews again, so the state comes out
the same.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any, TypeVar

from sysdrill.app.study_vault import StudyVault
from sysdrill.content.models import Item
from sysdrill.errors import ContentInvalid, UsageError
from sysdrill.study.card_state import CardRecord, CardState
from sysdrill.study.clock import require_utc
from sysdrill.study.ratings import GradedBy, Rating, RatingScale
from sysdrill.study.scheduler import new_card
from sysdrill.study.service import ReadCard, ScheduledReview, StudyService
from sysdrill.study.sessions.new_items import ChainNewLimit
from sysdrill.study.sessions.rating_choices import preview_intervals
from sysdrill.study.sessions.saved import SavedSession
from sysdrill.study.sessions.state_machine import (
    Clock,
    Feedback,
    ItemResult,
    Phase,
    Session,
    SessionKind,
    SessionLineup,
)
from sysdrill.study.user_state import SessionId

__all__ = ["LiveSession", "plan_options", "restore_plan", "restore_session", "save_new"]

_T = TypeVar("_T")


def plan_options(plan: SessionLineup, started_with: dict[str, Any]) -> dict[str, Any]:
    """The plan's rules and the options it was started with, JSON-ready."""
    return {
        "title": plan.title,
        "time_limit_seconds": None if plan.time_limit is None else plan.time_limit.total_seconds(),
        "rubric_scoring": plan.rubric_scoring,
        "graded_by": None if plan.graded_by is None else plan.graded_by.value,
        "offer_chain": plan.offer_chain,
        "chain_new_limit": None if plan.chain_new_limit is None else plan.chain_new_limit.to_dict(),
        "repeat_again": plan.repeat_again,
        "warmup_ids": sorted(plan.warmup_ids),
        "rating_scale": plan.rating_scale.value,
        "meta": dict(plan.meta),
        "started_with": started_with,
    }


def restore_plan(saved: SavedSession, vault: StudyVault) -> SessionLineup:
    """Rebuild a saved session's plan from its options and the vault's items.

    Raises:
        ContentInvalid: If the vault no longer holds one of the session's items.
    """
    missing = [item_id for item_id in saved.item_ids if item_id not in vault.by_id]
    if missing:
        raise ContentInvalid(
            f"Session {saved.session_id} asks {missing[0]}, which the vault no longer "
            "holds; end the session and start a new one."
        )
    options = saved.options
    limit = options.get("time_limit_seconds")
    graded_by = options.get("graded_by")
    chain_limit = options.get("chain_new_limit")
    return SessionLineup(
        kind=SessionKind(saved.kind),
        title=str(options.get("title", saved.kind)),
        items=tuple(vault.by_id[i] for i in saved.item_ids),
        time_limit=None if limit is None else timedelta(seconds=float(limit)),
        rubric_scoring=bool(options.get("rubric_scoring", False)),
        graded_by=None if graded_by is None else GradedBy(graded_by),
        offer_chain=bool(options.get("offer_chain", False)),
        chain_new_limit=None if chain_limit is None else ChainNewLimit.from_dict(chain_limit),
        repeat_again=bool(options.get("repeat_again", False)),
        warmup_ids=frozenset(options.get("warmup_ids", ())),
        # Sessions saved before scales were a setting rated on Again/Hard/Good/Easy.
        rating_scale=RatingScale(options.get("rating_scale", RatingScale.AGAIN_TO_EASY)),
        meta={str(k): str(v) for k, v in dict(options.get("meta", {})).items()},
    )


def _card_to_dict(card: CardRecord) -> dict[str, Any]:
    return {
        "item_id": card.item_id,
        "state": int(card.state),
        "step": card.step,
        "stability_days": card.stability_days,
        "difficulty": card.difficulty,
        "due": None if card.due is None else card.due.isoformat(),
        "last_review": None if card.last_review is None else card.last_review.isoformat(),
        "reps": card.reps,
        "lapses": card.lapses,
        "never_seen": card.never_seen,
    }


def card_from_dict(data: dict[str, Any]) -> CardRecord:
    """Rebuild a card stored in a move (the card before its review)."""
    due, last = data.get("due"), data.get("last_review")
    return CardRecord(
        item_id=str(data["item_id"]),
        state=CardState(int(data["state"])),
        step=data.get("step"),
        stability_days=data.get("stability_days"),
        difficulty=data.get("difficulty"),
        due=None if due is None else datetime.fromisoformat(due),
        last_review=None if last is None else datetime.fromisoformat(last),
        reps=int(data.get("reps", 0)),
        lapses=int(data.get("lapses", 0)),
        never_seen=bool(data.get("never_seen", True)),
    )


class _MoveClock:
    """The session's clock: the time of the move being made, else the live clock."""

    def __init__(self, live: Clock) -> None:
        self.live = live
        self.fixed: datetime | None = None

    def __call__(self) -> datetime:
        return self.fixed if self.fixed is not None else self.live()


class _MoveRecorder:
    """Records graded items as reviews, noting in the move what undo needs."""

    def __init__(self, study: StudyService, session_id: SessionId) -> None:
        self.study = study
        self.session_id = session_id
        self.replaying = False
        self.move: dict[str, Any] = {}
        self.cards: dict[str, ReadCard] = {}
        """The cards of the session's items as last read or written: a review then
        needs no query for its card (its write checks the card is still this one)."""
        self.pending: ScheduledReview | None = None
        """The review of the move being made, to write with its save."""

    def record(self, result: ItemResult, *, now: datetime) -> datetime | None:
        if self.replaying:
            due = self.move.get("due")
            return None if due is None else datetime.fromisoformat(due)
        assert result.rating is not None and result.graded_by is not None
        read = self.cards.get(result.item.id)
        if read is None:  # an item the session did not plan (a chain's next one)
            read = ReadCard(self.study.store.get_card(self.study.scope, result.item.id))
        scheduled = self.study.schedule_review(
            result.item.id,
            rating=result.rating,
            graded_by=result.graded_by,
            answer=result.answer,
            duration_ms=result.duration_ms,
            now=now,
            session_id=self.session_id,
            card=read.card,
        )
        self.pending = scheduled
        before = scheduled.read
        self.move["card_before"] = None if before is None else _card_to_dict(before)
        self.move["due"] = scheduled.due.isoformat()
        return scheduled.due


class LiveSession(Session):
    """A :class:`Session` whose moves are saved in the study store as they are made.

    Build with :func:`restore_session`; use like any Session (the line mode and
    the terminal interface drive it unchanged).
    """

    def __init__(
        self,
        plan: SessionLineup,
        *,
        study: StudyService,
        saved: SavedSession,
        vault: StudyVault,
        clock: Clock,
    ) -> None:
        self._study = study
        self.saved = saved
        self._move_clock = _MoveClock(clock)
        self._moves_recorder = _MoveRecorder(study, saved.session_id)
        self._move_clock.fixed = saved.started_at
        self.part_answers: list[str] = []
        """Answers given so far to the parts of the current item (exercises)."""
        super().__init__(
            plan,
            recorder=self._moves_recorder,
            clock=self._move_clock,
            chains=vault.chain_index,
        )
        self._move_clock.fixed = None

    def rebind(self, study: StudyService, *, clock: Clock) -> None:
        """Make the next moves through ``study`` and ``clock`` (a machine kept between requests)."""
        self._study = study
        self._moves_recorder.study = study
        self._move_clock.live = clock

    def use_clock(self, clock: Clock) -> None:
        """Read the time of the moves from now on from ``clock`` (an interactive driver's)."""
        self._move_clock.live = clock

    def read_cards(self) -> None:
        """Read the cards of the session's items now, in one query, for the reviews to come."""
        self._moves_recorder.cards = self._study.cards_of(self.saved.item_ids)

    @property
    def session_id(self) -> SessionId:
        """The session's id (its history record)."""
        return self.saved.session_id

    # -- replay and saving -------------------------------------------------------

    def replay(self, moves: tuple[dict[str, Any], ...]) -> None:
        """Apply saved moves again without writing reviews or saving.

        Raises:
            ContentInvalid: If a move no longer fits (the vault's items changed).
        """
        self._moves_recorder.replaying = True
        try:
            for move in moves:
                self._moves_recorder.move = move
                self._move_clock.fixed = datetime.fromisoformat(move["at"])
                try:
                    self._apply_move(move)
                except UsageError as exc:
                    raise ContentInvalid(
                        f"Session {self.session_id} cannot be resumed: its items changed in "
                        f"the vault ({exc}). End the session and start a new one."
                    ) from exc
        finally:
            self._moves_recorder.replaying = False
            self._move_clock.fixed = None

    def _apply_move(self, move: dict[str, Any]) -> None:
        kind, value = move["move"], move.get("value")
        if kind == "answer":
            self.part_answers = []
            super().answer(str(value))
        elif kind == "part":
            self.part_answers.append(str(value))
        elif kind == "reveal":
            super().reveal()
        elif kind == "rate":
            if not self.revealed:  # saved before a flashcard's reveal was a move of its own
                super().reveal()
            super().rate(Rating(int(str(value))))
        elif kind == "rubric":
            super().score_rubric([int(i) for i in value or ()])
        elif kind == "chain":
            super().follow_chain(bool(value))
        elif kind == "skip":
            self.part_answers = []
            super().skip()
        elif kind == "quit":
            super().quit()
        elif kind == "tick":
            super().tick()

    def _make(self, kind: str, value: Any, act: Callable[[], _T]) -> _T:
        now = require_utc(self._move_clock.live())
        move: dict[str, Any] = {"move": kind, "value": value, "at": now.isoformat()}
        self._moves_recorder.move = move
        self._moves_recorder.pending = None
        self._move_clock.fixed = now
        try:
            outcome = act()
        finally:
            self._move_clock.fixed = None
        if self.phase is Phase.DONE:
            # Marked so that a list of sessions in progress can leave it out unreplayed.
            move["ends"] = True
        self._save(move, now)
        return outcome

    def _save(self, move: dict[str, Any], now: datetime) -> None:
        done = len(self.results)
        # What is stored: this machine saved (or was restored from) the revision before.
        stored_moves = len(self.saved.moves)
        self.saved = replace(
            self.saved,
            moves=(*self.saved.moves, move),
            position=done,
            updated_at=now,
            revision=self.saved.revision + 1,
        )
        recorder = self._moves_recorder
        pending, recorder.pending = recorder.pending, None
        outcome = self._study.save_move(self.saved, review=pending, stored_moves=stored_moves)
        if outcome is not None:
            move["review_id"] = outcome.review_id  # as stored (saved.moves holds this dict)
            recorder.cards[outcome.item_id] = ReadCard(outcome.card)

    # -- the learner's moves (saved) ----------------------------------------------

    def answer(self, text: str) -> Feedback:
        """Answer the current item (see :meth:`Session.answer`); the move is saved."""
        self.part_answers = []
        return self._make("answer", text, lambda: super(LiveSession, self).answer(text))

    def answer_part(self, text: str) -> None:
        """Answer the next part of the current exercise; the last part answers the item.

        The parts' answers are joined into the item's answer, one line per part.
        """
        self.check_part_answer(text)
        item = self._require(Phase.ANSWER)
        count = len(item.parts or ())
        answer = text.strip() or "-"
        if len(self.part_answers) + 1 >= count:
            labels = [part.label for part in item.parts or ()]
            lines = [
                f"{label} {given}"
                for label, given in zip(labels, [*self.part_answers, answer], strict=False)
            ]
            self.answer("\n".join(lines))
            return
        self._make("part", answer, lambda: self.part_answers.append(answer))

    def _intervals(self, item: Item) -> Mapping[Rating, timedelta]:
        """The wait each rating would give ``item`` now, from its card as last read."""
        read = self._moves_recorder.cards.get(item.id)
        card = read.card if read is not None else None
        return preview_intervals(
            card or new_card(item.id),
            settings=self._study.settings,
            now=require_utc(self._move_clock()),
        )

    def reveal(self) -> None:
        """Show the flashcard's back (see :meth:`Session.reveal`); the move is saved once."""
        if self.revealed:
            return
        self._make("reveal", None, lambda: super(LiveSession, self).reveal())

    def rate(self, rating: Rating) -> ItemResult:
        """Grade your own recall (see :meth:`Session.rate`); the move is saved."""
        chosen = Rating(rating)
        return self._make("rate", int(chosen), lambda: super(LiveSession, self).rate(chosen))

    def score_rubric(self, covered: Collection[int]) -> ItemResult:
        """Score by rubric points (see :meth:`Session.score_rubric`); the move is saved."""
        chosen = sorted(set(covered))
        return self._make("rubric", chosen, lambda: super(LiveSession, self).score_rubric(chosen))

    def follow_chain(self, accept: bool) -> None:
        """Take or decline the chain offer; the move is saved."""
        self._make("chain", bool(accept), lambda: super(LiveSession, self).follow_chain(accept))

    def skip(self) -> None:
        """Leave the current item without a review; the move is saved."""
        self.part_answers = []
        self._make("skip", None, lambda: super(LiveSession, self).skip())

    def quit(self) -> None:
        """End the session now; the move is saved (nothing happens once it is over)."""
        if self.phase is Phase.DONE:
            return
        self._make("quit", None, lambda: super(LiveSession, self).quit())

    def tick(self) -> bool:
        """Check the countdown; a countdown that ran out is saved as a move."""
        if self.phase is not Phase.ANSWER or self.deadline is None:
            return False
        if require_utc(self._move_clock.live()) < self.deadline:
            return False
        return self._make("tick", None, lambda: super(LiveSession, self).tick())


def save_new(
    study: StudyService,
    plan: SessionLineup,
    *,
    started_with: dict[str, Any],
    now: datetime,
    note: str | None = None,
) -> SavedSession:
    """Record the start of ``plan`` and save it as a session in progress.

    ``note`` (what the learner is told about the plan: new items left out, today's
    daily items) is kept with it, so every page of the session can show it.
    """
    moment = require_utc(now)
    session_id = study.start_session(plan.kind.value, now=moment, meta=plan.meta)
    options = plan_options(plan, started_with)
    if note is not None:
        options["note"] = note
    saved = SavedSession(
        session_id=session_id,
        kind=plan.kind.value,
        options=options,
        item_ids=tuple(item.id for item in plan.items),
        started_at=moment,
        updated_at=moment,
    )
    study.store.put_active_session(study.scope, saved)
    return saved


def restore_session(
    study: StudyService, vault: StudyVault, saved: SavedSession, *, clock: Clock
) -> LiveSession:
    """Rebuild a saved session in this process, at the state its moves left it."""
    session = LiveSession(
        restore_plan(saved, vault), study=study, saved=saved, vault=vault, clock=clock
    )
    session.replay(saved.moves)
    session.read_cards()
    return session

"""Seed a learner's FSRS cards and review log from an Anki package's scheduling.

``sysdrill import --with-scheduling`` reads each imported card's Anki state and
review log (:mod:`sysdrill.interop.anki_scheduling`); this module turns them
into sysdrill's records and stores them (:func:`sysdrill.study.state_io.seed_history`):

- Anki's card type becomes the card state (new, learning, review, relearning),
  its due date the due date, its reviews and lapses ours;
- FSRS memory state (stability, difficulty) is taken as Anki kept it in
  ``cards.data``; without it (SM-2 decks) stability is the current interval in
  days (the interval at which FSRS expects 90 % recall) and difficulty comes
  from the ease factor: 130 % (Anki's floor) is 10, 350 % is 1, linear between
  (a card in review or relearning without an ease or interval gets Anki's
  starting ease, 250 %, and a stability of one day, as FSRS needs both);
- each review log entry becomes a review graded ``imported``, with the
  interval the card had before it;
- a card Anki has in learning, review or relearning without a graded review
  (a due date set by hand, a deck shared without its review log) keeps its
  state, due date, stability and difficulty as above; its last review is
  estimated as the due date less Anki's interval (when Anki scheduled it), no
  later than the import, so FSRS sees the elapsed time Anki would have seen.
  Only a card Anki has as new is never seen here.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from pathlib import Path

from sysdrill.interop.anki_scheduling import AnkiCardHistory, AnkiReview
from sysdrill.study.card_state import CardRecord, CardState
from sysdrill.study.clock import require_utc
from sysdrill.study.ratings import GradedBy
from sysdrill.study.review_log import ReviewRecord
from sysdrill.study.state_io import seed_history
from sysdrill.study.store import StudyStore
from sysdrill.study.user_state import StudyScope

__all__ = [
    "anki_schedule_of",
    "history_records",
    "seed_anki_history",
    "seed_study_from_import",
    "study_schedule",
]

_STATES = {
    0: CardState.NEW,
    1: CardState.LEARNING,
    2: CardState.REVIEW,
    3: CardState.RELEARNING,
}
_REVIEW_STATES = {0: CardState.LEARNING, 1: CardState.REVIEW, 2: CardState.RELEARNING}
_EASE_FLOOR, _EASE_CEILING = 1300, 3500
_DEFAULT_EASE = 2500
"""Anki's starting ease (250 %): the difficulty of a card in review that has no ease."""
_NEEDS_MEMORY = (CardState.REVIEW, CardState.RELEARNING)
"""States FSRS schedules from a stability and a difficulty, so a card in them needs both."""


def _difficulty(history: AnkiCardHistory, state: CardState) -> float | None:
    if history.difficulty is not None:
        return min(max(history.difficulty, 1.0), 10.0)
    ease = history.ease_permille
    if ease <= 0:
        if state not in _NEEDS_MEMORY:
            return None
        ease = _DEFAULT_EASE
    ease = min(max(ease, _EASE_FLOOR), _EASE_CEILING)
    return round(10.0 - 9.0 * (ease - _EASE_FLOOR) / (_EASE_CEILING - _EASE_FLOOR), 3)


def _estimated_last_review(history: AnkiCardHistory, *, now: datetime) -> datetime | None:
    """When Anki last showed a card it has no graded review of: its due date less its interval."""
    if history.due is None or history.interval_days <= 0:
        return None
    return min(history.due - timedelta(days=history.interval_days), now)


def history_records(
    item_id: str, history: AnkiCardHistory, *, now: datetime
) -> tuple[CardRecord, list[ReviewRecord]]:
    """The card and reviews of one item from its Anki history.

    Args:
        item_id: The item the card became.
        history: Anki's card state and graded reviews.
        now: The import time (UTC): an estimated last review is no later.

    Returns:
        The card (never seen only when Anki has it as new and never reviewed) and
        its reviews, oldest first.
    """
    now = require_utc(now)
    state = _STATES.get(history.card_type, CardState.NEW)
    reviews: list[ReviewRecord] = []
    days_seen: set[date] = set()
    for index, entry in enumerate(history.reviews):
        day = entry.reviewed_at.date()
        before = CardState.NEW if index == 0 else _REVIEW_STATES.get(entry.kind, CardState.REVIEW)
        reviews.append(
            ReviewRecord(
                item_id=item_id,
                rating=entry.rating,
                graded_by=GradedBy.IMPORTED.value,
                answer=None,
                duration_ms=entry.duration_ms,
                reviewed_at=entry.reviewed_at,
                state_before=before,
                interval_before_days=entry.last_interval_days if index else None,
                first_of_day=day not in days_seen,
            )
        )
        days_seen.add(day)
    stability = history.stability_days
    if stability is None and state is not CardState.NEW and history.interval_days > 0:
        stability = history.interval_days
    if stability is None and state in _NEEDS_MEMORY:
        stability = 1.0  # a review card with no interval: due again after a day
    if reviews:
        last_review: datetime | None = reviews[-1].reviewed_at
    elif state is CardState.NEW:
        last_review = None
    else:
        last_review = _estimated_last_review(history, now=now)
    card = CardRecord(
        item_id=item_id,
        state=state,
        step=0 if state in (CardState.LEARNING, CardState.RELEARNING) else None,
        stability_days=stability,
        difficulty=_difficulty(history, state) if state is not CardState.NEW else None,
        due=history.due,
        last_review=last_review,
        reps=history.reps,
        lapses=history.lapses,
        never_seen=state is CardState.NEW and not reviews,
    )
    return card, reviews


def seed_anki_history(
    store: StudyStore,
    scope: StudyScope,
    scheduling: dict[str, AnkiCardHistory],
    *,
    now: datetime,
) -> tuple[int, int]:
    """Store the Anki histories of imported items (by item id), all or nothing.

    See :func:`sysdrill.study.state_io.seed_history`: items already studied here
    are left alone, cards Anki has as new are not written.

    Args:
        store: The study store.
        scope: The learner and the vault.
        scheduling: Each imported item's Anki history, by item id.
        now: The import time (UTC).

    Returns:
        Cards seeded and reviews written.

    Raises:
        ImportFailed: If the learner has a session in progress in the vault.
    """
    cards: list[CardRecord] = []
    reviews: list[ReviewRecord] = []
    for item_id, history in sorted(scheduling.items()):
        card, logged = history_records(item_id, history, now=now)
        cards.append(card)
        reviews.extend(logged)
    return seed_history(store, scope, cards, reviews)


def seed_study_from_import(
    scheduling: dict[str, AnkiCardHistory],
    *,
    vault: Path,
    db_url: str | None = None,
    now: datetime,
) -> tuple[int, int]:
    """Seed the CLI's study database (see :func:`sysdrill.app.study.open_cli_study`).

    The histories become study state of ``vault``, the vault imported into, in
    one transaction (:func:`seed_anki_history`). An embedded SQLite database is
    created or migrated first, as for every CLI command
    (:func:`sysdrill.app.study.ready_cli_database`); PostgreSQL must be at this
    version's schema (``sysdrill db upgrade``). Called as the import's
    ``on_written``, a failure here puts the vault back as it was.

    Args:
        scheduling: Each imported item's Anki history, by item id.
        vault: The vault imported into (its files are in place).
        db_url: The study database; None for the default.
        now: The import time (UTC).

    Returns:
        Cards seeded and reviews written (items already studied here are left alone).

    Raises:
        MigrationError: If the database's schema is behind or newer than this sysdrill.
        StorageError: If the database cannot be opened or written.
        ImportFailed: If the learner has a session in progress in the vault.
    """
    from sysdrill.app.study import open_cli_study
    from sysdrill.app.study_vault import open_study_vault

    with open_cli_study(db_url, vault=open_study_vault(vault)) as study:
        return seed_anki_history(study.store, study.scope, scheduling, now=now)


_ANKI_TYPES = {state: number for number, state in _STATES.items()}
_REVIEW_KINDS = {CardState.NEW: 0, CardState.LEARNING: 0, CardState.REVIEW: 1}


def _history_of(card: CardRecord, reviews: list[ReviewRecord]) -> AnkiCardHistory:
    """The Anki history of one of our cards (the inverse of :func:`history_records`)."""
    interval_days = 0.0
    if card.due is not None and card.last_review is not None:
        interval_days = max((card.due - card.last_review).total_seconds() / 86_400, 0.0)
    ease = 0
    if card.difficulty is not None:
        ease = round(_EASE_CEILING - (card.difficulty - 1.0) / 9.0 * (_EASE_CEILING - _EASE_FLOOR))
    logged = []
    for index, review in enumerate(reviews):
        following = reviews[index + 1] if index + 1 < len(reviews) else None
        until = following.reviewed_at if following else card.due
        interval = (until - review.reviewed_at).total_seconds() / 86_400 if until else 0.0
        logged.append(
            AnkiReview(
                reviewed_at=review.reviewed_at,
                rating=review.rating,
                kind=_REVIEW_KINDS.get(review.state_before, 2),
                interval_days=max(interval, 0.0),
                last_interval_days=review.interval_before_days or 0.0,
                duration_ms=review.duration_ms,
            )
        )
    return AnkiCardHistory(
        card_type=_ANKI_TYPES.get(card.state, 0),
        due=card.due,
        interval_days=interval_days,
        ease_permille=ease,
        reps=card.reps,
        lapses=card.lapses,
        stability_days=card.stability_days,
        difficulty=card.difficulty,
        reviews=logged,
    )


def anki_schedule_of(store: StudyStore, scope: StudyScope) -> dict[str, AnkiCardHistory]:
    """Every studied card of a learner as Anki history, by item id (``--with-scheduling``)."""
    by_item: dict[str, list[ReviewRecord]] = {}
    for review in store.iter_reviews(scope):
        by_item.setdefault(review.item_id, []).append(review)
    return {
        card.item_id: _history_of(card, by_item.get(card.item_id, []))
        for card in store.iter_cards(scope)
        if not card.never_seen
    }


def study_schedule(vault: Path, db_url: str | None = None) -> dict[str, AnkiCardHistory]:
    """The CLI learner's scheduling in ``vault`` as Anki history (see :func:`anki_schedule_of`)."""
    from sysdrill.app.study import open_cli_study
    from sysdrill.app.study_vault import open_study_vault

    with open_cli_study(db_url, vault=open_study_vault(vault)) as study:
        return anki_schedule_of(study.store, study.scope)

"""Import of the StaffML browser app's progress (attempts and SM-2 cards) as FSRS state.

The StaffML app keeps progress in the browser's localStorage. We accept its
export as a JSON object in either of two shapes:

1. ``{"attempts": [...], "cards": {...}}`` (``srs`` or ``sm2`` may stand for ``cards``);
2. a localStorage dump ``{"<key>": "<JSON text>", ...}``: a key containing
   ``attempt`` holds the attempts, a key containing ``srs``, ``sm2`` or ``card``
   holds the cards; values may be JSON text or already parsed.

An **attempt** is an object with the question id (``questionId``,
``question_id`` or ``id``), a time (``timestamp``, ``ts``, ``date`` or
``attemptedAt``: epoch milliseconds or ISO 8601) and an outcome: ``rating`` /
``selfRating`` / ``confidence`` (1-5, or again/hard/good/easy), SM-2
``quality`` (0-5: 0-2 Again, 3 Hard, 4 Good, 5 Easy), or ``correct`` (true is
Good, false is Again). Optional: ``durationMs``, ``answer``.

A **card** is keyed by question id (or carries ``questionId`` in a list) with
``ease`` (``easeFactor``, ``ef``), ``interval`` (days), ``repetitions``
(``reps``), ``due`` (``nextReview``, ``dueDate``) and optionally ``lastReview``.

Conversion is conservative: attempts are replayed through FSRS in time order
(each becomes a review-log entry graded ``imported``); where an SM-2 card is
due earlier than the replayed FSRS card, the earlier date wins. A card without
attempts but with repetitions becomes a review card whose stability is its
SM-2 interval and whose difficulty follows its ease (2.5 is 5 of 10, each 0.1
less ease adds 0.5); a card with no repetitions and no attempts stays new.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Any

from sysdrill.errors import ImportFailed, SysdrillError
from sysdrill.study.card_state import CardRecord, CardState
from sysdrill.study.clock import require_utc, utc_day
from sysdrill.study.ratings import GradedBy, Rating, rating_from_text
from sysdrill.study.review_log import ReviewRecord
from sysdrill.study.scheduler import new_card, review_card
from sysdrill.study.settings import StudySettings
from sysdrill.study.store import StudyStore
from sysdrill.study.user_state import StudyScope, UserState

__all__ = ["StaffmlAttempt", "StaffmlCard", "import_staffml_progress", "read_staffml_progress"]

_ID_KEYS = ("questionId", "question_id", "qid", "id")
_TIME_KEYS = ("timestamp", "ts", "date", "attemptedAt", "attempted_at", "time")
_RATING_KEYS = ("rating", "selfRating", "self_rating", "confidence")


@dataclass(frozen=True, slots=True)
class StaffmlAttempt:
    """One answered question in the StaffML app."""

    question_id: str
    at: datetime
    rating: Rating
    duration_ms: int = 0
    answer: str | None = None


@dataclass(frozen=True, slots=True)
class StaffmlCard:
    """One SM-2 card of the StaffML app."""

    question_id: str
    ease: float
    interval_days: float
    repetitions: int
    due: datetime | None
    last_review: datetime | None


def _first(entry: Mapping[str, Any], keys: tuple[str, ...]) -> Any:
    for key in keys:
        if key in entry and entry[key] is not None:
            return entry[key]
    return None


def _time(value: Any, where: str) -> datetime:
    if isinstance(value, bool):
        raise ImportFailed(f"StaffML export: {where}: {value!r} is not a time.")
    if isinstance(value, int | float):
        seconds = value / 1000 if value > 10**11 else value
        return datetime.fromtimestamp(seconds, tz=UTC)
    if isinstance(value, str):
        try:
            parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError as exc:
            raise ImportFailed(
                f"StaffML export: {where}: {value!r} is not epoch milliseconds or ISO 8601."
            ) from exc
        return parsed.replace(tzinfo=UTC) if parsed.tzinfo is None else parsed.astimezone(UTC)
    raise ImportFailed(f"StaffML export: {where}: missing or unreadable time.")


def _rating(entry: Mapping[str, Any], where: str) -> Rating:
    value = _first(entry, _RATING_KEYS)
    if value is not None:
        try:
            if isinstance(value, int | float) and not isinstance(value, bool):
                return rating_from_text(str(int(value)))
            return rating_from_text(str(value))
        except SysdrillError as exc:
            raise ImportFailed(f"StaffML export: {where}: {exc}") from exc
    quality = entry.get("quality")
    if isinstance(quality, int | float) and not isinstance(quality, bool):
        # SM-2 quality 0-5: below 3 is a failed recall.
        if not 0 <= quality <= 5:
            raise ImportFailed(f"StaffML export: {where}: quality must be 0-5, got {quality}.")
        return (Rating.AGAIN, Rating.HARD, Rating.GOOD, Rating.EASY)[max(0, int(quality) - 2)]
    correct = entry.get("correct")
    if isinstance(correct, bool):
        return Rating.GOOD if correct else Rating.AGAIN
    raise ImportFailed(
        f"StaffML export: {where}: no outcome (rating, selfRating, confidence, quality or correct)."
    )


def _maybe_json(value: Any, key: str) -> Any:
    if isinstance(value, str):
        try:
            return json.loads(value)
        except json.JSONDecodeError as exc:
            raise ImportFailed(f"StaffML export: {key}: not JSON ({exc.msg}).") from exc
    return value


def _sections(data: Mapping[str, Any]) -> tuple[Any, Any]:
    attempts: Any = None
    cards: Any = None
    for key, value in data.items():
        lowered = key.lower()
        if "attempt" in lowered and attempts is None:
            attempts = _maybe_json(value, key)
        elif any(word in lowered for word in ("srs", "sm2", "card")) and cards is None:
            cards = _maybe_json(value, key)
    return attempts, cards


def read_staffml_progress(
    data: Mapping[str, Any],
) -> tuple[list[StaffmlAttempt], list[StaffmlCard]]:
    """Read attempts and SM-2 cards out of a StaffML browser export.

    Raises:
        ImportFailed: If the document has neither attempts nor cards, or an entry is malformed.
    """
    if not isinstance(data, Mapping):
        raise ImportFailed("StaffML export must be a JSON object with attempts and/or cards.")
    raw_attempts, raw_cards = _sections(data)
    if raw_attempts is None and raw_cards is None:
        raise ImportFailed(
            'No StaffML attempts or cards found (expected keys such as "attempts" and '
            '"cards"). See docs/study.md for the accepted shape.'
        )
    attempts: list[StaffmlAttempt] = []
    for index, entry in enumerate(raw_attempts or []):
        where = f"attempts[{index}]"
        if not isinstance(entry, Mapping):
            raise ImportFailed(f"StaffML export: {where}: expected an object.")
        question = _first(entry, _ID_KEYS)
        if not isinstance(question, str) or not question:
            raise ImportFailed(f"StaffML export: {where}: missing questionId.")
        duration = entry.get("durationMs", entry.get("duration_ms", 0))
        attempts.append(
            StaffmlAttempt(
                question_id=question,
                at=_time(_first(entry, _TIME_KEYS), where),
                rating=_rating(entry, where),
                duration_ms=max(0, int(duration)) if isinstance(duration, int | float) else 0,
                answer=entry.get("answer") if isinstance(entry.get("answer"), str) else None,
            )
        )
    cards: list[StaffmlCard] = []
    if isinstance(raw_cards, Mapping):
        entries: list[tuple[str, Any]] = [(str(k), v) for k, v in raw_cards.items()]
    elif isinstance(raw_cards, list):
        entries = [(str(_first(e, _ID_KEYS) or ""), e) for e in raw_cards if isinstance(e, Mapping)]
    elif raw_cards is None:
        entries = []
    else:
        raise ImportFailed("StaffML export: cards must be an object or a list.")
    for question, entry in entries:
        where = f"cards[{question!r}]"
        if not question or not isinstance(entry, Mapping):
            raise ImportFailed(f"StaffML export: {where}: expected an object with a question id.")
        try:
            ease = float(_first(entry, ("ease", "easeFactor", "ef")) or 2.5)
            interval = float(entry.get("interval") or 0)
            reps = int(_first(entry, ("repetitions", "reps")) or 0)
        except (TypeError, ValueError) as exc:
            raise ImportFailed(f"StaffML export: {where}: {exc}.") from exc
        due_raw = _first(entry, ("due", "nextReview", "dueDate"))
        last_raw = _first(entry, ("lastReview", "last_review", "lastReviewed"))
        cards.append(
            StaffmlCard(
                question_id=question,
                ease=ease,
                interval_days=max(0.0, interval),
                repetitions=max(0, reps),
                due=_time(due_raw, where) if due_raw is not None else None,
                last_review=_time(last_raw, where) if last_raw is not None else None,
            )
        )
    return attempts, cards


def _sm2_card(card: StaffmlCard, *, now: datetime) -> CardRecord:
    stability = max(1.0, card.interval_days)
    difficulty = min(10.0, max(1.0, 5.0 + (2.5 - card.ease) * 5.0))
    due = card.due or (card.last_review + timedelta(days=stability) if card.last_review else now)
    last = card.last_review or min(due, now) - timedelta(days=stability)
    return CardRecord(
        item_id=card.question_id,
        state=CardState.REVIEW,
        step=None,
        stability_days=stability,
        difficulty=difficulty,
        due=due,
        last_review=min(last, now),
        reps=card.repetitions,
        lapses=0,
        never_seen=False,
    )


def convert_staffml(
    attempts: list[StaffmlAttempt],
    cards: list[StaffmlCard],
    *,
    now: datetime,
    settings: StudySettings,
) -> UserState:
    """Turn StaffML attempts and SM-2 cards into FSRS cards and review-log entries."""
    moment = require_utc(now)
    quiet = settings.with_changes(fuzz=False, deadline=None)
    state = UserState(settings={})
    current: dict[str, CardRecord] = {}
    for attempt in sorted(attempts, key=lambda a: (a.at, a.question_id)):
        if attempt.at > moment:
            raise ImportFailed(
                f"StaffML export: attempt of {attempt.question_id} at {attempt.at.isoformat()} "
                "is in the future. Check the export's clock."
            )
        before = current.get(attempt.question_id) or new_card(attempt.question_id)
        after = review_card(before, attempt.rating, now=attempt.at, settings=quiet)
        interval = None
        if before.due is not None and before.last_review is not None:
            interval = (before.due - before.last_review) / timedelta(days=1)
        state.reviews.append(
            ReviewRecord(
                item_id=attempt.question_id,
                rating=int(attempt.rating),
                graded_by=GradedBy.IMPORTED.value,
                answer=attempt.answer,
                duration_ms=attempt.duration_ms,
                reviewed_at=attempt.at,
                state_before=before.state,
                interval_before_days=interval,
                first_of_day=before.last_review is None
                or utc_day(before.last_review) != utc_day(attempt.at),
                settings=quiet.to_mapping(),
            )
        )
        current[attempt.question_id] = after
    for card in cards:
        replayed = current.get(card.question_id)
        if replayed is None:
            if card.repetitions > 0:
                current[card.question_id] = _sm2_card(card, now=moment)
            continue
        if card.due is not None and replayed.due is not None and card.due < replayed.due:
            current[card.question_id] = replace(replayed, due=card.due)
    state.cards = [current[key] for key in sorted(current)]
    return state


def import_staffml_progress(
    store: StudyStore,
    scope: StudyScope,
    data: Mapping[str, Any],
    *,
    now: datetime,
    settings: StudySettings,
    replace: bool,
) -> int:
    """Import a StaffML browser export as the learner's state, all or nothing.

    The learner's settings are kept; cards, reviews and sessions are replaced.

    Returns:
        The number of review-log entries created.

    Raises:
        ImportFailed: If the export is malformed, or the learner has state and
            ``replace`` is not set.
    """
    from sysdrill.study.state_io import refuse_unless_empty

    attempts, cards = read_staffml_progress(data)
    converted = convert_staffml(attempts, cards, now=now, settings=settings)
    refuse_unless_empty(store, scope, replace=replace)
    converted.settings = store.get_settings(scope.user_id)
    store.replace_user_state(scope, converted)
    return len(converted.reviews)

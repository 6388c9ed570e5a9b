"""Export and import of all of one learner's study state as one JSON document.

The document (``format: sysdrill-study-state``, ``version: 1``) names the vault
the state belongs to (``vault``; files written before state was kept per vault
have none and are read as the legacy identity, which any vault may take) and
holds the settings, every card, every session and the whole review log; importing an
export reproduces the same export (the round trip is lossless; only database
ids are renumbered, and reviews point at sessions by position).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any, BinaryIO, Literal

import orjson
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from sysdrill.errors import ImportFailed
from sysdrill.study.card_state import CardRecord, CardState
from sysdrill.study.clock import require_utc
from sysdrill.study.ratings import GradedBy
from sysdrill.study.review_log import ReviewRecord
from sysdrill.study.settings import StudySettings
from sysdrill.study.store import StudyStore
from sysdrill.study.user_state import (
    LEGACY_VAULT_ID,
    SessionRecord,
    StudyScope,
    UserState,
    VaultId,
)

__all__ = [
    "STATE_FORMAT",
    "STATE_VERSION",
    "StateDocument",
    "export_user_state",
    "import_user_state",
    "parse_state_document",
    "seed_history",
    "store_is_empty",
    "write_user_state",
]

STATE_FORMAT = "sysdrill-study-state"
STATE_VERSION = 1

_STATE_NAMES = {state: state.name.lower() for state in CardState}
_STATE_BY_NAME = {name: state for state, name in _STATE_NAMES.items()}
_GRADED_BY = {member: member.value for member in GradedBy}
"""Each way of grading as the plain string a review keeps (``.value`` is slow on 3.11)."""


def _aware(value: datetime | None) -> datetime | None:
    if value is None:
        return None
    if value.tzinfo is None:
        raise ValueError("datetime needs a UTC offset such as +00:00")
    return value.astimezone(UTC)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class CardEntry(_Strict):
    """One card of the document."""

    item_id: str = Field(min_length=1)
    state: Literal["new", "learning", "review", "relearning"]
    step: int | None = None
    stability_days: float | None = None
    difficulty: float | None = None
    due: datetime | None = None
    last_review: datetime | None = None
    reps: int = Field(ge=0, default=0)
    lapses: int = Field(ge=0, default=0)
    never_seen: bool = False

    _utc = field_validator("due", "last_review")(_aware)


class SessionEntry(_Strict):
    """One session of the document."""

    kind: str
    started_at: datetime
    ended_at: datetime | None = None
    meta: dict[str, Any] = Field(default_factory=dict)

    _utc = field_validator("started_at", "ended_at")(_aware)


class ReviewEntry(_Strict):
    """One review-log entry of the document."""

    item_id: str = Field(min_length=1)
    rating: int = Field(ge=1, le=4)
    graded_by: GradedBy
    answer: str | None = None
    duration_ms: int = Field(ge=0)
    reviewed_at: datetime
    state_before: Literal["new", "learning", "review", "relearning"]
    interval_before_days: float | None = None
    first_of_day: bool
    settings: dict[str, Any] = Field(default_factory=dict)
    session: int | None = Field(default=None, ge=0)
    """Position of the review's session in ``sessions``."""

    _utc = field_validator("reviewed_at")(_aware)


class StateDocument(_Strict):
    """The whole export document."""

    format: Literal["sysdrill-study-state"]
    version: Literal[1]
    user: str
    vault: str | None = Field(default=None, min_length=1)
    """Identity of the vault the state was studied in; absent in older files."""
    exported_at: datetime
    settings: dict[str, Any] = Field(default_factory=dict)
    cards: list[CardEntry] = Field(default_factory=list)
    sessions: list[SessionEntry] = Field(default_factory=list)
    reviews: list[ReviewEntry] = Field(default_factory=list)
    interviews: list[dict[str, Any]] = Field(default_factory=list)
    """Mock interviews with their turns; ``app/interview_records.py`` reads and writes them."""


def _header(store: StudyStore, scope: StudyScope, *, user: str, now: datetime) -> dict[str, Any]:
    return {
        "format": STATE_FORMAT,
        "version": STATE_VERSION,
        "user": user,
        "vault": scope.vault_id,
        "exported_at": require_utc(now).isoformat(),
        "settings": store.get_settings(scope.user_id),
    }


def _card_entry(c: CardRecord) -> dict[str, Any]:
    return {
        "item_id": c.item_id,
        "state": _STATE_NAMES[c.state],
        "step": c.step,
        "stability_days": c.stability_days,
        "difficulty": c.difficulty,
        "due": c.due.isoformat() if c.due else None,
        "last_review": c.last_review.isoformat() if c.last_review else None,
        "reps": c.reps,
        "lapses": c.lapses,
        "never_seen": c.never_seen,
    }


def _session_entry(s: SessionRecord) -> dict[str, Any]:
    return {
        "kind": s.kind,
        "started_at": s.started_at.isoformat(),
        "ended_at": s.ended_at.isoformat() if s.ended_at else None,
        "meta": s.meta,
    }


def _review_entry(r: ReviewRecord, position: Mapping[int | None, int]) -> dict[str, Any]:
    return {
        "item_id": r.item_id,
        "rating": r.rating,
        "graded_by": r.graded_by,
        "answer": r.answer,
        "duration_ms": r.duration_ms,
        "reviewed_at": r.reviewed_at.isoformat(),
        "state_before": _STATE_NAMES[r.state_before],
        "interval_before_days": r.interval_before_days,
        "first_of_day": r.first_of_day,
        "settings": r.settings,
        "session": position.get(r.session_id) if r.session_id is not None else None,
    }


def export_user_state(
    store: StudyStore, scope: StudyScope, *, user: str, now: datetime
) -> dict[str, Any]:
    """Return the user's whole state as a JSON-ready document.

    Args:
        store: The study store.
        scope: The learner and the vault.
        user: The learner's name (written into the document).
        now: Export time (UTC).
    """
    sessions = store.list_sessions(scope)
    position = {s.session_id: index for index, s in enumerate(sessions)}
    return {
        **_header(store, scope, user=user, now=now),
        "cards": [_card_entry(c) for c in store.iter_cards(scope)],
        "sessions": [_session_entry(s) for s in sessions],
        "reviews": [_review_entry(r, position) for r in store.iter_reviews(scope)],
    }


def write_user_state(
    store: StudyStore,
    scope: StudyScope,
    out: BinaryIO,
    *,
    user: str,
    now: datetime,
    interviews: Sequence[Mapping[str, Any]] = (),
    progress: Callable[[str, int, int], None] | None = None,
) -> tuple[int, int]:
    """Write :func:`export_user_state`'s document, with ``interviews``, to ``out`` as UTF-8 JSON.

    Entries are written as they are read, one a line: a learner's million reviews
    built as one document and dumped whole took 3.9 GB and 24 s at 100,000 items.

    Args:
        store: The study store.
        scope: The learner and the vault.
        out: A binary file open for writing.
        user: The learner's name (written into the document).
        now: Export time (UTC).
        interviews: The learner's interviews, JSON-ready (``app/interview_records.py``).
        progress: Called as ``progress(stage, done, total)`` while reviews are written.

    Returns:
        The cards and the reviews written.
    """
    sessions = store.list_sessions(scope)
    position = {s.session_id: index for index, s in enumerate(sessions)}
    out.write(b"{\n")
    for key, value in _header(store, scope, user=user, now=now).items():
        out.write(b' "%s": %s,\n' % (key.encode(), orjson.dumps(value)))
    cards = _write_list(out, "cards", map(_card_entry, store.iter_cards(scope)))
    _write_list(out, "sessions", map(_session_entry, sessions))
    total = sum(day.reviews for day in store.daily_stats(scope))
    entries = (_review_entry(r, position) for r in store.iter_reviews(scope))
    reviews = _write_list(out, "reviews", entries, progress=progress, total=total)
    _write_list(out, "interviews", interviews, last=True)
    out.write(b"}\n")
    return cards, reviews


def _write_list(
    out: BinaryIO,
    key: str,
    entries: Iterable[Mapping[str, Any]],
    *,
    last: bool = False,
    progress: Callable[[str, int, int], None] | None = None,
    total: int = 0,
) -> int:
    """Write ``"key": [...]`` with one entry a line; returns how many were written."""
    out.write(b' "%s": [' % key.encode())
    count = 0
    for count, entry in enumerate(entries, start=1):
        out.write(b"\n  " if count == 1 else b",\n  ")
        out.write(orjson.dumps(entry))
        if progress is not None and count % 1000 == 0:
            progress(f"Writing {key}", count, max(total, count))
    out.write(b"\n ]" if count else b"]")
    out.write(b"\n" if last else b",\n")
    if progress is not None:
        progress(f"Writing {key}", count, max(total, count))
    return count


def _first_problems(exc: ValidationError, limit: int = 5) -> str:
    parts = []
    for error in exc.errors()[:limit]:
        where = ".".join(str(p) for p in error["loc"]) or "document"
        parts.append(f"{where}: {error['msg']}")
    more = len(exc.errors()) - limit
    return "; ".join(parts) + (f"; and {more} more" if more > 0 else "")


def parse_state_document(data: Mapping[str, Any]) -> UserState:
    """Validate an export document and return the state it holds.

    Raises:
        ImportFailed: Naming the first problems by path (``cards.3.due: ...``).
    """
    if not isinstance(data, Mapping) or data.get("format") != STATE_FORMAT:
        raise ImportFailed(
            'Not a sysdrill study-state file (no "format": "sysdrill-study-state"). '
            "For a StaffML browser export use --from staffml."
        )
    try:
        doc = StateDocument.model_validate(dict(data))
    except ValidationError as exc:
        raise ImportFailed(f"Invalid study-state file: {_first_problems(exc)}.") from exc
    try:
        StudySettings.from_mapping(doc.settings)
    except Exception as exc:
        raise ImportFailed(f"Invalid settings in study-state file: {exc}") from exc
    for index, review in enumerate(doc.reviews):
        if review.session is not None and review.session >= len(doc.sessions):
            raise ImportFailed(
                f"Invalid study-state file: reviews.{index}.session: no session "
                f"{review.session} (the file has {len(doc.sessions)})."
            )
    # A log's reviews carry a few distinct settings: one dict for each, so the store
    # digests each once (by identity) instead of a million times.
    distinct: dict[bytes, dict[str, Any]] = {}

    def shared(settings: dict[str, Any]) -> dict[str, Any]:
        return distinct.setdefault(orjson.dumps(settings, option=orjson.OPT_SORT_KEYS), settings)

    ids = [c.item_id for c in doc.cards]
    if len(ids) != len(set(ids)):
        duplicate = next(i for i in ids if ids.count(i) > 1)
        raise ImportFailed(f"Invalid study-state file: two cards for item {duplicate!r}.")
    return UserState(
        cards=[
            CardRecord(
                item_id=c.item_id,
                state=_STATE_BY_NAME[c.state],
                step=c.step,
                stability_days=c.stability_days,
                difficulty=c.difficulty,
                due=c.due,
                last_review=c.last_review,
                reps=c.reps,
                lapses=c.lapses,
                never_seen=c.never_seen,
            )
            for c in doc.cards
        ],
        sessions=[
            SessionRecord(kind=s.kind, started_at=s.started_at, ended_at=s.ended_at, meta=s.meta)
            for s in doc.sessions
        ],
        reviews=[
            ReviewRecord(
                item_id=r.item_id,
                rating=r.rating,
                graded_by=_GRADED_BY[r.graded_by],
                answer=r.answer,
                duration_ms=r.duration_ms,
                reviewed_at=r.reviewed_at,
                state_before=_STATE_BY_NAME[r.state_before],
                interval_before_days=r.interval_before_days,
                first_of_day=r.first_of_day,
                settings=shared(r.settings),
                session_id=r.session,
            )
            for r in doc.reviews
        ],
        settings=doc.settings,
        vault_id=LEGACY_VAULT_ID if doc.vault is None else VaultId(doc.vault),
    )


def store_is_empty(store: StudyStore, scope: StudyScope) -> bool:
    """Whether the user has neither cards nor reviews."""
    return (
        next(store.iter_cards(scope), None) is None
        and next(store.iter_reviews(scope), None) is None
    )


def import_user_state(
    store: StudyStore,
    scope: StudyScope,
    data: Mapping[str, Any],
    *,
    replace: bool,
    into_vault: bool = False,
) -> int:
    """Replace the user's state in the scope's vault with the document's, all or nothing.

    Args:
        store: The study store.
        scope: The learner and the vault.
        data: A parsed export document.
        replace: Allow overwriting a learner who already has cards or reviews.
        into_vault: Load the state of another vault into this one.

    Returns:
        The number of reviews imported.

    Raises:
        ImportFailed: If the document is invalid, holds another vault's state
            without ``into_vault``, or state exists without ``replace``.
    """
    state = parse_state_document(data)
    if state.vault_id not in (scope.vault_id, LEGACY_VAULT_ID) and not into_vault:
        raise ImportFailed(
            f"The file holds the study state of vault {state.vault_id!r}, not of the vault "
            f"opened ({scope.vault_id!r}). Open that vault with --vault, or add --into-vault "
            "to load the state into this one."
        )
    refuse_unless_empty(store, scope, replace=replace)
    store.replace_user_state(scope, state)
    return len(state.reviews)


def refuse_unless_empty(store: StudyStore, scope: StudyScope, *, replace: bool) -> None:
    """Raise ImportFailed when the learner has state and ``replace`` is not set."""
    if not replace and not store_is_empty(store, scope):
        raise ImportFailed(
            "This learner already has study state. Use --replace to overwrite it "
            "(export it first with `sysdrill state export FILE`)."
        )


def seed_history(
    store: StudyStore, scope: StudyScope, cards: list[CardRecord], reviews: list[ReviewRecord]
) -> tuple[int, int]:
    """Seed cards and their review logs taken over from another tool (an Anki package).

    An item that already has a card for this learner keeps it: what was
    practised here wins, and importing the same history twice writes nothing.
    A card is written with its reviews (oldest first); a card without any
    review is written as it is unless it was never seen (a review card whose
    log was not kept keeps its state, due date and memory; a new card is new
    anyway).

    Everything is written in one transaction or nothing is: the learner's state
    in the vault is replaced by itself plus the seeded cards and reviews
    (:meth:`StudyStore.replace_user_state`; its reviews and sessions are kept,
    their database ids renumbered). That would end a session in progress, so a
    learner with one in this vault is refused.

    Args:
        store: The study store.
        scope: The learner and the vault.
        cards: The final state of each item's card.
        reviews: Their reviews, any order.

    Returns:
        Cards seeded and reviews written.

    Raises:
        ImportFailed: If the learner has a session in progress in this vault.
    """
    by_item: dict[str, list[ReviewRecord]] = {}
    for review in sorted(reviews, key=lambda r: r.reviewed_at):
        by_item.setdefault(review.item_id, []).append(review)
    wanted = [c for c in cards if by_item.get(c.item_id) or not c.never_seen]
    if not wanted:
        return 0, 0
    kept = store.cards_of(scope, [c.item_id for c in wanted])
    seeded = [c for c in wanted if c.item_id not in kept]
    if not seeded:
        return 0, 0
    in_progress = len(store.list_active_sessions(scope))
    if in_progress:
        raise ImportFailed(
            f"{in_progress} session(s) in progress in this vault would end if the scheduling "
            "history were taken over now; finish or end them in the web app first, or "
            "import without --with-scheduling"
        )
    sessions = store.list_sessions(scope)
    position = {s.session_id: index for index, s in enumerate(sessions)}
    logged = [
        replace(r, session_id=position.get(r.session_id) if r.session_id is not None else None)
        for r in store.iter_reviews(scope)
    ]
    added = [r for card in seeded for r in by_item.get(card.item_id, [])]
    store.replace_user_state(
        scope,
        UserState(
            vault_id=scope.vault_id,
            cards=[*store.iter_cards(scope), *seeded],
            reviews=[*logged, *added],
            sessions=[replace(s, session_id=None) for s in sessions],
            settings=store.get_settings(scope.user_id),
        ),
    )
    return len(seeded), len(added)

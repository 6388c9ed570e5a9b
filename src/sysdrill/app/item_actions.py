"""What a learner does to one item outside a session: suspend, bury, read its history.

The CLI (``sysdrill item ...``) and the web app (the item page's buttons and
``/api/items/{id}/...``) call these functions. Suspending keeps an item out of
practice, quizzes and the daily set until it is unsuspended; burying keeps it
out until the next midnight UTC. Neither touches the item's schedule
(:mod:`sysdrill.study.card_flags`). The history lists the item's reviews with
the interval each one scheduled, as Anki's card info does.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

from sysdrill.app.study_vault import StudyVault
from sysdrill.content.models import Item
from sysdrill.errors import QuestionNotFound, UsageError
from sysdrill.study.card_flags import CardFlags, bury_end, is_held
from sysdrill.study.card_state import CardRecord
from sysdrill.study.clock import require_utc
from sysdrill.study.ratings import Rating
from sysdrill.study.review_log import ReviewRecord
from sysdrill.study.service import StudyService
from sysdrill.study.sessions.report import format_interval
from sysdrill.study.sessions.text import untitled_heading

__all__ = [
    "HistoryEntry",
    "ItemHistory",
    "ItemStatus",
    "bury_item",
    "find_item",
    "item_history",
    "item_status",
    "suspend_item",
    "unbury_item",
    "unsuspend_item",
]


def find_item(vault: StudyVault, item_id: str) -> Item:
    """The item with ``item_id``.

    Raises:
        QuestionNotFound: If there is none (the message suggests close ids).
    """
    found = vault.by_id.get(item_id)
    if found is not None:
        return found
    close = difflib.get_close_matches(item_id, list(vault.by_id), n=3)
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    raise QuestionNotFound(f"no item with id '{item_id}'{hint}")


@dataclass(frozen=True, slots=True)
class ItemStatus:
    """Whether an item comes up in sessions now, and what keeps it out."""

    item_id: str
    suspended: bool
    buried_until: datetime | None
    """When its bury ends (UTC); None when it is not buried now."""
    message: str
    """One line for the learner: what was done, or what holds."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready values."""
        return {
            "item_id": self.item_id,
            "suspended": self.suspended,
            "buried_until": None if self.buried_until is None else self.buried_until.isoformat(),
            "message": self.message,
        }


def _status(flags: CardFlags, *, now: datetime, message: str) -> ItemStatus:
    # A bury that has run out is shown as no bury at all (its row may remain).
    buried = flags.buried_until if is_held(replace(flags, suspended=False), now=now) else None
    return ItemStatus(flags.item_id, flags.suspended, buried, message)


def _describe(flags: CardFlags, *, now: datetime) -> str:
    status = _status(flags, now=now, message="")
    if status.suspended:
        return "Suspended: it stays out of sessions until you unsuspend it."
    if status.buried_until is not None:
        return f"Buried until {status.buried_until:%Y-%m-%d %H:%M} UTC."
    return "Comes up in sessions as scheduled."


def _flags(study: StudyService, vault: StudyVault, item_id: str) -> CardFlags:
    find_item(vault, item_id)
    return study.store.get_card_flags(study.scope, item_id)


def _buried_now(flags: CardFlags, moment: datetime) -> bool:
    return _status(flags, now=moment, message="").buried_until is not None


def _change(
    study: StudyService,
    vault: StudyVault,
    item_id: str,
    *,
    now: datetime,
    refused: Callable[[CardFlags, datetime], str | None],
    changed: Callable[[CardFlags, datetime], CardFlags],
    done: str,
) -> ItemStatus:
    """Read the item's flags, refuse a change that changes nothing, store the change."""
    moment = require_utc(now)
    flags = _flags(study, vault, item_id)
    reason = refused(flags, moment)
    if reason is not None:
        raise UsageError(f"Item '{item_id}' {reason}")
    after = changed(flags, moment)
    study.store.put_card_flags(study.scope, after)
    return _status(after, now=moment, message=f"{done} {item_id}. {_describe(after, now=moment)}")


def item_status(
    study: StudyService, vault: StudyVault, item_id: str, *, now: datetime
) -> ItemStatus:
    """Whether the item is suspended or buried at ``now`` (UTC).

    Raises:
        QuestionNotFound: If the vault has no such item.
    """
    moment = require_utc(now)
    flags = _flags(study, vault, item_id)
    return _status(flags, now=moment, message=_describe(flags, now=moment))


def suspend_item(
    study: StudyService, vault: StudyVault, item_id: str, *, now: datetime
) -> ItemStatus:
    """Keep the item out of every session until it is unsuspended.

    Raises:
        QuestionNotFound: If the vault has no such item.
        UsageError: If it is suspended already.
    """
    return _change(
        study,
        vault,
        item_id,
        now=now,
        refused=lambda flags, _: "is suspended already." if flags.suspended else None,
        changed=lambda flags, _: replace(flags, suspended=True),
        done="Suspended",
    )


def unsuspend_item(
    study: StudyService, vault: StudyVault, item_id: str, *, now: datetime
) -> ItemStatus:
    """Let a suspended item come up again (a bury still in force stays).

    Raises:
        QuestionNotFound: If the vault has no such item.
        UsageError: If it is not suspended.
    """
    return _change(
        study,
        vault,
        item_id,
        now=now,
        refused=lambda flags, _: None if flags.suspended else "is not suspended.",
        changed=lambda flags, _: replace(flags, suspended=False),
        done="Unsuspended",
    )


def bury_item(study: StudyService, vault: StudyVault, item_id: str, *, now: datetime) -> ItemStatus:
    """Keep the item out of sessions until the next midnight UTC.

    Raises:
        QuestionNotFound: If the vault has no such item.
        UsageError: If it is suspended (a bury would change nothing).
    """
    return _change(
        study,
        vault,
        item_id,
        now=now,
        refused=lambda flags, _: "is suspended: unsuspend it first." if flags.suspended else None,
        changed=lambda flags, moment: replace(flags, buried_until=bury_end(moment)),
        done="Buried",
    )


def unbury_item(
    study: StudyService, vault: StudyVault, item_id: str, *, now: datetime
) -> ItemStatus:
    """Let a buried item come up again today.

    Raises:
        QuestionNotFound: If the vault has no such item.
        UsageError: If it is not buried now.
    """
    return _change(
        study,
        vault,
        item_id,
        now=now,
        refused=lambda flags, moment: None if _buried_now(flags, moment) else "is not buried.",
        changed=lambda flags, _: replace(flags, buried_until=None),
        done="Unburied",
    )


@dataclass(frozen=True, slots=True)
class HistoryEntry:
    """One review of the item."""

    reviewed_at: datetime
    rating: str
    """Again, Hard, Good or Easy."""
    interval_days: float | None
    """The interval this review scheduled, in days at full precision (a 10-minute
    learning step is 10/1440), None when it cannot be told."""
    graded_by: str
    """What decided the rating (``self``, ``numeric``, ``multiple-choice``...)."""

    @property
    def interval_text(self) -> str:
        """The interval as words: ``10 min``, ``5 h``, ``3 days``; ``-`` when unknown.

        Written as a session's "next review in" line writes it.
        """
        if self.interval_days is None:
            return "-"
        return format_interval(timedelta(days=self.interval_days))

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready values."""
        return {
            "reviewed_at": self.reviewed_at.isoformat(),
            "rating": self.rating,
            "interval_days": self.interval_days,
            "interval": self.interval_text,
            "graded_by": self.graded_by,
        }


@dataclass(frozen=True, slots=True)
class ItemHistory:
    """An item's reviews, oldest first, with what keeps it out of sessions and when it is due."""

    item_id: str
    title: str
    status: ItemStatus
    due: datetime | None
    """When the item is due next (UTC); None when it was never reviewed."""
    entries: tuple[HistoryEntry, ...]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready values."""
        return {
            "item_id": self.item_id,
            "title": self.title,
            "status": self.status.to_dict(),
            "due": None if self.due is None else self.due.isoformat(),
            "reviews": [entry.to_dict() for entry in self.entries],
        }


def _rating_word(value: int) -> str:
    try:
        return Rating(value).name.capitalize()
    except ValueError:
        return str(value)


def _entries(reviews: list[ReviewRecord], card: CardRecord | None) -> tuple[HistoryEntry, ...]:
    # A review's scheduled interval is stored with the next review (its
    # interval_before_days); the last one's is the card's, from its last review to its due.
    if not reviews:
        return ()
    scheduled: list[float | None] = [later.interval_before_days for later in reviews[1:]]
    last: float | None = None
    if card is not None and card.due is not None and card.last_review is not None:
        last = (card.due - card.last_review) / timedelta(days=1)
    scheduled.append(last)
    return tuple(
        HistoryEntry(
            reviewed_at=review.reviewed_at,
            rating=_rating_word(review.rating),
            interval_days=interval,
            graded_by=review.graded_by,
        )
        for review, interval in zip(reviews, scheduled, strict=True)
    )


def item_history(
    study: StudyService, vault: StudyVault, item_id: str, *, now: datetime
) -> ItemHistory:
    """The learner's reviews of the item, oldest first, and its flags at ``now`` (UTC).

    Raises:
        QuestionNotFound: If the vault has no such item.
    """
    item = find_item(vault, item_id)
    status = item_status(study, vault, item_id, now=now)
    card = study.store.get_card(study.scope, item_id)
    reviews = study.store.item_reviews(study.scope, item_id)
    return ItemHistory(
        item_id=item_id,
        title=item.title or untitled_heading(item),
        status=status,
        due=None if card is None else card.due,
        entries=_entries(reviews, card),
    )

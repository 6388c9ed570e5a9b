"""Suspended and buried items: what a learner keeps out of their sessions.

A learner suspends an item to drop it from every session until they take the
suspension back, and buries one to drop it for the rest of the UTC day (it
comes back at the next midnight UTC). Both are kept per learner and vault,
beside the card (:class:`~sysdrill.study.user_state.StudyScope`), and neither
changes the card's schedule: an item due while suspended is simply due when it
comes back, as in Anki.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sysdrill.study.clock import day_start, require_utc, utc_day

__all__ = ["CardFlags", "bury_end", "is_held"]


@dataclass(frozen=True, slots=True)
class CardFlags:
    """Whether an item is kept out of sessions, and until when."""

    item_id: str
    suspended: bool = False
    """Kept out until the learner unsuspends it."""
    buried_until: datetime | None = None
    """Kept out before this instant (UTC; the next midnight UTC when buried); None: not buried."""

    @property
    def is_clear(self) -> bool:
        """Whether nothing keeps the item out (a store need not keep such a record)."""
        return not self.suspended and self.buried_until is None

    def to_dict(self) -> dict[str, object]:
        """The flags as JSON-ready values (the web API's shape)."""
        return {
            "item_id": self.item_id,
            "suspended": self.suspended,
            "buried_until": None if self.buried_until is None else self.buried_until.isoformat(),
        }


def bury_end(now: datetime) -> datetime:
    """The instant a bury made at ``now`` ends: the next midnight UTC.

    Raises:
        SchedulingError: If ``now`` is naive or not UTC.
    """
    return day_start(utc_day(require_utc(now)) + timedelta(days=1))


def is_held(flags: CardFlags, *, now: datetime) -> bool:
    """Whether ``flags`` keep their item out of a session started at ``now`` (UTC)."""
    if flags.suspended:
        return True
    return flags.buried_until is not None and require_utc(now) < flags.buried_until

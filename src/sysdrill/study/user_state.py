"""A learner, their sessions, and everything stored for them (as moved by export and import)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, NewType

from sysdrill.study.card_state import CardRecord
from sysdrill.study.review_log import ReviewRecord

__all__ = ["SessionId", "SessionRecord", "UserId", "UserState"]

UserId = NewType("UserId", int)
SessionId = NewType("SessionId", int)


@dataclass(frozen=True, slots=True)
class SessionRecord:
    """A practice session, quiz, gauntlet, chain walk or daily set."""

    kind: str
    started_at: datetime
    ended_at: datetime | None = None
    meta: dict[str, Any] = field(default_factory=dict)
    session_id: int | None = None


@dataclass(slots=True)
class UserState:
    """Everything stored for one user, as moved by export and import."""

    cards: list[CardRecord] = field(default_factory=list)
    reviews: list[ReviewRecord] = field(default_factory=list)
    sessions: list[SessionRecord] = field(default_factory=list)
    settings: dict[str, Any] = field(default_factory=dict)

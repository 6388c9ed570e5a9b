"""A learner, their sessions, and everything stored for them (as moved by export and import)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, NewType

from sysdrill.study.card_state import CardRecord
from sysdrill.study.review_log import ReviewRecord

__all__ = [
    "LEGACY_VAULT_ID",
    "SessionId",
    "SessionRecord",
    "StudyScope",
    "UserId",
    "UserState",
    "VaultId",
]

UserId = NewType("UserId", int)
SessionId = NewType("SessionId", int)
VaultId = NewType("VaultId", str)
"""A vault's identity: its declared ``id``, a bundled vault's name, or one derived from its path."""

LEGACY_VAULT_ID = VaultId("(legacy)")
"""The vault of state kept before state was keyed by vault (schema 0003 and older exports).

No vault can declare it (parentheses are not allowed in a vault id); the first vault
opened that holds one of its studied items adopts it (``docs/sessions.md``).
"""


@dataclass(frozen=True, slots=True)
class StudyScope:
    """One learner's study of one vault: what cards, reviews and sessions are keyed by."""

    user_id: UserId
    vault_id: VaultId


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
    """Everything stored for one user in one vault, as moved by export and import."""

    vault_id: VaultId = LEGACY_VAULT_ID
    """The vault the state was studied in (an export older than vault keys: the legacy one)."""
    cards: list[CardRecord] = field(default_factory=list)
    reviews: list[ReviewRecord] = field(default_factory=list)
    sessions: list[SessionRecord] = field(default_factory=list)
    settings: dict[str, Any] = field(default_factory=dict)

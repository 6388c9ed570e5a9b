"""A login a worker kept, confirmed by the database in the transaction that acts on it.

A multi-user server looks up the login of every request, a round trip that cost
a session move about a fifth of its server time. A move in a session instead
trusts the login its worker kept from an earlier lookup and proves it in the
move's own transaction: the session's save matches only while the login still
stands as it was kept (same token, not expired, account enabled, same settings
and personal-deck versions). A move that ends without that save confirms the
login with one query before it commits. Either way a login ended, expired or
disabled on any worker writes nothing and raises :class:`LoginChanged`, and so
does a kept login whose learner changed settings or decks meanwhile (the caller
looks it up afresh and tries again).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy import Connection

from sysdrill.errors import LoginChanged
from sysdrill.storage import schema as t
from sysdrill.storage.sql_rows import SAVE_MOVES

__all__ = ["LOGIN_STANDS", "SAVE_GUARDED_SESSION", "LoginGuard", "confirm_login"]

_DECKS = t.personal_deck_versions

LOGIN_STANDS = (
    sa.select(sa.literal_column("1"))
    .select_from(
        t.login_sessions.join(t.accounts, t.accounts.c.user_id == t.login_sessions.c.user_id)
        .join(t.users, t.users.c.id == t.login_sessions.c.user_id)
        .outerjoin(_DECKS, _DECKS.c.user_id == t.login_sessions.c.user_id)
    )
    .where(
        t.login_sessions.c.token_sha256 == sa.bindparam("g_token"),
        t.login_sessions.c.user_id == sa.bindparam("g_user_id"),
        t.login_sessions.c.expires_at > sa.bindparam("g_now", type_=t.UtcDateTime),
        t.accounts.c.disabled.is_(False),
        t.users.c.settings_version == sa.bindparam("g_settings_version"),
        sa.func.coalesce(_DECKS.c.version, sa.literal_column("0"))
        == sa.bindparam("g_deck_version"),
    )
    .exists()
)
"""True while the guard's login stands (bound as ``g_`` + the guard's field names)."""
_CONFIRM_LOGIN = sa.select(LOGIN_STANDS)
SAVE_GUARDED_SESSION = SAVE_MOVES.where(LOGIN_STANDS)
"""The save of a move that also matches only while its guard's login stands."""


@dataclass(slots=True)
class LoginGuard:
    """The login a request trusted from memory, as it was when kept."""

    token_sha256: str
    user_id: int
    settings_version: int
    deck_version: int
    now: datetime
    """The request's time (UTC): the login must not have expired by then."""
    confirmed: bool = False
    """Set once the database confirmed the login in this request's transaction."""

    def params(self) -> dict[str, Any]:
        """The bound values of the guard's conditions."""
        return {
            "g_token": self.token_sha256,
            "g_user_id": self.user_id,
            "g_now": self.now,
            "g_settings_version": self.settings_version,
            "g_deck_version": self.deck_version,
        }


def confirm_login(conn: Connection, guard: LoginGuard) -> None:
    """Ask the database whether ``guard``'s login stands (one query on ``conn``).

    Raises:
        LoginChanged: If it does not; the caller's transaction must not commit.
    """
    if not conn.execute(_CONFIRM_LOGIN, guard.params()).scalar():
        raise LoginChanged(
            "Your login ended or changed since this server last saw it; log in again "
            "(POST /api/login or open /login)."
        )
    guard.confirmed = True

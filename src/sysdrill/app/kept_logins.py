"""Logins a worker keeps between requests, for the moves of sessions to trust.

Looking up a request's login is a query of its own, which cost a session move
about a fifth of its server time. A worker keeps each login it looked up (by the
token's SHA-256, per database) with the versions read along with it. A move in a
session may then start from the kept login, and the move's own transaction
proves it (:mod:`sysdrill.storage.login_guard`): nothing is written or shown for
a login that was ended, expired or disabled through any worker meanwhile. Other
requests look their login up as before, and every lookup refreshes what is kept.
Safe under threads; bounded (least recently used goes first).
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from sysdrill.app.accounts import Account, token_digest
from sysdrill.app.kept_lru import KeptLru
from sysdrill.study.clock import require_utc

if TYPE_CHECKING:
    from sysdrill.storage.login_guard import LoginGuard

__all__ = ["KEPT_LOGINS", "forget_login", "keep_login", "kept_login"]

KEPT_LOGINS = 4096
"""Logins a process keeps at most (a few hundred bytes each)."""

_kept: KeptLru[tuple[str, str], Account] = KeptLru(KEPT_LOGINS)


def keep_login(db_url: str, token: str, account: Account) -> None:
    """Keep ``account``, just looked up by ``token`` in ``db_url``'s database."""
    if account.settings_version is not None:
        _kept.put((db_url, token_digest(token)), account)


def forget_login(db_url: str, token: str) -> None:
    """Drop the login of ``token`` (logged out, or found changed)."""
    _kept.pop((db_url, token_digest(token)))


def kept_login(db_url: str, token: str, *, now: datetime) -> tuple[Account, LoginGuard] | None:
    """The account kept for ``token`` and the guard its use must pass, else None.

    Args:
        db_url: The study database's URL.
        token: The login token of the request's cookie.
        now: The request's time (UTC): the login must not have expired by then.
    """
    from sysdrill.storage.login_guard import LoginGuard

    digest = token_digest(token)
    account = _kept.get((db_url, digest))
    if account is None or account.settings_version is None:
        return None
    guard = LoginGuard(
        token_sha256=digest,
        user_id=account.user_id,
        settings_version=account.settings_version,
        deck_version=account.deck_version,
        now=require_utc(now),
    )
    return account, guard

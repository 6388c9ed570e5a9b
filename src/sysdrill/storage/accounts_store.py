"""Accounts, login sessions, throttle events and site settings in the study database.

The multi-user web app keeps everything about logins in the database (nothing in a
process's memory), so any worker serves any request and a restarted worker forgets
no one. This module stores rows; the rules (hashing, sign-up policy) live in
:mod:`sysdrill.app.accounts`, and the slowing down of failed logins and sign-ups in
:mod:`sysdrill.app.login_throttle`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import sqlalchemy as sa

from sysdrill.errors import AccountExists, StorageConflict
from sysdrill.storage import schema as t
from sysdrill.storage.engine_store import EngineStore

__all__ = ["AccountRow", "AccountStore", "EventCounts"]


@dataclass(frozen=True, slots=True)
class AccountRow:
    """One stored account, as the database holds it."""

    user_id: int
    name: str
    password_hash: str
    role: str
    disabled: bool
    created_at: datetime
    """When the account was created (UTC)."""
    deck_version: int = 0
    """The learner's personal deck version (0: none), read with the login."""
    settings_version: int | None = None
    """The learner's settings version, read with the login (None: not read)."""


@dataclass(frozen=True, slots=True)
class EventCounts:
    """Throttle events of one kind since a time, for one account name and one address."""

    pair: int
    """Events of this name from this address."""
    pair_latest: datetime | None
    """When the latest of them happened (UTC), or None."""
    account: int
    """Events of this name from any address."""
    address: int
    """Events from this address, whatever the name."""
    address_latest: datetime | None
    """When the latest of them happened (UTC), or None."""


_ACCOUNT_QUERY = sa.select(
    t.accounts.c.user_id,
    t.users.c.name,
    t.accounts.c.password_hash,
    t.accounts.c.role,
    t.accounts.c.disabled,
    t.accounts.c.created_at,
).join_from(t.accounts, t.users, t.accounts.c.user_id == t.users.c.id)
# Asked on every request of a logged-in learner: built once. It brings the
# learner's personal deck and settings versions along, which such requests need next.
_ACCOUNT_FOR_SESSION = (
    _ACCOUNT_QUERY.add_columns(
        sa.func.coalesce(t.personal_deck_versions.c.version, 0).label("deck_version"),
        t.users.c.settings_version,
    )
    .join(t.login_sessions, t.login_sessions.c.user_id == t.accounts.c.user_id)
    .outerjoin(
        t.personal_deck_versions,
        t.personal_deck_versions.c.user_id == t.accounts.c.user_id,
    )
    .where(t.login_sessions.c.token_sha256 == sa.bindparam("b_token"))
    .where(t.login_sessions.c.expires_at > sa.bindparam("b_now", type_=t.UtcDateTime))
    .where(t.accounts.c.disabled.is_(False))
)


def _row(row: Any) -> AccountRow:
    return AccountRow(
        user_id=int(row.user_id),
        name=str(row.name),
        password_hash=str(row.password_hash),
        role=str(row.role),
        disabled=bool(row.disabled),
        created_at=row.created_at,
        deck_version=int(getattr(row, "deck_version", 0) or 0),
        settings_version=getattr(row, "settings_version", None),
    )


class AccountStore(EngineStore):
    """Account rows over the process's engine for one database URL."""

    # -- accounts --------------------------------------------------------------

    def add_account(self, name: str, *, password_hash: str, role: str, now: datetime) -> AccountRow:
        """Create the account ``name``, reusing its user row if the user already studied.

        Raises:
            AccountExists: If ``name`` already has an account.
        """
        try:
            with self._write(f"creating the account {name!r}") as conn:
                user_id = conn.execute(
                    sa.select(t.users.c.id).where(t.users.c.name == name)
                ).scalar()
                if user_id is None:
                    result = conn.execute(t.users.insert().values(name=name, created_at=now))
                    assert result.inserted_primary_key is not None
                    user_id = result.inserted_primary_key[0]
                elif conn.execute(
                    sa.select(t.accounts.c.user_id).where(t.accounts.c.user_id == user_id)
                ).first():
                    raise AccountExists(f"The user name {name!r} is taken; choose another.")
                conn.execute(
                    t.accounts.insert().values(
                        user_id=user_id,
                        password_hash=password_hash,
                        role=role,
                        disabled=False,
                        created_at=now,
                    )
                )
        except StorageConflict as exc:
            # Two sign-ups of one name at once: the database's unique keys decide.
            raise AccountExists(f"The user name {name!r} is taken; choose another.") from exc
        found = self.get_account(name)
        assert found is not None
        return found

    def get_account(self, name: str) -> AccountRow | None:
        """The account called ``name``, or None."""
        with self._read(f"reading the account {name!r}") as conn:
            row = conn.execute(_ACCOUNT_QUERY.where(t.users.c.name == name)).first()
        return None if row is None else _row(row)

    def list_accounts(self) -> list[AccountRow]:
        """Every account, by name."""
        with self._read("listing accounts") as conn:
            rows = conn.execute(_ACCOUNT_QUERY.order_by(t.users.c.name)).all()
        return [_row(row) for row in rows]

    def count_admins(self) -> int:
        """How many enabled accounts have the admin role."""
        query = (
            sa.select(sa.func.count())
            .select_from(t.accounts)
            .where(t.accounts.c.role == "admin", t.accounts.c.disabled.is_(False))
        )
        with self._read("counting admins") as conn:
            return int(conn.execute(query).scalar() or 0)

    def update_account(self, user_id: int, **values: Any) -> None:
        """Change columns of one account (``password_hash``, ``role``, ``disabled``)."""
        with self._write("changing an account") as conn:
            conn.execute(t.accounts.update().where(t.accounts.c.user_id == user_id).values(values))

    # -- login sessions --------------------------------------------------------

    def add_login_session(
        self, token_sha256: str, *, user_id: int, now: datetime, expires_at: datetime
    ) -> None:
        """Store a new login session (expired ones are dropped on the way)."""
        with self._write("starting a login session") as conn:
            conn.execute(t.login_sessions.delete().where(t.login_sessions.c.expires_at <= now))
            conn.execute(
                t.login_sessions.insert().values(
                    token_sha256=token_sha256,
                    user_id=user_id,
                    created_at=now,
                    expires_at=expires_at,
                )
            )

    def account_for_session(self, token_sha256: str, *, now: datetime) -> AccountRow | None:
        """The enabled account logged in with this token, if the session has not expired."""
        params = {"b_token": token_sha256, "b_now": now}
        with self._read("reading a login session") as conn:
            row = conn.execute(_ACCOUNT_FOR_SESSION, params).first()
        return None if row is None else _row(row)

    def delete_login_session(self, token_sha256: str) -> None:
        """Forget one login session (log out)."""
        with self._write("ending a login session") as conn:
            conn.execute(
                t.login_sessions.delete().where(t.login_sessions.c.token_sha256 == token_sha256)
            )

    def delete_login_sessions(self, user_id: int, *, keep: str | None = None) -> None:
        """Forget every login session of a user, except the one hashed as ``keep``."""
        query = t.login_sessions.delete().where(t.login_sessions.c.user_id == user_id)
        if keep is not None:
            query = query.where(t.login_sessions.c.token_sha256 != keep)
        with self._write("ending login sessions") as conn:
            conn.execute(query)

    # -- throttle events (failed logins, sign-ups) --------------------------------

    def record_event(
        self,
        kind: str,
        *,
        account_name: str,
        address: str,
        now: datetime,
        forget_before: datetime,
    ) -> None:
        """Record one event, and delete everyone's events at or before ``forget_before``."""
        e = t.throttle_events
        with self._write("recording a login attempt") as conn:
            conn.execute(e.delete().where(e.c.occurred_at <= forget_before))
            conn.execute(
                e.insert().values(
                    kind=kind, account_name=account_name, address=address, occurred_at=now
                )
            )

    def event_counts(
        self, kind: str, *, account_name: str, address: str, since: datetime
    ) -> EventCounts:
        """The events of ``kind`` after ``since``: of the pair, of the name, of the address."""
        e = t.throttle_events.c
        recent = sa.select(sa.func.count(), sa.func.max(e.occurred_at)).where(
            e.kind == kind, e.occurred_at > since
        )
        with self._read("reading login attempts") as conn:
            pair = conn.execute(
                recent.where(e.account_name == account_name, e.address == address)
            ).one()
            account = conn.execute(recent.where(e.account_name == account_name)).one()
            by_address = conn.execute(recent.where(e.address == address)).one()
        return EventCounts(
            pair=int(pair[0]),
            pair_latest=pair[1],
            account=int(account[0]),
            address=int(by_address[0]),
            address_latest=by_address[1],
        )

    def forget_events(self, kind: str, *, account_name: str, address: str) -> None:
        """Delete the events of ``kind`` of this name from this address (a success)."""
        e = t.throttle_events
        with self._write("clearing login attempts") as conn:
            conn.execute(
                e.delete().where(
                    e.c.kind == kind, e.c.account_name == account_name, e.c.address == address
                )
            )

    # -- site settings ---------------------------------------------------------

    def get_site_setting(self, key: str) -> Any:
        """The stored value of a server-wide setting, or None."""
        with self._read("reading site settings") as conn:
            text = conn.execute(
                sa.select(t.site_settings.c.value_json).where(t.site_settings.c.key == key)
            ).scalar()
        return None if text is None else json.loads(text)

    def put_site_setting(self, key: str, value: Any) -> None:
        """Store a server-wide setting."""
        with self._write("changing site settings") as conn:
            conn.execute(t.site_settings.delete().where(t.site_settings.c.key == key))
            conn.execute(t.site_settings.insert().values(key=key, value_json=json.dumps(value)))

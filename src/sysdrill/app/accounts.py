"""Accounts of the multi-user web app: sign-up, login, passwords, roles.

Passwords are stored as argon2id hashes (argon2-cffi) with the parameters in
:data:`HASH_PARAMETERS`. A login is refused with one answer whether the user is
unknown, disabled or the password wrong, and an unknown user costs the same hash
as a known one (a fixed dummy hash is verified), so neither the message nor the
time tells which names exist.

Failed logins (and wrong current passwords at a password change) and sign-ups are
recorded in the database, so every worker sees them, and slow down the next attempt
of their address and account with backoff (:mod:`sysdrill.app.login_throttle`);
nothing locks an account. New passwords go through
:mod:`sysdrill.app.password_policy`.

A login session is a random token in the browser's cookie; the database keeps
only its SHA-256, so a copy of the database logs no one in.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import re
import secrets
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any

from sysdrill.app.login_throttle import (
    THROTTLE_WINDOW,
    ThrottledEvent,
    login_wait_s,
    signup_wait_s,
    wait_phrase,
)
from sysdrill.app.password_policy import MAX_PASSWORD_CHARS, MIN_PASSWORD_CHARS, check_password
from sysdrill.errors import (
    AccountExists,
    AccountNotFound,
    LoginFailed,
    LoginThrottled,
    SignupRefused,
    SignupThrottled,
    UsageError,
)
from sysdrill.storage.accounts_store import AccountRow, AccountStore, EventCounts
from sysdrill.storage.location import study_database_url

__all__ = [
    "HASH_PARAMETERS",
    "LOGIN_FAILED_MESSAGE",
    "LOGIN_SESSION_LIFETIME",
    "MAX_PASSWORD_CHARS",
    "MIN_PASSWORD_CHARS",
    "RESERVED_NAMES",
    "Account",
    "AccountService",
    "HashParameters",
    "LoginSession",
    "Role",
    "SignupPolicy",
    "SignupSettings",
    "open_accounts",
    "open_cli_accounts",
    "normalise_name",
    "token_digest",
]


class Role(StrEnum):
    """What an account may do."""

    LEARNER = "learner"
    ADMIN = "admin"


class SignupPolicy(StrEnum):
    """Who may create an account from the sign-up page."""

    OPEN = "open"
    INVITE = "invite"
    CLOSED = "closed"


@dataclass(frozen=True, slots=True)
class HashParameters:
    """Argon2id cost parameters."""

    time_cost: int
    """Passes over memory."""
    memory_kib: int
    """Memory per hash, in KiB."""
    parallelism: int
    """Lanes (threads) per hash."""
    hash_bytes: int
    """Length of the derived hash, in bytes."""
    salt_bytes: int
    """Length of the random salt, in bytes."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready mapping."""
        return {
            "algorithm": "argon2id",
            "time_cost": self.time_cost,
            "memory_kib": self.memory_kib,
            "parallelism": self.parallelism,
            "hash_bytes": self.hash_bytes,
            "salt_bytes": self.salt_bytes,
        }


HASH_PARAMETERS = HashParameters(
    time_cost=2, memory_kib=19456, parallelism=1, hash_bytes=32, salt_bytes=16
)
"""OWASP's argon2id setting (19 MiB, 2 passes, 1 lane): cheap enough for a 2-core
server logging in a class at once, and the memory cost is what slows an attacker's GPU."""

# A hash of a random password nobody knows, with HASH_PARAMETERS (a test checks
# they match): verified for unknown users so their login costs what a real one does.
_DUMMY_HASH = (
    "$argon2id$v=19$m=19456,t=2,p=1$AW5l+a9BU38GTXNrB8TAaQ$"
    "RIBYHwYM03ewcYYqQgxmttx6lLPtE9s7cBSK2wx5rUU"
)

_NAME = re.compile(r"^[a-z0-9][a-z0-9_.-]{1,39}$")
RESERVED_NAMES = frozenset({"local", "admin", "root", "system"})
"""Names the sign-up page refuses (``local`` holds the single-user mode's history;
the operator may still create these with ``sysdrill users add``)."""

LOGIN_SESSION_LIFETIME = timedelta(days=14)
"""How long a login lasts before the user logs in again."""
LOGIN_FAILED_MESSAGE = "Wrong user name or password."
"""The one answer to an unknown user, a disabled account and a wrong password."""

_POLICY_KEY = "signup_policy"
_INVITE_KEY = "signup_invite_sha256"


def token_digest(token: str) -> str:
    """The SHA-256 (hex) under which a session token or invite code is stored."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def _hasher() -> Any:
    # argon2 loads only when an account is used (``sysdrill --help`` stays fast).
    from argon2 import PasswordHasher, Type

    p = HASH_PARAMETERS
    return PasswordHasher(
        time_cost=p.time_cost,
        memory_cost=p.memory_kib,
        parallelism=p.parallelism,
        hash_len=p.hash_bytes,
        salt_len=p.salt_bytes,
        type=Type.ID,
    )


def _verify(stored_hash: str, password: str) -> bool:
    from argon2.exceptions import InvalidHashError, VerificationError

    try:
        return bool(_hasher().verify(stored_hash, password))
    except (VerificationError, InvalidHashError):
        return False


def normalise_name(name: str) -> str:
    """A user name as stored: trimmed and lower-cased."""
    return name.strip().lower()


def _check_name(name: str) -> str:
    found = normalise_name(name)
    if not _NAME.fullmatch(found):
        raise UsageError(
            f"The user name {name!r} is not allowed; use 2 to 40 letters, digits, '.', '_' "
            "or '-', starting with a letter or digit."
        )
    return found


@dataclass(frozen=True, slots=True)
class Account:
    """An account, without its password hash."""

    user_id: int
    name: str
    role: Role
    disabled: bool
    created_at: datetime
    """When the account was created (UTC)."""
    deck_version: int = 0
    """The personal deck version read with the login (0: no personal decks); only
    lookups by login token fill it in."""
    settings_version: int | None = field(default=None, compare=False)
    """The settings version read with the login; only lookups by login token fill it in
    (a fact about the moment of the lookup, not the account: left out of comparisons)."""

    @property
    def is_admin(self) -> bool:
        """Whether the account has the admin role."""
        return self.role is Role.ADMIN

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready mapping (time as ISO 8601)."""
        return {
            "name": self.name,
            "role": self.role.value,
            "disabled": self.disabled,
            "created_at": self.created_at.isoformat(),
        }

    @classmethod
    def from_row(cls, row: AccountRow) -> Account:
        """The account of a stored row."""
        return cls(
            user_id=row.user_id,
            name=row.name,
            role=Role(row.role),
            disabled=row.disabled,
            created_at=row.created_at,
            deck_version=row.deck_version,
            settings_version=row.settings_version,
        )


@dataclass(frozen=True, slots=True)
class LoginSession:
    """A new login: the token for the browser's cookie, and when it expires."""

    account: Account
    token: str
    """The secret the cookie carries (the database keeps only its SHA-256)."""
    expires_at: datetime
    """When the login ends (UTC)."""

    @property
    def max_age_s(self) -> int:
        """The cookie's lifetime, in seconds."""
        return int(LOGIN_SESSION_LIFETIME.total_seconds())


@dataclass(frozen=True, slots=True)
class SignupSettings:
    """The server's sign-up policy."""

    policy: SignupPolicy
    has_invite_code: bool

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready mapping (never the invite code itself)."""
        return {"policy": self.policy.value, "has_invite_code": self.has_invite_code}


def _utc(now: datetime) -> datetime:
    if now.tzinfo is None or now.utcoffset() != timedelta(0):
        raise ValueError(f"now must be timezone-aware UTC, got {now!r}")
    return now


class AccountService:
    """Account use cases over one :class:`AccountStore`."""

    def __init__(self, store: AccountStore) -> None:
        """Use ``store`` (closed with this service)."""
        self._store = store

    def close(self) -> None:
        """Close the store."""
        self._store.close()

    def __enter__(self) -> AccountService:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- accounts --------------------------------------------------------------

    def add(self, name: str, password: str, *, role: Role = Role.LEARNER, now: datetime) -> Account:
        """Create an account (the operator's way: any policy, reserved names allowed).

        Raises:
            UsageError: If the name or password is not allowed.
            AccountExists: If the name is taken.
        """
        checked = _check_name(name)
        hashed = _hasher().hash(check_password(password, user_name=checked))
        row = self._store.add_account(checked, password_hash=hashed, role=role.value, now=_utc(now))
        return Account.from_row(row)

    def signup(
        self, name: str, password: str, *, invite_code: str = "", address: str, now: datetime
    ) -> Account:
        """Create a learner account from the sign-up page, under the server's policy.

        A sign-up that passes the form's checks counts against its address, whatever
        its outcome (:data:`sysdrill.app.login_throttle.SIGNUP_BACKOFF`).

        Args:
            name: The user name as typed.
            password: The new password.
            invite_code: The invite code, when sign-up is invite-only.
            address: The client's address (an IP), for the per-address limit.
            now: The current time (UTC).

        Raises:
            SignupRefused: If sign-up is closed or the invite code is wrong.
            SignupThrottled: If this address signed up too often lately.
            UsageError: If the name is reserved or not allowed, or the password refused.
            AccountExists: If the name is taken.
        """
        settings = self.signup_settings()
        if settings.policy is SignupPolicy.CLOSED:
            raise SignupRefused("Sign-up is closed on this server; ask its admin for an account.")
        subject = {"account_name": normalise_name(name)[:300], "address": address[:300]}
        counts = self._store.event_counts(
            ThrottledEvent.SIGNUP, **subject, since=_utc(now) - THROTTLE_WINDOW
        )
        wait_s = signup_wait_s(counts, now=now)
        if wait_s:
            raise SignupThrottled(
                f"Too many sign-ups from this address; try again in {wait_phrase(wait_s)}.",
                retry_after_s=wait_s,
            )
        checked = _check_name(name)
        if checked in RESERVED_NAMES:
            raise UsageError(f"The user name {name!r} is reserved; choose another.")
        check_password(password, user_name=checked)
        self._store.record_event(
            ThrottledEvent.SIGNUP, **subject, now=now, forget_before=now - THROTTLE_WINDOW
        )
        if settings.policy is SignupPolicy.INVITE:
            stored = self._store.get_site_setting(_INVITE_KEY)
            given = token_digest(invite_code.strip())
            if not isinstance(stored, str) or not hmac.compare_digest(stored, given):
                raise SignupRefused("The invite code is wrong; ask the server's admin for it.")
        # A taken name is refused before the password costs a hash.
        self.check_name_available(checked)
        return self.add(checked, password, role=Role.LEARNER, now=now)

    def check_name_available(self, name: str) -> None:
        """Refuse a name that is not allowed or already has an account.

        Raises:
            UsageError: If the name is not allowed.
            AccountExists: If the name is taken.
        """
        checked = _check_name(name)
        if self._store.get_account(checked) is not None:
            raise AccountExists(f"The user name {checked!r} is taken; choose another.")

    def get(self, name: str) -> Account:
        """The account called ``name``.

        Raises:
            AccountNotFound: If there is none.
        """
        row = self._store.get_account(normalise_name(name))
        if row is None:
            raise AccountNotFound(
                f"No account named {name!r}; `sysdrill users list` shows the accounts."
            )
        return Account.from_row(row)

    def list_accounts(self) -> list[Account]:
        """Every account, by name."""
        return [Account.from_row(row) for row in self._store.list_accounts()]

    def set_password(self, name: str, password: str) -> Account:
        """Give an account a new password and log it out everywhere (operator, admin).

        Raises:
            AccountNotFound: If there is no such account.
            UsageError: If the password policy refuses the password.
        """
        account = self.get(name)
        hashed = _hasher().hash(check_password(password, user_name=account.name))
        self._store.update_account(account.user_id, password_hash=hashed)
        self._store.delete_login_sessions(account.user_id)
        return account

    def change_password(
        self,
        account: Account,
        *,
        current: str,
        new: str,
        keep_token: str | None = None,
        address: str,
        now: datetime,
    ) -> None:
        """Change one's own password, proving the current one; other logins end.

        Checking ``current`` is a password check like a login: a wrong one counts as
        a failed login of the account from ``address``, and it is slowed down alike.

        Raises:
            LoginThrottled: If this account or address failed too often lately.
            LoginFailed: If ``current`` is wrong.
            UsageError: If the password policy refuses the new password.
        """
        subject, counts = self._check_throttle(account.name, address, _utc(now))
        check_password(new, user_name=account.name)
        row = self._store.get_account(account.name)
        if row is None or not _verify(row.password_hash, current[:MAX_PASSWORD_CHARS]):
            self._record_failure(subject, now)
            raise LoginFailed("The current password is wrong.")
        self._forget_failures(subject, counts)
        hashed = _hasher().hash(new)
        self._store.update_account(account.user_id, password_hash=hashed)
        keep = None if keep_token is None else token_digest(keep_token)
        self._store.delete_login_sessions(account.user_id, keep=keep)

    def set_disabled(self, name: str, disabled: bool = True) -> Account:
        """Disable (or enable again) an account; a disabled account is logged out.

        Raises:
            AccountNotFound: If there is no such account.
        """
        account = self.get(name)
        self._store.update_account(account.user_id, disabled=disabled)
        if disabled:
            self._store.delete_login_sessions(account.user_id)
        return self.get(name)

    def set_role(self, name: str, role: Role) -> Account:
        """Give an account a role (``make-admin``).

        Raises:
            AccountNotFound: If there is no such account.
        """
        account = self.get(name)
        self._store.update_account(account.user_id, role=role.value)
        return self.get(name)

    # -- sign-up policy --------------------------------------------------------

    def signup_settings(self) -> SignupSettings:
        """The sign-up policy (open until an admin changes it)."""
        stored = self._store.get_site_setting(_POLICY_KEY)
        try:
            policy = SignupPolicy(stored) if stored is not None else SignupPolicy.OPEN
        except ValueError:
            policy = SignupPolicy.CLOSED
        has_code = isinstance(self._store.get_site_setting(_INVITE_KEY), str)
        return SignupSettings(policy=policy, has_invite_code=has_code)

    def set_signup_policy(self, policy: SignupPolicy, *, invite_code: str = "") -> SignupSettings:
        """Open, close or invite-only sign-up; ``invite`` needs a code (its hash is kept).

        Raises:
            UsageError: If ``invite`` is chosen without a code of 8 or more characters.
        """
        if policy is SignupPolicy.INVITE:
            code = invite_code.strip()
            if len(code) < 8:
                raise UsageError("An invite code needs at least 8 characters; give a longer one.")
            self._store.put_site_setting(_INVITE_KEY, token_digest(code))
        self._store.put_site_setting(_POLICY_KEY, policy.value)
        return self.signup_settings()

    # -- login -----------------------------------------------------------------

    def _check_throttle(
        self, name: str, address: str, now: datetime
    ) -> tuple[dict[str, str], EventCounts]:
        """Refuse a password check that must wait; the (name, address) it counts under."""
        subject = {"account_name": name[:300], "address": address[:300]}
        counts = self._store.event_counts(
            ThrottledEvent.FAILED_LOGIN, **subject, since=now - THROTTLE_WINDOW
        )
        wait_s = login_wait_s(counts, now=now)
        if wait_s:
            raise LoginThrottled(
                f"Too many failed logins; try again in {wait_phrase(wait_s)}.",
                retry_after_s=wait_s,
            )
        return subject, counts

    def _forget_failures(self, subject: dict[str, str], counts: EventCounts) -> None:
        if counts.pair:  # most logins have nothing to forget: no write for them
            self._store.forget_events(ThrottledEvent.FAILED_LOGIN, **subject)

    def _record_failure(self, subject: dict[str, str], now: datetime) -> None:
        self._store.record_event(
            ThrottledEvent.FAILED_LOGIN, **subject, now=now, forget_before=now - THROTTLE_WINDOW
        )

    def authenticate(self, name: str, password: str, *, address: str, now: datetime) -> Account:
        """Check a user name and password, counting failures per name and address.

        Args:
            name: The user name as typed.
            password: The password as typed.
            address: The client's address (an IP), for the per-address limit.
            now: The current time (UTC).

        Raises:
            LoginThrottled: If this name or address failed too often lately (the
                login must wait; see :mod:`sysdrill.app.login_throttle`).
            LoginFailed: If the name is unknown, the account disabled or the password
                wrong (one message for all three).
        """
        key = normalise_name(name)[:300]
        subject, counts = self._check_throttle(key, address, _utc(now))
        row = self._store.get_account(key) if len(password) <= MAX_PASSWORD_CHARS else None
        if row is None or row.disabled:
            _verify(_DUMMY_HASH, password[:MAX_PASSWORD_CHARS])
            self._record_failure(subject, now)
            raise LoginFailed(LOGIN_FAILED_MESSAGE)
        if not _verify(row.password_hash, password):
            self._record_failure(subject, now)
            raise LoginFailed(LOGIN_FAILED_MESSAGE)
        self._forget_failures(subject, counts)
        hasher = _hasher()
        if hasher.check_needs_rehash(row.password_hash):
            self._store.update_account(row.user_id, password_hash=hasher.hash(password))
        return Account.from_row(row)

    def login(self, name: str, password: str, *, address: str, now: datetime) -> LoginSession:
        """Authenticate and start a login session.

        Raises:
            LoginThrottled: If the name or the address failed too often lately.
            LoginFailed: If the name or password is wrong.
        """
        account = self.authenticate(name, password, address=address, now=now)
        return self.start_session(account, now=now)

    def start_session(self, account: Account, *, now: datetime) -> LoginSession:
        """Start a login session for an account already authenticated (e.g. just signed up)."""
        token = secrets.token_urlsafe(32)
        expires_at = _utc(now) + LOGIN_SESSION_LIFETIME
        self._store.add_login_session(
            token_digest(token), user_id=account.user_id, now=now, expires_at=expires_at
        )
        return LoginSession(account=account, token=token, expires_at=expires_at)

    def account_for_token(self, token: str, *, now: datetime) -> Account | None:
        """The account logged in with ``token``; None if unknown, expired or disabled."""
        if not token or len(token) > 200:
            return None
        row = self._store.account_for_session(token_digest(token), now=_utc(now))
        return None if row is None else Account.from_row(row)

    def logout(self, token: str) -> None:
        """End the login session of ``token`` (nothing happens for an unknown token)."""
        self._store.delete_login_session(token_digest(token))


@contextlib.contextmanager
def open_accounts(db_url: str | None = None) -> Iterator[AccountService]:
    """The account service over the study database.

    Args:
        db_url: SQLAlchemy URL; None for the default study database.

    Raises:
        MigrationError: If the schema is behind (run ``sysdrill db upgrade``).
        StorageError: If the database cannot be opened.
    """
    service = AccountService(AccountStore(study_database_url(db_url)))
    try:
        yield service
    finally:
        service.close()


def open_cli_accounts(
    db_url: str | None = None,
) -> contextlib.AbstractContextManager[AccountService]:
    """The account service for a ``sysdrill users`` command.

    Like every CLI command, an SQLite study database (the default file, ``--db`` or
    ``$SYSDRILL_DATABASE_URL``) is created or migrated first
    (:func:`sysdrill.app.study.ready_cli_database`); PostgreSQL must be upgraded
    with ``sysdrill db upgrade``.
    """
    from sysdrill.app.study import ready_cli_database

    return open_accounts(ready_cli_database(db_url))

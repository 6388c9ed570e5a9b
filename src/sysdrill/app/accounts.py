"""Accounts of the multi-user web app: sign-up, login, passwords, roles, rate limits.

Passwords are stored as argon2id hashes (argon2-cffi) with the parameters in
:data:`HASH_PARAMETERS`. A login is refused with one answer whether the user is
unknown, disabled or the password wrong, and an unknown user costs the same hash
as a known one (a fixed dummy hash is verified), so neither the message nor the
time tells which names exist.

Failed logins are counted per account name and per client address in the
database (so every worker sees them): :data:`ACCOUNT_FAILURE_LIMIT` failures of
one name, or :data:`ADDRESS_FAILURE_LIMIT` from one address, within
:data:`FAILURE_WINDOW` lock further attempts until the oldest of them is that old.

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

from sysdrill.errors import (
    AccountExists,
    AccountNotFound,
    LoginFailed,
    LoginThrottled,
    SignupRefused,
    UsageError,
)
from sysdrill.storage.accounts_store import AccountRow, AccountStore
from sysdrill.storage.location import study_database_url

__all__ = [
    "ACCOUNT_FAILURE_LIMIT",
    "ADDRESS_FAILURE_LIMIT",
    "FAILURE_WINDOW",
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

MIN_PASSWORD_CHARS = 10
"""Shortest password accepted."""
MAX_PASSWORD_CHARS = 1024
"""Longest password accepted (a longer one only costs the server hashing time)."""
_NAME = re.compile(r"^[a-z0-9][a-z0-9_.-]{1,39}$")
RESERVED_NAMES = frozenset({"local", "admin", "root", "system"})
"""Names the sign-up page refuses (``local`` holds the single-user mode's history;
the operator may still create these with ``sysdrill users add``)."""

ACCOUNT_FAILURE_LIMIT = 5
"""Failed logins of one account name within :data:`FAILURE_WINDOW` that lock it."""
ADDRESS_FAILURE_LIMIT = 20
"""Failed logins from one client address within :data:`FAILURE_WINDOW` that lock it
(higher than per account: a class behind one NAT address shares it)."""
FAILURE_WINDOW = timedelta(minutes=15)
"""How long a failed login counts."""
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


def _check_password(password: str) -> str:
    if len(password) < MIN_PASSWORD_CHARS:
        raise UsageError(
            f"The password is too short; use at least {MIN_PASSWORD_CHARS} characters."
        )
    if len(password) > MAX_PASSWORD_CHARS:
        raise UsageError(f"The password is too long; use at most {MAX_PASSWORD_CHARS} characters.")
    return password


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
        hashed = _hasher().hash(_check_password(password))
        row = self._store.add_account(checked, password_hash=hashed, role=role.value, now=_utc(now))
        return Account.from_row(row)

    def signup(self, name: str, password: str, *, invite_code: str = "", now: datetime) -> Account:
        """Create a learner account from the sign-up page, under the server's policy.

        Raises:
            SignupRefused: If sign-up is closed or the invite code is wrong.
            UsageError: If the name is reserved or not allowed, or the password too short.
            AccountExists: If the name is taken.
        """
        settings = self.signup_settings()
        if settings.policy is SignupPolicy.CLOSED:
            raise SignupRefused("Sign-up is closed on this server; ask its admin for an account.")
        if settings.policy is SignupPolicy.INVITE:
            stored = self._store.get_site_setting(_INVITE_KEY)
            given = token_digest(invite_code.strip())
            if not isinstance(stored, str) or not hmac.compare_digest(stored, given):
                raise SignupRefused("The invite code is wrong; ask the server's admin for it.")
        if normalise_name(name) in RESERVED_NAMES:
            raise UsageError(f"The user name {name!r} is reserved; choose another.")
        return self.add(name, password, role=Role.LEARNER, now=now)

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
            UsageError: If the password is too short or too long.
        """
        account = self.get(name)
        hashed = _hasher().hash(_check_password(password))
        self._store.update_account(account.user_id, password_hash=hashed)
        self._store.delete_login_sessions(account.user_id)
        return account

    def change_password(
        self, account: Account, *, current: str, new: str, keep_token: str | None = None
    ) -> None:
        """Change one's own password, proving the current one; other logins end.

        Raises:
            LoginFailed: If ``current`` is wrong.
            UsageError: If the new password is too short or too long.
        """
        row = self._store.get_account(account.name)
        if row is None or not _verify(row.password_hash, current):
            raise LoginFailed("The current password is wrong.")
        hashed = _hasher().hash(_check_password(new))
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

    def _throttle(self, subjects: dict[str, str], now: datetime) -> None:
        limits = {"account": ACCOUNT_FAILURE_LIMIT, "address": ADDRESS_FAILURE_LIMIT}
        for scope, subject in subjects.items():
            times = self._store.failures_since(scope, subject, now - FAILURE_WINDOW)
            limit = limits[scope]
            if len(times) >= limit:
                # Unlocked when enough failures age out to leave limit - 1.
                unlock = times[len(times) - limit] + FAILURE_WINDOW
                wait_s = max(1, int((unlock - now).total_seconds()))
                minutes = -(-wait_s // 60)
                raise LoginThrottled(
                    f"Too many failed logins; try again in {minutes} minute"
                    f"{'s' if minutes != 1 else ''}.",
                    retry_after_s=wait_s,
                )

    def authenticate(self, name: str, password: str, *, address: str, now: datetime) -> Account:
        """Check a user name and password, counting failures per name and address.

        Args:
            name: The user name as typed.
            password: The password as typed.
            address: The client's address (an IP), for the per-address limit.
            now: The current time (UTC).

        Raises:
            LoginThrottled: If the name or the address failed too often lately.
            LoginFailed: If the name is unknown, the account disabled or the password
                wrong (one message for all three).
        """
        _utc(now)
        key = normalise_name(name)[:300]
        subjects = {"account": key, "address": address[:300]}
        self._throttle(subjects, now)
        row = self._store.get_account(key) if len(password) <= MAX_PASSWORD_CHARS else None
        if row is None or row.disabled:
            _verify(_DUMMY_HASH, password[:MAX_PASSWORD_CHARS])
            self._store.record_failure(subjects, now=now)
            raise LoginFailed(LOGIN_FAILED_MESSAGE)
        if not _verify(row.password_hash, password):
            self._store.record_failure(subjects, now=now)
            raise LoginFailed(LOGIN_FAILED_MESSAGE)
        self._store.clear_failures("account", key, before=now - FAILURE_WINDOW)
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
def open_accounts(db_url: str | None = None, *, upgrade: bool = False) -> Iterator[AccountService]:
    """The account service over the study database.

    Args:
        db_url: SQLAlchemy URL; None for the default study database.
        upgrade: Apply pending migrations first (the CLI's default SQLite file).

    Raises:
        MigrationError: If the schema is behind (run ``sysdrill db upgrade``).
        StorageError: If the database cannot be opened.
    """
    url = study_database_url(db_url)
    if upgrade:
        from sysdrill.storage.engine import upgrade_database

        upgrade_database(url)
    service = AccountService(AccountStore(url))
    try:
        yield service
    finally:
        service.close()


def open_cli_accounts(
    db_url: str | None = None,
) -> contextlib.AbstractContextManager[AccountService]:
    """The account service for a ``sysdrill users`` command.

    Like the other CLI commands, the default SQLite file is upgraded on first use;
    a database named with ``--db`` or ``$SYSDRILL_DATABASE_URL`` must be upgraded
    with ``sysdrill db upgrade``.
    """
    from sysdrill.storage.location import DATABASE_FILENAME, data_dir, default_database_url

    default_file = f"sqlite:///{data_dir() / DATABASE_FILENAME}"
    explicit = db_url is not None or default_database_url() != default_file
    return open_accounts(db_url, upgrade=not explicit)

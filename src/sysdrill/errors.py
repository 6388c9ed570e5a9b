"""The exception tree of sysdrill.

Every error the library raises on purpose derives from :class:`SysdrillError`.
The CLI turns any of them into one ``Error: <message>`` line and exit code 1;
the web app maps them to status codes in its single exception handler.
Foreign exceptions (sqlite3, psycopg, zipfile, yaml, pint) are translated at
the boundary with ``raise ... from exc``.

    SysdrillError
    ├── UsageError               bad arguments that the CLI parser could not catch
    │   └── AnswerUnreadable     an answer that is no quantity (the learner answers again)
    ├── VaultNotFound            a vault path that does not exist
    ├── ContentInvalid           content that cannot be loaded or validated
    │   └── DuplicateQuestion    two items with one id
    ├── QuestionNotFound         no item with that id
    ├── DeckNotFound             no deck with that name
    ├── ChainNotFound            no chain with that id
    ├── PlanNotFound             no study plan with that name
    ├── SessionNotFound          no study session in progress with that id
    ├── TierUnavailable          a check tier (the napkin tier) that cannot be loaded
    ├── NapkinError              napkin-math parse or evaluation failure
    │   ├── ExpressionSyntax     text that is not an expression
    │   └── UnitMismatch         quantities whose dimensions do not agree
    ├── HardwareNotFound         no catalogue entry with that name
    ├── StorageError             database failure
    │   ├── MigrationError       schema migration failure
    │   ├── StorageUnavailable   database that cannot be reached or opened
    │   └── StorageConflict      write that clashes with stored data (duplicate key)
    │       └── CardChanged      a review scheduled from a card another review changed
    ├── SchedulingError          invalid scheduler settings or state
    │   └── SettingInvalid       setting values refused, with each setting's reason
    ├── ImportFailed             a source that cannot be imported (nothing written)
    │   └── HostileInput         a source that is too big, escapes its folder, or lies
    ├── ExportFailed             an export that cannot be written (nothing written)
    │   └── NothingToExport      no item passes the export's filters
    ├── ModelUnavailable         a language-model endpoint that does not answer as it should
    └── AccountError             an account operation that is refused
        ├── LoginFailed          wrong user name or password (one answer for both)
        ├── LoginThrottled       too many failed logins lately; wait and try again
        │   └── SignupThrottled  too many sign-ups from one address lately; wait
        ├── NotLoggedIn          a private page or API call without a login
        ├── NotPermitted         a page or action for admins only
        ├── SignupRefused        sign-up switched off, or a wrong invite code
        ├── AccountExists        a user name already taken
        └── AccountNotFound      no account with that user name
"""

from __future__ import annotations

__all__ = [
    "AccountError",
    "AccountExists",
    "AccountNotFound",
    "AnswerUnreadable",
    "CardChanged",
    "ChainNotFound",
    "ContentInvalid",
    "DeckNotFound",
    "DuplicateQuestion",
    "ExportFailed",
    "ExpressionSyntax",
    "HardwareNotFound",
    "HostileInput",
    "ImportFailed",
    "LoginFailed",
    "LoginThrottled",
    "MigrationError",
    "ModelUnavailable",
    "NapkinError",
    "NotLoggedIn",
    "NotPermitted",
    "NothingToExport",
    "PlanNotFound",
    "QuestionNotFound",
    "SchedulingError",
    "SessionNotFound",
    "SettingInvalid",
    "SignupRefused",
    "SignupThrottled",
    "StorageConflict",
    "StorageError",
    "StorageUnavailable",
    "SysdrillError",
    "TierUnavailable",
    "UnitMismatch",
    "UsageError",
    "VaultNotFound",
]


class SysdrillError(Exception):
    """Root of every error sysdrill raises on purpose; its message names the fix."""


class UsageError(SysdrillError):
    """Arguments that are well-formed but cannot be used together or as given."""


class AnswerUnreadable(UsageError):
    """A typed answer that cannot be read as one; the message gives the form expected."""


class VaultNotFound(SysdrillError):
    """A vault path that does not exist or is not a directory."""


class ContentInvalid(SysdrillError):
    """Content that cannot be loaded or does not validate."""


class DuplicateQuestion(ContentInvalid):
    """Two items share one id."""


class QuestionNotFound(SysdrillError):
    """No item has the requested id."""


class DeckNotFound(SysdrillError):
    """No deck has the requested name."""


class ChainNotFound(SysdrillError):
    """No chain has the requested id."""


class PlanNotFound(SysdrillError):
    """No study plan with the requested name."""


class SessionNotFound(SysdrillError):
    """No study session in progress has the requested id (finished, or never started)."""


class TierUnavailable(SysdrillError):
    """A tier of ``check`` (such as the napkin tier) cannot be loaded, so check refuses to run."""


class NapkinError(SysdrillError):
    """A napkin-math expression could not be parsed or evaluated."""


class ExpressionSyntax(NapkinError):
    """Text that is not a napkin-math expression."""


class UnitMismatch(NapkinError):
    """Quantities whose dimensions do not agree."""


class HardwareNotFound(SysdrillError):
    """No hardware catalogue entry has the requested name."""


class StorageError(SysdrillError):
    """The database failed or holds something unexpected."""


class MigrationError(StorageError):
    """A schema migration failed; the database was left as it was."""


class StorageUnavailable(StorageError):
    """The database cannot be reached, opened or locked (server down, bad path, busy)."""


class StorageConflict(StorageError):
    """A write clashes with stored data (duplicate key, broken reference); nothing was written."""


class CardChanged(StorageConflict):
    """A review scheduled from a card read earlier, which another review changed since.

    Nothing was written; scheduling it again from the stored card succeeds.
    """


class SchedulingError(SysdrillError):
    """Scheduler settings or card state that are out of range."""


class SettingInvalid(SchedulingError):
    """Setting values that do not read or are out of range; nothing was stored.

    ``problems`` holds each refused setting's key and its reason in words, without
    the key (``"'abc' is not a number; type minutes separated by commas, such as
    1,10"``), so a form can show the reason beside the field it labels in its own words.
    """

    def __init__(self, message: str, *, problems: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.problems = dict(problems or {})


class ImportFailed(SysdrillError):
    """A source that cannot be imported; nothing was written."""


class HostileInput(ImportFailed):
    """A source that is too large, escapes its folder, or is not what it claims."""


class ExportFailed(SysdrillError):
    """An export that cannot be written; nothing was written."""


class NothingToExport(ExportFailed):
    """No item of the vault passes the export's filters; nothing was written."""


class ModelUnavailable(SysdrillError):
    """A language-model endpoint (mock interviews) is down, slow, or answers in another shape."""


class AccountError(SysdrillError):
    """An account operation that is refused (multi-user web app, ``sysdrill users``)."""


class LoginFailed(AccountError):
    """A wrong user name or password; the message never tells which."""


class LoginThrottled(AccountError):
    """Too many failed logins for this account or address lately; the message says when to retry."""

    def __init__(self, message: str, *, retry_after_s: int = 0) -> None:
        """Keep ``retry_after_s``, the seconds until a login is accepted again."""
        super().__init__(message)
        self.retry_after_s = retry_after_s


class SignupThrottled(LoginThrottled):
    """Too many sign-ups from this address lately; the message says when to try again."""


class NotLoggedIn(AccountError):
    """A private page or API call made without a login."""


class NotPermitted(AccountError):
    """A page or action that needs the admin role."""


class SignupRefused(AccountError):
    """Sign-up is switched off on this server, or the invite code is wrong."""


class AccountExists(AccountError):
    """A user name that is already taken."""


class AccountNotFound(AccountError):
    """No account with that user name."""

"""Translation of database driver and SQLAlchemy errors into sysdrill's StorageError tree.

SQLAlchemy wraps psycopg's and sqlite3's exceptions in its own PEP 249 classes;
the raw driver classes are mapped too, by their PEP 249 base, in case one slips
through. :data:`ERROR_MAP` is ordered most specific first; a test walks every
subclass of each foreign hierarchy and checks it finds an entry.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import exc as sa_exc

from sysdrill.errors import (
    MigrationError,
    StorageConflict,
    StorageError,
    StorageUnavailable,
)

__all__ = ["ERROR_MAP", "FOREIGN_ROOTS", "storage_error_class", "translate_errors"]

_FIX = {
    StorageUnavailable: (
        "Check the --db URL or SYSDRILL_DATABASE_URL, that the server is running, "
        "and that the file's folder is writable."
    ),
    StorageConflict: "The write clashes with stored data; nothing was written.",
    StorageError: "Nothing was written. Run with --debug for details.",
    MigrationError: "The schema was left as it was. Run with --debug for details.",
}

ERROR_MAP: tuple[tuple[type[BaseException], type[StorageError]], ...] = (
    (sa_exc.IntegrityError, StorageConflict),
    (sa_exc.OperationalError, StorageUnavailable),
    (sa_exc.InterfaceError, StorageUnavailable),
    (sa_exc.TimeoutError, StorageUnavailable),
    (sa_exc.DisconnectionError, StorageUnavailable),
    (sa_exc.ArgumentError, StorageUnavailable),
    (sa_exc.NoSuchModuleError, StorageUnavailable),
    (sa_exc.DBAPIError, StorageError),
    (sa_exc.SQLAlchemyError, StorageError),
    (sqlite3.IntegrityError, StorageConflict),
    (sqlite3.OperationalError, StorageUnavailable),
    (sqlite3.InterfaceError, StorageUnavailable),
    (sqlite3.Error, StorageError),
    (sqlite3.Warning, StorageError),
)
"""Foreign exception class -> StorageError subclass, most specific first."""

FOREIGN_ROOTS: tuple[type[BaseException], ...] = (
    sa_exc.SQLAlchemyError,
    sqlite3.Error,
    sqlite3.Warning,
)
"""Roots of the foreign hierarchies translated here (psycopg's arrive wrapped by SQLAlchemy)."""


def storage_error_class(error: BaseException) -> type[StorageError] | None:
    """Return the StorageError subclass for a foreign exception, or None if it is not ours."""
    for foreign, ours in ERROR_MAP:
        if isinstance(error, foreign):
            return ours
    return None


@contextmanager
def translate_errors(action: str, *, migration: bool = False) -> Iterator[None]:
    """Re-raise database errors inside the block as StorageError subclasses.

    Args:
        action: What was being done, for the message ("recording a review").
        migration: Translate to MigrationError (schema upgrade in progress).
    """
    try:
        yield
    except StorageError:
        raise
    except (sa_exc.SQLAlchemyError, sqlite3.Error, sqlite3.Warning) as exc:
        found = storage_error_class(exc) or StorageError
        if migration:
            # The connection is open by now: whatever fails is the migration.
            found = MigrationError
        detail = str(getattr(exc, "orig", None) or exc).strip().splitlines()[0]
        fix = _FIX[found]
        if found is StorageUnavailable and ("locked" in detail or "busy" in detail):
            fix = "Another sysdrill process is writing to it; try again when it has finished."
        raise found(f"Database failure while {action}: {detail}. {fix}") from exc

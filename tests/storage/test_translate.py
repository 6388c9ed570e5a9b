"""Foreign database errors become StorageError subclasses, and the mapping is complete."""

from __future__ import annotations

import sqlite3

import psycopg
import pytest
from sqlalchemy import exc as sa_exc

from sysdrill.errors import StorageConflict, StorageError, StorageUnavailable
from sysdrill.storage.translate import (
    FOREIGN_ROOTS,
    storage_error_class,
    translate_errors,
)


def _subclasses(root: type[BaseException]) -> list[type[BaseException]]:
    found = [root]
    for sub in root.__subclasses__():
        found.extend(_subclasses(sub))
    return found


def _instance(cls: type[BaseException]) -> BaseException:
    instance = cls.__new__(cls)
    BaseException.__init__(instance, "boom")
    return instance


def test_every_sqlalchemy_and_sqlite_error_class_is_mapped():
    unmapped = [
        cls
        for root in FOREIGN_ROOTS
        for cls in _subclasses(root)
        if storage_error_class(_instance(cls)) is None
    ]
    assert unmapped == []


def test_psycopg_errors_reach_us_wrapped_by_sqlalchemy_and_are_mapped():
    # SQLAlchemy wraps every DBAPI error in its PEP 249 twin; check each psycopg
    # class has a twin that maps to a specific StorageError subclass.
    for cls in _subclasses(psycopg.Error):
        pep249 = next(
            (
                base.__name__
                for base in cls.__mro__
                if base.__module__.startswith("psycopg")
                and base.__name__
                in {
                    "IntegrityError",
                    "OperationalError",
                    "InterfaceError",
                    "DataError",
                    "ProgrammingError",
                    "NotSupportedError",
                    "InternalError",
                    "DatabaseError",
                    "Error",
                }
            ),
            None,
        )
        assert pep249 is not None, cls
        twin = getattr(sa_exc, "DBAPIError" if pep249 == "Error" else pep249)
        assert storage_error_class(_instance(twin)) is not None


@pytest.mark.parametrize(
    ("foreign", "ours"),
    [
        (sa_exc.IntegrityError("INSERT", {}, sqlite3.IntegrityError("UNIQUE")), StorageConflict),
        (
            sa_exc.OperationalError("SELECT", {}, sqlite3.OperationalError("locked")),
            StorageUnavailable,
        ),
        (sqlite3.IntegrityError("UNIQUE constraint failed"), StorageConflict),
        (sa_exc.ProgrammingError("SELECT", {}, Exception("no table")), StorageError),
    ],
)
def test_translate_errors_raises_our_class_from_the_foreign_one(foreign, ours):
    with pytest.raises(ours) as caught:
        with translate_errors("testing"):
            raise foreign
    assert type(caught.value) is ours
    assert caught.value.__cause__ is foreign
    assert str(caught.value).startswith("Database failure while testing:")


def test_translate_errors_leaves_other_exceptions_alone():
    with pytest.raises(KeyError):
        with translate_errors("testing"):
            raise KeyError("x")


def test_locked_database_message_suggests_waiting():
    locked = sa_exc.OperationalError("INSERT", {}, sqlite3.OperationalError("database is locked"))
    with pytest.raises(StorageUnavailable) as caught:
        with translate_errors("recording a review of q"):
            raise locked
    assert str(caught.value) == (
        "Database failure while recording a review of q: database is locked. "
        "Another sysdrill process is writing to it; try again when it has finished."
    )

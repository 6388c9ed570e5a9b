"""Where the study database lives when no URL is given."""

from __future__ import annotations

import os
from pathlib import Path

from sysdrill.errors import StorageUnavailable

__all__ = ["DATABASE_FILENAME", "data_dir", "default_database_url", "study_database_url"]

DATABASE_FILENAME = "study.sqlite3"
"""File name of the default SQLite database inside the data folder."""


def data_dir() -> Path:
    """Return ``$SYSDRILL_DATA_DIR`` if set, else the platform user data folder for sysdrill."""
    override = os.environ.get("SYSDRILL_DATA_DIR")
    if override:
        return Path(override).expanduser()
    from platformdirs import user_data_dir

    return Path(user_data_dir("sysdrill", appauthor=False))


def default_database_url() -> str:
    """Return ``$SYSDRILL_DATABASE_URL`` if set, else a SQLite file in :func:`data_dir`."""
    override = os.environ.get("SYSDRILL_DATABASE_URL")
    if override:
        return override
    return f"sqlite:///{data_dir() / DATABASE_FILENAME}"


def study_database_url(given: str | None) -> str:
    """Return the database URL a command should open: ``given``, or the default.

    A SQLite URL without a file (``sqlite://``, ``sqlite:///:memory:``) is refused:
    from the command line it would keep the learner's reviews only until the
    command ends.

    Raises:
        StorageUnavailable: If the URL names an in-memory SQLite database, or is
            a bare path instead of a URL.
    """
    url = given or default_database_url()
    scheme, separator, rest = url.partition("://")
    if not separator:
        # A bare path is the usual slip: name the URL that opens that file.
        raise StorageUnavailable(
            f"{url!r} is not a database URL; for a SQLite file write "
            f"sqlite:///{Path(url).expanduser().absolute()}, "
            "or postgresql+psycopg://USER@HOST:PORT/DB for PostgreSQL."
        )
    if scheme.split("+")[0] == "sqlite" and rest.split("?")[0] in ("", "/", "/:memory:"):
        raise StorageUnavailable(
            f"{url} keeps nothing after the command ends; "
            "give a file, such as sqlite:///study.sqlite3, or leave --db out for the default."
        )
    return url

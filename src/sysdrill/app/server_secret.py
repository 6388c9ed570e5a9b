"""The server's secret key: from ``SYSDRILL_SECRET_KEY``, else made once and kept in the database.

Every worker serving one database must sign alike, and a restart must keep the key
(else every open page's forms would be refused). An operator who sets
``SYSDRILL_SECRET_KEY`` (the same for every worker) chooses it; otherwise the first
worker to need it generates one and stores it in the study database, where the
others find it.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Mapping
from datetime import datetime

from sysdrill.errors import UsageError

__all__ = [
    "MIN_SECRET_KEY_CHARS",
    "SECRET_KEY_VARIABLE",
    "configured_secret_key",
    "server_secret",
]

SECRET_KEY_VARIABLE = "SYSDRILL_SECRET_KEY"
"""The environment variable an operator sets the key with."""
MIN_SECRET_KEY_CHARS = 32
"""A key shorter than this is refused (it could be guessed)."""


def configured_secret_key(environ: Mapping[str, str] | None = None) -> bytes | None:
    """The key the operator set in ``SYSDRILL_SECRET_KEY``, or None when unset.

    Args:
        environ: The environment to read; the process's when None.

    Raises:
        UsageError: If the variable is set but too short to be secret.
    """
    given = (os.environ if environ is None else environ).get(SECRET_KEY_VARIABLE)
    if not given:
        return None
    if len(given) < MIN_SECRET_KEY_CHARS:
        raise UsageError(
            f"{SECRET_KEY_VARIABLE} has {len(given)} characters; set it to at least "
            f"{MIN_SECRET_KEY_CHARS} random ones (such as the output of "
            "`python -c 'import secrets; print(secrets.token_urlsafe(32))'`), "
            "or unset it to keep a generated key in the database."
        )
    return given.encode("utf-8")


def server_secret(
    db_url: str | None, *, now: datetime, environ: Mapping[str, str] | None = None
) -> bytes:
    """Return the server's secret key: the configured one, else the database's.

    Args:
        db_url: The study database URL; None for the default database.
        now: The current time (UTC), recorded with a key made now.
        environ: The environment to read ``SYSDRILL_SECRET_KEY`` from; the
            process's when None.

    Returns:
        The key's bytes.

    Raises:
        UsageError: If ``SYSDRILL_SECRET_KEY`` is set but too short.
        MigrationError: If the database's schema is behind (``sysdrill db upgrade``).
        StorageUnavailable: If the database cannot be reached.
    """
    from sysdrill.storage.location import default_database_url
    from sysdrill.storage.server_secrets import load_or_create_secret

    configured = configured_secret_key(environ)
    if configured is not None:
        return configured
    url = db_url or default_database_url()
    stored = load_or_create_secret(
        url, "secret_key", make=lambda: secrets.token_urlsafe(32), now=now
    )
    return stored.encode("ascii")

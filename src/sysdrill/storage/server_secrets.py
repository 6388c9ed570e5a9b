"""Secrets a server generates once and keeps in the study database.

Every worker process serving one database must sign with the same key, and a
restart must not change it (it would void the tokens in open pages). The first
process to need a secret writes it; the others, racing, lose the insert and read
the winner's.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

import sqlalchemy as sa

from sysdrill.errors import StorageConflict
from sysdrill.storage import schema as t
from sysdrill.storage.engine import WRITE_OPTION, acquire_engine, check_schema, release_engine
from sysdrill.storage.translate import translate_errors

__all__ = ["load_or_create_secret"]


def load_or_create_secret(url: str, name: str, *, make: Callable[[], str], now: datetime) -> str:
    """Return the secret ``name`` stored in the database, creating it on first use.

    Args:
        url: The study database URL (migrated to the current schema).
        name: Which secret (``csrf``).
        make: Returns a new random secret; called only when none is stored yet.
        now: The current time (UTC), recorded with a new secret.

    Returns:
        The stored secret: the one this call wrote, or the one another process did.

    Raises:
        MigrationError: If the database schema is behind.
        StorageUnavailable: If the database cannot be reached.
    """
    query = sa.select(t.server_secrets.c.value).where(t.server_secrets.c.name == name)
    engine = acquire_engine(url)
    try:
        check_schema(engine, url)
        with translate_errors(f"reading the server secret {name!r}"), engine.connect() as conn:
            found = conn.execute(query).scalar()
        if found is not None:
            return str(found)
        row = {"name": name, "value": make(), "created_at": now}
        try:
            with translate_errors(f"storing the server secret {name!r}"):
                with engine.connect() as conn:
                    conn.execution_options(**{WRITE_OPTION: True})
                    with conn.begin():
                        conn.execute(sa.insert(t.server_secrets).values(**row))
        except StorageConflict:
            pass  # another worker stored it first: use theirs
        with translate_errors(f"reading the server secret {name!r}"), engine.connect() as conn:
            stored = conn.execute(query).scalar()
        return str(stored)
    finally:
        release_engine(url, engine)

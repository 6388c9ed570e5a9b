"""Bounds of the whole-number options, so no value a user types overflows.

A value past what SQLite and PostgreSQL store (a 64-bit signed integer) or what a
session can hold would otherwise end in a traceback deep in the database layer;
Typer refuses it at once as a usage error (exit 2) naming the option and its range.
Options that share a meaning share a bound here.
"""

from __future__ import annotations

from typing import Final

from sysdrill.study.settings import MAX_DAILY_LIMIT

__all__ = [
    "MAX_DATABASE_ID",
    "MAX_RESULTS",
    "MAX_SEED",
    "MAX_SERVER_WORKERS",
    "MAX_SESSION_ITEMS",
]

MAX_DATABASE_ID: Final = 2**63 - 1
"""Largest row id a study database stores (a signed 64-bit integer)."""

MAX_SEED: Final = 2**63 - 1
"""Largest seed of random picks: it is stored with the session, as a 64-bit integer."""

MAX_SESSION_ITEMS: Final = MAX_DAILY_LIMIT
"""Most items (``--limit``, ``--new``) one session asks, the same as a day's limit."""

MAX_RESULTS: Final = 10_000
"""Most results a listing (``search --limit``) prints."""

MAX_SERVER_WORKERS: Final = 64
"""Most worker processes ``serve --workers`` starts: more than a server has CPUs for."""

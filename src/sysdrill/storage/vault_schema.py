"""SQLite schema of a compiled vault (``sysdrill build``), shared by writer and readers.

The compiled vault is a read-only artifact, rebuilt from the YAML files, so it
is SQLite-specific by design (FTS5 full-text search) and lives outside the
SQLAlchemy store of study state. :data:`SCHEMA_VERSION` is bumped whenever the
tables or what their rows hold change; a database of another version is rebuilt from scratch.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from sysdrill.errors import StorageError

__all__ = ["INDEXES", "SCHEMA_VERSION", "TABLES_SQL", "connect_read_only"]

SCHEMA_VERSION = 2
"""Layout version of the compiled vault, stored in ``meta`` as ``schema_version``.

2: parametric items' searchable texts hold their example draw, not placeholders.
"""

TABLES_SQL = """
CREATE TABLE meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE files (
    rel TEXT PRIMARY KEY,
    size_bytes INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    digest TEXT NOT NULL
);
CREATE TABLE items (
    rowid INTEGER PRIMARY KEY,
    id TEXT NOT NULL,
    path TEXT NOT NULL,
    kind TEXT NOT NULL,
    track TEXT,
    level TEXT,
    level_rank INTEGER,
    zone TEXT,
    topic TEXT,
    competency_area TEXT,
    bloom_level TEXT,
    phase TEXT,
    status TEXT NOT NULL,
    title TEXT,
    scenario TEXT,
    question TEXT,
    answer TEXT,
    deck TEXT,
    content_hash TEXT NOT NULL,
    item_json TEXT NOT NULL
);
CREATE TABLE tags (
    item_id TEXT NOT NULL,
    tag TEXT NOT NULL
);
CREATE TABLE decks (
    name TEXT PRIMARY KEY,
    title TEXT,
    description TEXT,
    track TEXT
);
CREATE TABLE deck_items (
    deck TEXT NOT NULL,
    position INTEGER NOT NULL,
    item_id TEXT NOT NULL,
    PRIMARY KEY (deck, position)
);
CREATE TABLE chains (
    id TEXT PRIMARY KEY,
    topic TEXT,
    title TEXT
);
CREATE TABLE chain_items (
    chain_id TEXT NOT NULL,
    position INTEGER NOT NULL,
    item_id TEXT NOT NULL,
    PRIMARY KEY (chain_id, position)
);
CREATE TABLE topics (
    id TEXT PRIMARY KEY,
    name TEXT,
    area TEXT,
    description TEXT
);
CREATE TABLE topic_prerequisites (
    topic TEXT NOT NULL,
    prerequisite TEXT NOT NULL,
    PRIMARY KEY (topic, prerequisite)
);
CREATE VIRTUAL TABLE items_fts USING fts5(
    title, scenario, question, answer,
    content='items', content_rowid='rowid',
    tokenize='unicode61 remove_diacritics 2'
);
"""
"""Tables of the compiled vault; ``chain_items`` and ``deck_items`` positions are 0-based.

The indexes of the items and their tags are :data:`INDEXES`, created after a new
database's rows are in."""

INDEXES: tuple[str, ...] = (
    "CREATE UNIQUE INDEX items_id ON items (id)",
    "CREATE UNIQUE INDEX items_path ON items (path)",
    "CREATE INDEX items_track_level ON items (track, level_rank)",
    "CREATE INDEX items_topic ON items (topic)",
    "CREATE UNIQUE INDEX tags_item_tag ON tags (item_id, tag)",
    "CREATE INDEX tags_tag ON tags (tag)",
)
"""The indexes of :data:`TABLES_SQL`, one statement each (run inside the build's
transaction, which ``executescript`` would commit); the unique ones refuse two
items of one id.

A new database gets them once its rows are in: an index sorted once costs less
than one kept in order row by row (about 0.3 s of CPU at 100,000 items)."""


def connect_read_only(path: Path) -> sqlite3.Connection:
    """Open a compiled vault for reading.

    Args:
        path: The database file written by ``sysdrill build``.

    Returns:
        A connection whose rows are :class:`sqlite3.Row`.

    Raises:
        StorageError: If the file is missing or not a compiled vault of this version.
    """
    if not path.is_file():
        raise StorageError(f"no compiled vault at '{path}'; run `sysdrill build` first")
    try:
        connection = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        raise StorageError(f"cannot open '{path}' ({exc}); check its permissions") from exc
    connection.row_factory = sqlite3.Row
    try:
        row = connection.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    except sqlite3.Error as exc:
        connection.close()
        raise StorageError(
            f"'{path}' is not a compiled vault ({exc}); rebuild it with `sysdrill build`"
        ) from exc
    if row is None or row["value"] != str(SCHEMA_VERSION):
        connection.close()
        raise StorageError(
            f"'{path}' was built by another version of sysdrill; rebuild it with `sysdrill build`"
        )
    return connection

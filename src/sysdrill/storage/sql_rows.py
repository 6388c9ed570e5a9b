"""Rows and prepared statements of the SQL study store.

Converting rows to study records and the statements of the per-review hot path
live here, beside :mod:`sysdrill.storage.sql_store` which runs them.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import orjson
import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite

from sysdrill.storage import schema as t
from sysdrill.study.card_state import CardRecord, CardState
from sysdrill.study.review_log import DAY_COUNTERS
from sysdrill.study.user_state import SessionRecord, StudyScope

__all__ = [
    "BUMP_DAY",
    "CARDS_OF_ITEMS",
    "CARD_COLUMNS",
    "CHECKED_CARD_WRITES",
    "DAY_REVIEW_COUNTS",
    "DUE_CARDS",
    "ACTIVE_SESSION_STAMP",
    "GET_ACTIVE_SESSION",
    "GET_CARD",
    "GET_SETTINGS",
    "MOVES_OF_SESSION",
    "INSERT_ACTIVE_SESSION",
    "INSERT_DAY",
    "INSERT_MOVES",
    "INSERT_REVIEW",
    "SAVE_ACTIVE_SESSION",
    "STUDIED_IDS",
    "UPSERT_CARD",
    "UPSERT_DAY",
    "USER_ID",
    "card_record",
    "card_row",
    "json_text",
    "of_scope",
    "scope_params",
    "session_record",
    "utc",
]


def utc(value: datetime | None) -> datetime | None:
    """The value as an aware UTC datetime (a naive one is read as UTC)."""
    if value is None:
        return None
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value.astimezone(UTC)


def card_row(scope: StudyScope, card: CardRecord) -> dict[str, Any]:
    """The ``cards`` row of ``card`` in ``scope``."""
    return {
        "user_id": scope.user_id,
        "vault_id": scope.vault_id,
        "item_id": card.item_id,
        "state": int(card.state),
        "step": card.step,
        "stability_days": card.stability_days,
        "difficulty": card.difficulty,
        "due": card.due,
        "last_review": card.last_review,
        "reps": card.reps,
        "lapses": card.lapses,
        "never_seen": card.never_seen,
        # What a write adds to the stored version: a new card's is 1 (UPSERT_CARD adds).
        "version": 1,
    }


_STATES = {int(state): state for state in CardState}


def card_record(row: Any) -> CardRecord:
    """The card of a row of :data:`CARD_COLUMNS`."""
    # Positional unpacking: attribute access on ten thousand rows shows up in
    # the progress report's time.
    item_id, state, step, stability, difficulty, due, last, reps, lapses, never, version = row
    return CardRecord(
        item_id,
        _STATES[state],
        step,
        stability,
        difficulty,
        due if due is None or due.tzinfo is UTC else utc(due),
        last if last is None or last.tzinfo is UTC else utc(last),
        reps,
        lapses,
        bool(never),
        version,
    )


def session_record(row: Any) -> SessionRecord:
    """The session of a ``sessions`` row."""
    return SessionRecord(
        kind=row.kind,
        started_at=utc(row.started_at) or datetime.min.replace(tzinfo=UTC),
        ended_at=utc(row.ended_at),
        meta=json.loads(row.meta_json),
        session_id=row.id,
    )


CARD_COLUMNS = [c for c in t.cards.c if c.name not in ("user_id", "vault_id")]


def of_scope(table: sa.Table, scope: StudyScope) -> sa.ColumnElement[bool]:
    """The rows of ``table`` that belong to ``scope``."""
    return sa.and_(table.c.user_id == scope.user_id, table.c.vault_id == scope.vault_id)


def scope_params(scope: StudyScope) -> dict[str, Any]:
    """Bound values of the scope's user and vault for the prepared statements."""
    return {"b_user_id": scope.user_id, "b_vault_id": scope.vault_id}


# Statements of the hot path are built once: constructing SQLAlchemy
# expressions costs more than running these queries on SQLite.
GET_CARD = sa.select(*CARD_COLUMNS).where(
    t.cards.c.user_id == sa.bindparam("b_user_id"),
    t.cards.c.vault_id == sa.bindparam("b_vault_id"),
    t.cards.c.item_id == sa.bindparam("b_item_id"),
)
DUE_CARDS = (
    sa.select(*CARD_COLUMNS)
    .where(
        t.cards.c.user_id == sa.bindparam("b_user_id"),
        t.cards.c.vault_id == sa.bindparam("b_vault_id"),
        t.cards.c.due.is_not(None),
        t.cards.c.due <= sa.bindparam("b_due_by", type_=t.UtcDateTime),
    )
    .order_by(t.cards.c.due, t.cards.c.item_id)
    .offset(sa.bindparam("b_offset", type_=sa.Integer()))
    .limit(sa.bindparam("b_limit", type_=sa.Integer()))
)
CARDS_OF_ITEMS = sa.select(*CARD_COLUMNS).where(
    t.cards.c.user_id == sa.bindparam("b_user_id"),
    t.cards.c.vault_id == sa.bindparam("b_vault_id"),
    t.cards.c.item_id.in_(sa.bindparam("b_item_ids", expanding=True)),
)
"""The cards of some items (a session's), in one query."""
INSERT_REVIEW = t.reviews.insert()
BUMP_DAY = (
    t.review_days.update()
    .where(
        t.review_days.c.user_id == sa.bindparam("b_user_id"),
        t.review_days.c.vault_id == sa.bindparam("b_vault_id"),
        t.review_days.c.day == sa.bindparam("b_day", type_=t.Day),
    )
    .values(
        {
            name: t.review_days.c[name] + sa.bindparam(f"d_{name}", type_=sa.Integer())
            for name in DAY_COUNTERS
        }
    )
)
INSERT_DAY = t.review_days.insert()
DAY_REVIEW_COUNTS = sa.select(
    t.review_days.c.new_items, t.review_days.c.young_first + t.review_days.c.mature_first
).where(
    t.review_days.c.user_id == sa.bindparam("b_user_id"),
    t.review_days.c.vault_id == sa.bindparam("b_vault_id"),
    t.review_days.c.day == sa.bindparam("b_day"),
)
"""A day's new items and first reviews of learned items, from its counters."""


def _upserts(
    table: sa.Table, keys: tuple[str, ...], *, add: tuple[str, ...] = ()
) -> dict[str, Any]:
    """``INSERT ... ON CONFLICT DO UPDATE`` of ``table`` for each dialect, by dialect name.

    One statement, where an update then an insert in a savepoint took up to four
    round trips (and a first review is a new card). Columns in ``add`` are
    counters: the new row's values are added to the stored ones; the others replace.
    """
    found: dict[str, Any] = {}
    for name, insert in (("postgresql", postgresql.insert), ("sqlite", sqlite.insert)):
        statement = insert(table)
        new = statement.excluded
        changes = {
            column.name: (table.c[column.name] + new[column.name])
            if column.name in add
            else new[column.name]
            for column in table.c
            if column.name not in keys
        }
        found[name] = statement.on_conflict_do_update(index_elements=list(keys), set_=changes)
    return found


_STUDIED = (
    t.cards.c.user_id == sa.bindparam("b_user_id"),
    t.cards.c.vault_id == sa.bindparam("b_vault_id"),
    t.cards.c.state != int(CardState.NEW),
)
STUDIED_IDS = {
    "postgresql": sa.select(sa.func.json_agg(t.cards.c.item_id)).where(*_STUDIED),
    "sqlite": sa.select(sa.func.json_group_array(t.cards.c.item_id)).where(*_STUDIED),
}
"""The ids of a scope's studied cards as one JSON array, by dialect: a learner far into
a vault has thousands, and one value costs a seventh of the CPU of a row each."""
INSERT_ACTIVE_SESSION = {
    name: insert(t.active_sessions)
    .on_conflict_do_nothing(index_elements=["session_id"])
    .returning(t.active_sessions.c.session_id)
    for name, insert in (("postgresql", postgresql.insert), ("sqlite", sqlite.insert))
}
"""Save a new session in progress unless its id is taken (no row back: a conflict), by dialect.

Its id comes back: the drivers' row counts of ``ON CONFLICT DO NOTHING`` differ."""
UPSERT_CARD = _upserts(t.cards, ("user_id", "vault_id", "item_id"), add=("version",))
"""Write a card (insert or replace, raising its version), by dialect name."""
UPSERT_DAY = _upserts(t.review_days, ("user_id", "vault_id", "day"), add=DAY_COUNTERS)
"""Add a review to its day's counts (insert or add), by dialect name."""


def _prefixed(table: sa.Table, prefix: str) -> dict[str, Any]:
    """Each column of ``table`` bound to the parameter ``prefix`` + its name."""
    return {column.name: sa.bindparam(prefix + column.name) for column in table.c}


_CARD_KEY = ("user_id", "vault_id", "item_id")


def _checked_card_writes() -> dict[str, tuple[Any, Any]]:
    """Writes of a card that happen only while the stored card is the one read, by dialect.

    Each dialect gets a pair: the insert of a card where none was stored (nothing
    happens if one is), and the update of a stored card whose version is still the
    one read (bound as ``s_version``), raising it. Both return the card's item id
    when they wrote, and no row otherwise. The card's new row is bound as ``c_`` +
    the column's name.
    """
    c = t.cards.c
    new_state = {k: v for k, v in _prefixed(t.cards, "c_").items() if k not in _CARD_KEY}
    found: dict[str, tuple[Any, Any]] = {}
    for name, insert in (("postgresql", postgresql.insert), ("sqlite", sqlite.insert)):
        update = (
            t.cards.update()
            .where(
                *(c[key] == sa.bindparam("c_" + key, type_=c[key].type) for key in _CARD_KEY),
                c.version == sa.bindparam("s_version", type_=sa.Integer()),
            )
            .values({**new_state, "version": c.version + 1})
            .returning(c.item_id)
        )
        first = (
            insert(t.cards)
            .values(_prefixed(t.cards, "c_"))
            .on_conflict_do_nothing(index_elements=list(_CARD_KEY))
            .returning(c.item_id)
        )
        found[name] = (first, update)
    return found


CHECKED_CARD_WRITES = _checked_card_writes()
"""(first card, later card) writes checked against the card read, by dialect name."""


# Those of every web move too (reading the learner, the settings, the session).
USER_ID = sa.select(t.users.c.id).where(t.users.c.name == sa.bindparam("b_name"))
GET_SETTINGS = sa.select(t.settings.c.key, t.settings.c.value_json).where(
    t.settings.c.user_id == sa.bindparam("b_user_id")
)
_THE_ACTIVE_SESSION = (
    t.active_sessions.c.session_id == sa.bindparam("b_session_id"),
    t.active_sessions.c.user_id == sa.bindparam("b_user_id"),
    t.active_sessions.c.vault_id == sa.bindparam("b_vault_id"),
)
GET_ACTIVE_SESSION = sa.select(t.active_sessions).where(*_THE_ACTIVE_SESSION)
ACTIVE_SESSION_STAMP = sa.select(
    t.active_sessions.c.revision, t.active_sessions.c.started_at
).where(*_THE_ACTIVE_SESSION)
SAVE_ACTIVE_SESSION = (
    t.active_sessions.update()
    .where(
        *_THE_ACTIVE_SESSION,
        t.active_sessions.c.revision == sa.bindparam("b_revision"),
        t.active_sessions.c.started_at == sa.bindparam("b_started_at"),
    )
    .values(
        position=sa.bindparam("m_position", type_=sa.Integer()),
        revision=sa.bindparam("m_revision", type_=sa.Integer()),
        updated_at=sa.bindparam("m_updated_at", type_=t.UtcDateTime),
    )
)
"""Save a move: only a session's position, revision and time change once it started.

The revision and start time it was read at must still be stored: the update is what
checks that no other request moved the session on (nor replaced it under a reused id)."""
INSERT_MOVES = t.session_moves.insert()
MOVES_OF_SESSION = (
    sa.select(t.session_moves.c.move_json)
    .where(t.session_moves.c.session_id == sa.bindparam("b_session_id"))
    .order_by(t.session_moves.c.seq)
)
"""A session's moves, in order."""


def json_text(value: Any) -> str:
    """``value`` as compact JSON, keys sorted."""
    # A session in progress is written at every move: orjson writes several times
    # faster than json (keys sorted alike, no spaces).
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode()

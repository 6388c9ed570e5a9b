"""Migration 0013: the moves of sessions in progress become rows of ``session_moves``.

Runs on SQLite, and on PostgreSQL when SYSDRILL_TEST_POSTGRES_URL is set.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime

import sqlalchemy as sa

from sysdrill.storage.engine import MIGRATIONS_DIR, create_study_engine, migrate
from sysdrill.storage.sql_store import SqlStudyStore
from sysdrill.study.user_state import StudyScope, UserId, VaultId

BEFORE = "0012_card_version"
T0 = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
MOVES = [
    {"move": "answer", "value": 'quoted "text" \u00e9t\u00e9', "at": T0.isoformat()},
    {"move": "rate", "value": 3, "at": T0.isoformat(), "review_id": 7, "due": T0.isoformat()},
    {"move": "skip", "value": None, "at": T0.isoformat()},
]


def _migrate(url: str, target: str = "head") -> None:
    engine = create_study_engine(url)
    try:
        migrate(engine, target=target)
    finally:
        engine.dispose()


def _downgrade(url: str, target: str) -> None:
    from alembic import command
    from alembic.config import Config

    engine = create_study_engine(url)
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    try:
        with engine.connect() as conn:
            config.attributes["connection"] = conn
            command.downgrade(config, target)
            conn.commit()
    finally:
        engine.dispose()


def _sessions_at_0012(url: str) -> None:
    """A learner with two sessions in progress stored as 0012 kept them: moves as JSON."""
    engine = create_study_engine(url)
    # SQLite keeps times as text in the form the schema's type writes.
    at: object = T0
    if engine.dialect.name == "sqlite":
        at = T0.replace(tzinfo=None).isoformat(sep=" ", timespec="microseconds")
    try:
        with engine.begin() as conn:
            conn.execute(
                sa.text("INSERT INTO users (id, name, created_at) VALUES (1, 'ann', :at)"),
                {"at": at},
            )
            for session_id, moves in ((1, MOVES), (2, [])):
                conn.execute(
                    sa.text(
                        "INSERT INTO sessions (id, user_id, vault_id, kind, started_at, meta_json)"
                        " VALUES (:id, 1, 'v', 'practice', :at, '{}')"
                    ),
                    {"id": session_id, "at": at},
                )
                conn.execute(
                    sa.text(
                        "INSERT INTO active_sessions (session_id, user_id, vault_id, kind,"
                        " options_json, item_ids_json, position, moves_json, revision,"
                        " started_at, updated_at) VALUES (:id, 1, 'v', 'practice', '{}',"
                        " '[\"q-1\"]', :position, :moves, :revision, :at, :at)"
                    ),
                    {
                        "id": session_id,
                        "position": len(moves),
                        "moves": json.dumps(moves),
                        "revision": len(moves),
                        "at": at,
                    },
                )
    finally:
        engine.dispose()


def _moves_json(url: str) -> dict[int, list[object]]:
    engine = create_study_engine(url)
    try:
        with engine.connect() as conn:
            rows = conn.execute(sa.text("SELECT session_id, moves_json FROM active_sessions"))
            return {session_id: json.loads(text) for session_id, text in rows}
    finally:
        engine.dispose()


def test_upgrade_copies_every_move_in_order_and_downgrade_puts_them_back(
    blank_sql_url: str,
) -> None:
    _migrate(blank_sql_url, BEFORE)
    _sessions_at_0012(blank_sql_url)
    _migrate(blank_sql_url)
    scope = StudyScope(UserId(1), VaultId("v"))
    store = SqlStudyStore(blank_sql_url)
    try:
        first = store.get_active_session(scope, 1)
        empty = store.get_active_session(scope, 2)
        assert first is not None and list(first.moves) == MOVES
        assert first.revision == 3 and first.position == 3
        assert empty is not None and empty.moves == ()
        listed = {saved.session_id: saved.moves for saved in store.list_active_sessions(scope)}
        assert listed == {1: tuple(MOVES), 2: ()}
    finally:
        store.close()
    _downgrade(blank_sql_url, BEFORE)
    assert _moves_json(blank_sql_url) == {1: MOVES, 2: []}


def test_the_moves_table_has_no_json_column_left_behind(blank_sql_url: str) -> None:
    _migrate(blank_sql_url)
    engine = create_study_engine(blank_sql_url)
    try:
        inspector = sa.inspect(engine)
        active = [column["name"] for column in inspector.get_columns("active_sessions")]
        moves = [column["name"] for column in inspector.get_columns("session_moves")]
    finally:
        engine.dispose()
    assert "moves_json" not in active
    assert moves == ["session_id", "seq", "move_json"]

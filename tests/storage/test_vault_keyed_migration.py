"""Migration 0006: study state keyed by vault, on a database written before it, with data."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest
import sqlalchemy as sa

from sysdrill.storage.engine import create_study_engine, migrate
from sysdrill.storage.sql_store import SqlStudyStore
from sysdrill.study.user_state import LEGACY_VAULT_ID, StudyScope, UserId, VaultId

T0 = "2026-11-01 09:00:00.000000"
LOCAL = UserId(1)


def database_before_vault_keys(url: str, item_ids: tuple[str, ...] = ("q0", "q1", "q2")) -> None:
    """A database one revision before vault keys: a user's cards, reviews and sessions.

    Ids come from the sequences (each row is the first, id 1), so that later
    inserts on PostgreSQL do not collide with them.
    """
    engine = create_study_engine(url)
    migrate(engine, target="0005_server_secrets")
    with engine.begin() as conn:
        conn.execute(
            sa.text("INSERT INTO users (name, created_at) VALUES ('local', :t)"), {"t": T0}
        )
        conn.execute(
            sa.text("INSERT INTO scheduler_settings (digest, settings_json) VALUES ('x', '{}')")
        )
        conn.execute(
            sa.text(
                "INSERT INTO sessions (user_id, kind, started_at, meta_json) "
                "VALUES (1, 'practice', :t, '{}')"
            ),
            {"t": T0},
        )
        conn.execute(
            sa.text(
                "INSERT INTO active_sessions (session_id, user_id, kind, options_json, "
                "item_ids_json, position, moves_json, revision, started_at, updated_at) "
                "VALUES (1, 1, 'practice', '{}', '[\"q0\"]', 0, '[]', 0, :t, :t)"
            ),
            {"t": T0},
        )
        for item_id in item_ids:
            conn.execute(
                sa.text(
                    "INSERT INTO cards (user_id, item_id, state, reps, lapses, never_seen, due) "
                    "VALUES (1, :item, 2, 1, 0, :never, :t)"
                ),
                {"item": item_id, "never": False, "t": T0},
            )
            conn.execute(
                sa.text(
                    "INSERT INTO reviews (user_id, item_id, rating, graded_by, duration_ms, "
                    "reviewed_at, review_day, state_before, first_of_day, settings_id, "
                    "session_id) VALUES (1, :item, 3, 'self', 100, :t, :day, 0, :first, 1, 1)"
                ),
                {"item": item_id, "t": T0, "day": "2026-11-01", "first": True},
            )
        conn.execute(
            sa.text(
                "INSERT INTO review_days (user_id, day, reviews, new_items, young_first, "
                "young_passed, mature_first, mature_passed, duration_ms) "
                "VALUES (1, :day, 3, 3, 0, 0, 0, 0, 300)"
            ),
            {"day": "2026-11-01"},
        )
    engine.dispose()


def _count(url: str, table: str) -> int:
    engine = create_study_engine(url)
    with engine.connect() as conn:
        found = conn.execute(sa.text(f"SELECT count(*) FROM {table}")).scalar_one()
    engine.dispose()
    return int(found)


def test_upgrade_keeps_every_row_under_the_legacy_vault(blank_sql_url):
    database_before_vault_keys(blank_sql_url)
    store = SqlStudyStore(blank_sql_url, migrate_schema=True)
    legacy = StudyScope(LOCAL, LEGACY_VAULT_ID)
    try:
        assert [c.item_id for c in store.iter_cards(legacy)] == ["q0", "q1", "q2"]
        assert [r.item_id for r in store.iter_reviews(legacy)] == ["q0", "q1", "q2"]
        assert [s.kind for s in store.list_sessions(legacy)] == ["practice"]
        assert [s.item_ids for s in store.list_active_sessions(legacy)] == [("q0",)]
        [day] = store.daily_stats(legacy)
        assert (day.day, day.reviews, day.new_items) == (date(2026, 11, 1), 3, 3)
        assert list(store.iter_cards(StudyScope(LOCAL, VaultId("starter")))) == []
    finally:
        store.close()


def test_after_upgrade_two_vaults_keep_separate_cards_of_one_item(blank_sql_url):
    database_before_vault_keys(blank_sql_url)
    store = SqlStudyStore(blank_sql_url, migrate_schema=True)
    try:
        [card] = [
            c for c in store.iter_cards(StudyScope(LOCAL, LEGACY_VAULT_ID)) if c.item_id == "q0"
        ]
        other = StudyScope(LOCAL, VaultId("other"))
        store.replace_user_state(other, _state_with(card))
        assert store.get_card(other, "q0") == card
        assert len(list(store.iter_cards(StudyScope(LOCAL, LEGACY_VAULT_ID)))) == 3
    finally:
        store.close()


def _state_with(card):
    from sysdrill.study.user_state import UserState

    return UserState(cards=[card])


def test_downgrade_restores_the_previous_schema_with_every_row(blank_sql_url):
    from alembic import command
    from alembic.config import Config

    from sysdrill.storage.engine import MIGRATIONS_DIR

    database_before_vault_keys(blank_sql_url)
    migrate(engine := create_study_engine(blank_sql_url))
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    with engine.connect() as conn:
        config.attributes["connection"] = conn
        command.downgrade(config, "0005_server_secrets")
        conn.commit()
    columns = {c["name"] for c in sa.inspect(engine).get_columns("cards")}
    key = sa.inspect(engine).get_pk_constraint("cards")["constrained_columns"]
    engine.dispose()
    assert "vault_id" not in columns
    assert key == ["user_id", "item_id"]
    counts = {t: _count(blank_sql_url, t) for t in ("cards", "reviews", "sessions", "review_days")}
    assert counts == {"cards": 3, "reviews": 3, "sessions": 1, "review_days": 1}


def test_downgrade_refuses_an_item_studied_in_two_vaults(blank_sql_url):
    from alembic import command
    from alembic.config import Config

    from sysdrill.storage.engine import MIGRATIONS_DIR

    database_before_vault_keys(blank_sql_url)
    store = SqlStudyStore(blank_sql_url, migrate_schema=True)
    [card, *_] = store.iter_cards(StudyScope(LOCAL, LEGACY_VAULT_ID))
    store.replace_user_state(StudyScope(LOCAL, VaultId("other")), _state_with(card))
    store.close()
    engine = create_study_engine(blank_sql_url)
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    with engine.connect() as conn, pytest.raises(RuntimeError, match="more than one vault"):
        config.attributes["connection"] = conn
        command.downgrade(config, "0005_server_secrets")
    engine.dispose()
    assert _count(blank_sql_url, "cards") == 4


def test_a_review_written_after_the_upgrade_names_its_vault(blank_sql_url):
    from sysdrill.study.card_state import CardRecord, CardState
    from sysdrill.study.review_log import ReviewRecord

    database_before_vault_keys(blank_sql_url)
    store = SqlStudyStore(blank_sql_url, migrate_schema=True)
    scope = StudyScope(LOCAL, VaultId("mine"))
    at = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)
    card = CardRecord("q0", CardState.LEARNING, 0, 1.0, 5.0, at, at, 1, 0, False)
    review = ReviewRecord("q0", 3, "self", None, 10, at, CardState.NEW, None, True, {})
    store.record_review(scope, card, review)
    store.close()
    engine = create_study_engine(blank_sql_url)
    with engine.connect() as conn:
        rows = conn.execute(
            sa.text("SELECT vault_id, count(*) FROM reviews GROUP BY vault_id ORDER BY vault_id")
        ).all()
    engine.dispose()
    assert [tuple(row) for row in rows] == [("(legacy)", 3), ("mine", 1)]

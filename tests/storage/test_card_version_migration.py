"""Migration 0012: a version on each card, for the optimistic check of a review.

Runs on SQLite, and on PostgreSQL when SYSDRILL_TEST_POSTGRES_URL is set.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import sqlalchemy as sa

from sysdrill.storage.engine import MIGRATIONS_DIR, create_study_engine, migrate
from sysdrill.storage.sql_store import SqlStudyStore
from sysdrill.study.card_state import CardRecord, CardState, ReadCard
from sysdrill.study.review_log import ReviewRecord
from sysdrill.study.user_state import StudyScope, VaultId

BEFORE = "0011_problem_reports"
T0 = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)
CARD = CardRecord(
    "q-1", CardState.REVIEW, None, 12.5, 4.25, T0, T0 - timedelta(days=3), 3, 1, False
)


def _review(at: datetime) -> ReviewRecord:
    return ReviewRecord(
        item_id="q-1",
        rating=3,
        graded_by="self",
        answer=None,
        duration_ms=0,
        reviewed_at=at,
        state_before=CardState.REVIEW,
        interval_before_days=10.0,
        first_of_day=True,
        settings={},
    )


def _card_columns(url: str) -> list[str]:
    engine = create_study_engine(url)
    try:
        return [column["name"] for column in sa.inspect(engine).get_columns("cards")]
    finally:
        engine.dispose()


def _migrate(url: str, target: str | None = None) -> None:
    engine = create_study_engine(url)
    try:
        migrate(engine) if target is None else migrate(engine, target=target)
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


def _stored_cards(url: str) -> list[tuple[str, int]]:
    engine = create_study_engine(url)
    try:
        with engine.connect() as conn:
            return [tuple(row) for row in conn.execute(sa.text("SELECT item_id, reps FROM cards"))]
    finally:
        engine.dispose()


def test_downgrade_drops_the_version_and_upgrade_gives_the_kept_cards_version_0(
    blank_sql_url: str,
) -> None:
    _migrate(blank_sql_url)
    store = SqlStudyStore(blank_sql_url)
    scope = StudyScope(store.ensure_user("ann", now=T0), VaultId("vault-a"))
    store.record_review(scope, CARD, _review(T0))
    store.record_review(scope, CARD, _review(T0 + timedelta(hours=1)))
    store.close()
    _downgrade(blank_sql_url, BEFORE)
    assert "version" not in _card_columns(blank_sql_url)
    assert _stored_cards(blank_sql_url) == [("q-1", 3)]
    _migrate(blank_sql_url)
    assert "version" in _card_columns(blank_sql_url)
    store = SqlStudyStore(blank_sql_url)
    try:
        read = store.get_card(scope, "q-1")
        assert read == CARD
        assert read is not None and read.version == 0
        at = T0 + timedelta(days=1)
        store.record_review(scope, CARD, _review(at), read=ReadCard(read))
        written = store.get_card(scope, "q-1")
        assert written is not None and written.version == 1
    finally:
        store.close()


def test_the_card_version_is_not_null(blank_sql_url: str) -> None:
    _migrate(blank_sql_url)
    engine = create_study_engine(blank_sql_url)
    try:
        [version] = [c for c in sa.inspect(engine).get_columns("cards") if c["name"] == "version"]
    finally:
        engine.dispose()
    assert version["nullable"] is False

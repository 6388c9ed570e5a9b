"""The items a day's sessions of one kind reviewed, per store (memory, SQLite, PostgreSQL)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from tests.storage.test_protocol import card, review, scope_of

from sysdrill.study.user_state import SessionRecord, VaultId

DAY = datetime(2026, 11, 21, tzinfo=UTC)
"""Midnight UTC starting the day the queries ask about."""
NEXT_DAY = DAY + timedelta(days=1)


def _session(store, scope, kind: str, started_at: datetime) -> int:
    return store.start_session(scope, SessionRecord(kind=kind, started_at=started_at))


def _reviewed(store, scope, item_id: str, at: datetime, session_id: int | None) -> int:
    return store.record_review(scope, card(item_id), review(item_id, at, session_id=session_id))


def _daily_today(store, scope) -> set[str]:
    return store.items_reviewed_in_sessions(
        scope, kind="daily", started_from=DAY, started_before=NEXT_DAY
    )


def test_only_reviews_of_the_kinds_sessions_started_in_the_span_count(store):
    me = scope_of(store.ensure_user("local", now=DAY))
    late = DAY - timedelta(minutes=5)  # yesterday's daily, answered after midnight
    yesterday = _session(store, me, "daily", late)
    _reviewed(store, me, "q-old", DAY + timedelta(minutes=1), yesterday)
    morning = _session(store, me, "daily", DAY + timedelta(hours=9))
    _reviewed(store, me, "q-1", DAY + timedelta(hours=9, minutes=1), morning)
    _reviewed(store, me, "q-2", DAY + timedelta(hours=9, minutes=2), morning)
    practice = _session(store, me, "practice", DAY + timedelta(hours=10))
    _reviewed(store, me, "q-3", DAY + timedelta(hours=10, minutes=1), practice)
    _reviewed(store, me, "q-4", DAY + timedelta(hours=11), None)
    evening = _session(store, me, "daily", NEXT_DAY - timedelta(seconds=1))
    _reviewed(store, me, "q-2", NEXT_DAY + timedelta(minutes=3), evening)
    tomorrow = _session(store, me, "daily", NEXT_DAY)
    _reviewed(store, me, "q-5", NEXT_DAY + timedelta(minutes=4), tomorrow)

    assert _daily_today(store, me) == {"q-1", "q-2"}
    assert store.items_reviewed_in_sessions(
        me, kind="practice", started_from=DAY, started_before=NEXT_DAY
    ) == {"q-3"}
    assert store.items_reviewed_in_sessions(
        me, kind="daily", started_from=NEXT_DAY, started_before=NEXT_DAY + timedelta(days=1)
    ) == {"q-5"}


def test_a_review_taken_back_no_longer_counts(store):
    me = scope_of(store.ensure_user("local", now=DAY))
    session = _session(store, me, "daily", DAY + timedelta(hours=9))
    _reviewed(store, me, "q-1", DAY + timedelta(hours=9, minutes=1), session)
    taken_back = _reviewed(store, me, "q-2", DAY + timedelta(hours=9, minutes=2), session)
    store.finish_session(session, ended_at=DAY + timedelta(hours=9, minutes=3), meta={})
    store.undo_review(me, taken_back, card=None)
    assert _daily_today(store, me) == {"q-1"}


def test_other_learners_and_other_vaults_are_left_out(store):
    me = scope_of(store.ensure_user("local", now=DAY))
    other_vault = scope_of(me.user_id, VaultId("vault-b"))
    someone = scope_of(store.ensure_user("someone", now=DAY))
    for scope, item_id in ((me, "q-mine"), (other_vault, "q-vault-b"), (someone, "q-theirs")):
        session = _session(store, scope, "daily", DAY + timedelta(hours=8))
        _reviewed(store, scope, item_id, DAY + timedelta(hours=8, minutes=1), session)
    assert _daily_today(store, me) == {"q-mine"}
    assert _daily_today(store, other_vault) == {"q-vault-b"}
    assert _daily_today(store, someone) == {"q-theirs"}

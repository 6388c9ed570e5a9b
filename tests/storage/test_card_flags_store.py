"""The card-flag part of the store contract, on every store (memory, SQLite, PostgreSQL)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sysdrill.study.card_flags import CardFlags, bury_end
from sysdrill.study.card_state import CardState
from sysdrill.study.ratings import Rating
from sysdrill.study.review_log import ReviewRecord
from sysdrill.study.scheduler import new_card
from sysdrill.study.user_state import StudyScope, VaultId

NOW = datetime(2026, 11, 2, 15, 30, tzinfo=UTC)


def _scope(store, name="ada", vault="vault-a") -> StudyScope:
    return StudyScope(store.ensure_user(name, now=NOW), VaultId(vault))


def _review(item_id: str, at: datetime) -> ReviewRecord:
    return ReviewRecord(
        item_id=item_id,
        rating=int(Rating.GOOD),
        graded_by="self",
        answer=None,
        duration_ms=1000,
        reviewed_at=at,
        state_before=CardState.NEW,
        interval_before_days=None,
        first_of_day=True,
    )


def test_an_item_without_flags_reads_clear_and_is_not_held(store):
    scope = _scope(store)
    assert store.get_card_flags(scope, "a") == CardFlags("a")
    assert store.held_item_ids(scope, now=NOW) == set()


def test_a_suspended_item_is_held_until_it_is_unsuspended(make_store):
    store = make_store()
    scope = _scope(store)
    store.put_card_flags(scope, CardFlags("a", suspended=True))
    again = make_store()
    assert again.get_card_flags(scope, "a") == CardFlags("a", suspended=True)
    assert again.held_item_ids(scope, now=NOW + timedelta(days=400)) == {"a"}
    again.put_card_flags(scope, CardFlags("a"))
    assert again.held_item_ids(scope, now=NOW) == set()
    assert again.get_card_flags(scope, "a") == CardFlags("a")


def test_a_buried_item_is_held_only_until_the_next_utc_midnight(store):
    scope = _scope(store)
    until = bury_end(NOW)
    store.put_card_flags(scope, CardFlags("b", buried_until=until))
    assert store.get_card_flags(scope, "b").buried_until == until
    assert store.held_item_ids(scope, now=until - timedelta(seconds=1)) == {"b"}
    assert store.held_item_ids(scope, now=until) == set()


def test_flags_belong_to_one_learner_in_one_vault(store):
    ada, bob = _scope(store, "ada"), _scope(store, "bob")
    other_vault = _scope(store, "ada", "vault-b")
    store.put_card_flags(ada, CardFlags("a", suspended=True))
    assert store.held_item_ids(bob, now=NOW) == set()
    assert store.held_item_ids(other_vault, now=NOW) == set()
    assert store.get_card_flags(bob, "a") == CardFlags("a")


def test_flags_move_with_the_vault_state(store):
    old = _scope(store, "ada", "old-vault")
    store.put_card_flags(old, CardFlags("a", suspended=True))
    assert store.move_vault_state(old.user_id, source=old.vault_id, target=VaultId("new-vault"))
    new = StudyScope(old.user_id, VaultId("new-vault"))
    assert store.held_item_ids(new, now=NOW) == {"a"}
    assert store.held_item_ids(old, now=NOW) == set()


def test_item_reviews_lists_one_items_reviews_in_order(store):
    scope = _scope(store)
    for item_id, minutes in (("a", 0), ("b", 1), ("a", 2)):
        at = NOW + timedelta(minutes=minutes)
        store.record_review(scope, new_card(item_id), _review(item_id, at))
    found = store.item_reviews(scope, "a")
    assert [(r.item_id, r.reviewed_at) for r in found] == [
        ("a", NOW),
        ("a", NOW + timedelta(minutes=2)),
    ]
    assert store.item_reviews(_scope(store, "bob"), "a") == []


def test_last_review_is_the_one_written_last_in_the_learners_own_log(store):
    scope = _scope(store)
    assert store.last_review(scope) is None
    # Written out of time order: the last written wins, as undo takes back.
    for item_id, minutes in (("a", 5), ("b", 1), ("c", 3)):
        at = NOW + timedelta(minutes=minutes)
        store.record_review(scope, new_card(item_id), _review(item_id, at))
    last = store.last_review(scope)
    assert last is not None and (last.item_id, last.reviewed_at) == (
        "c",
        NOW + timedelta(minutes=3),
    )
    assert store.last_review(_scope(store, "bob")) is None

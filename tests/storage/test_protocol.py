"""The StudyStore contract, run against the in-memory, SQLite and PostgreSQL stores."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, date, datetime, timedelta

import pytest

from sysdrill.errors import CardChanged, StorageError
from sysdrill.study.card_state import CardRecord, CardState, ReadCard
from sysdrill.study.review_log import ReviewRecord
from sysdrill.study.user_state import SessionRecord, StudyScope, UserId, UserState, VaultId

T0 = datetime(2026, 11, 1, 9, 0, 0, 123456, tzinfo=UTC)
VAULT = VaultId("vault-a")


def scope_of(user_id: UserId, vault_id: VaultId = VAULT) -> StudyScope:
    return StudyScope(user_id, vault_id)


def card(item_id: str, *, due: datetime | None = T0, state: CardState = CardState.REVIEW):
    return CardRecord(
        item_id=item_id,
        state=state,
        step=None,
        stability_days=12.5,
        difficulty=4.25,
        due=due,
        last_review=T0 - timedelta(days=3),
        reps=3,
        lapses=1,
        never_seen=False,
    )


def review(item_id: str, at: datetime, **changes) -> ReviewRecord:
    base = ReviewRecord(
        item_id=item_id,
        rating=3,
        graded_by="self",
        answer="about 3.6 ms",
        duration_ms=4200,
        reviewed_at=at,
        state_before=CardState.REVIEW,
        interval_before_days=10.0,
        first_of_day=True,
        settings={"desired_retention": 0.9, "learning_steps_minutes": [1.0, 10.0]},
    )
    return replace(base, **changes)


def test_ensure_user_returns_the_same_id_on_second_call(store):
    first = store.ensure_user("local", now=T0)
    assert store.ensure_user("local", now=T0) == first
    assert store.ensure_user("other", now=T0) != first


def test_record_review_stores_card_and_log_entry(store):
    user = scope_of(store.ensure_user("local", now=T0))
    stored_card = card("q-1")
    review_id = store.record_review(user, stored_card, review("q-1", T0))
    assert review_id >= 1
    assert store.get_card(user, "q-1") == stored_card
    [logged] = list(store.iter_reviews(user))
    assert logged == replace(review("q-1", T0), review_id=review_id)


def test_record_review_overwrites_card_and_appends_log(store):
    user = scope_of(store.ensure_user("local", now=T0))
    first = store.record_review(user, card("q-1"), review("q-1", T0))
    later = card("q-1", due=T0 + timedelta(days=9))
    second = store.record_review(user, later, review("q-1", T0 + timedelta(days=1), rating=1))
    assert second > first
    assert store.get_card(user, "q-1") == later
    assert [r.rating for r in store.iter_reviews(user)] == [3, 1]


def _read(store, user, item_id: str) -> ReadCard:
    return ReadCard(store.get_card(user, item_id))


def test_checked_review_writes_over_the_card_read(store):
    user = scope_of(store.ensure_user("local", now=T0))
    store.record_review(user, card("q-1"), review("q-1", T0))
    later = card("q-1", due=T0 + timedelta(days=9))
    at = T0 + timedelta(days=1)
    read = _read(store, user, "q-1")
    review_id = store.record_review(user, later, review("q-1", at), read=read)
    assert store.get_card(user, "q-1") == later
    assert [r.review_id for r in store.iter_reviews(user)][-1] == review_id
    assert sum(day.reviews for day in store.daily_stats(user)) == 2


def test_checked_first_review_writes_a_card_where_none_was_stored(store):
    user = scope_of(store.ensure_user("local", now=T0))
    store.record_review(user, card("q-1"), review("q-1", T0), read=ReadCard(None))
    assert store.get_card(user, "q-1") == card("q-1")


@pytest.mark.parametrize("reviews_before_read", [0, 1])
def test_checked_review_over_a_changed_card_writes_nothing(store, reviews_before_read):
    user = scope_of(store.ensure_user("local", now=T0))
    if reviews_before_read:
        store.record_review(user, card("q-1"), review("q-1", T0))
    read = _read(store, user, "q-1")
    # Another session writes the card since, with the same state: its version is stale.
    store.record_review(user, card("q-1"), review("q-1", T0 + timedelta(hours=1)))
    later = card("q-1", due=T0 + timedelta(days=9))
    at = T0 + timedelta(days=1)
    with pytest.raises(CardChanged, match="changed by another review"):
        store.record_review(user, later, review("q-1", at), read=read)
    assert store.get_card(user, "q-1") == card("q-1")
    assert len(list(store.iter_reviews(user))) == reviews_before_read + 1
    assert sum(day.reviews for day in store.daily_stats(user)) == reviews_before_read + 1


def test_every_write_of_a_card_raises_its_version(store):
    user = scope_of(store.ensure_user("local", now=T0))
    first = store.record_review(user, card("q-1"), review("q-1", T0))
    assert store.get_card(user, "q-1").version == 1
    store.record_review(user, card("q-1"), review("q-1", T0 + timedelta(hours=1)))
    assert store.get_card(user, "q-1").version == 2
    read = _read(store, user, "q-1")
    at = T0 + timedelta(days=1)
    store.record_review(user, card("q-1"), review("q-1", at), read=read)
    assert store.get_card(user, "q-1").version == 3
    store.undo_review(user, first, card=card("q-1"))
    assert store.cards_of(user, ["q-1"])["q-1"].version == 4
    store.record_review(user, card("q-2"), review("q-2", at), read=ReadCard(None))
    assert store.get_card(user, "q-2").version == 1


def test_checked_review_over_a_card_taken_away_writes_nothing(store):
    user = scope_of(store.ensure_user("local", now=T0))
    review_id = store.record_review(user, card("q-1"), review("q-1", T0))
    read = _read(store, user, "q-1")
    store.undo_review(user, review_id, card=None)
    at = T0 + timedelta(days=1)
    with pytest.raises(CardChanged):
        store.record_review(user, card("q-1"), review("q-1", at), read=read)
    assert store.get_card(user, "q-1") is None
    assert list(store.iter_reviews(user)) == []


def test_cards_of_gives_the_stored_cards_of_the_items_asked(store):
    user = scope_of(store.ensure_user("local", now=T0))
    other = scope_of(store.ensure_user("other", now=T0))
    store.record_review(user, card("q-1"), review("q-1", T0))
    store.record_review(user, card("q-2"), review("q-2", T0))
    store.record_review(other, card("q-3"), review("q-3", T0))
    assert store.cards_of(user, ["q-1", "q-3", "q-9"]) == {"q-1": card("q-1")}
    assert store.cards_of(user, []) == {}
    many = [f"q-{n}" for n in range(1200)]
    assert sorted(store.cards_of(user, many)) == ["q-1", "q-2"]


def test_get_card_of_unknown_item_is_none(store):
    user = scope_of(store.ensure_user("local", now=T0))
    assert store.get_card(user, "nope") is None


def test_cards_are_kept_apart_per_user(store):
    alice = scope_of(store.ensure_user("alice", now=T0))
    bob = scope_of(store.ensure_user("bob", now=T0))
    store.record_review(alice, card("q-1"), review("q-1", T0))
    assert store.get_card(bob, "q-1") is None
    assert list(store.iter_reviews(bob)) == []


def test_due_cards_are_ordered_by_due_then_id_and_paged(store):
    user = scope_of(store.ensure_user("local", now=T0))
    for name, hours in [("b", 2), ("a", 2), ("c", 1), ("late", 48)]:
        store.record_review(user, card(name, due=T0 + timedelta(hours=hours)), review(name, T0))
    due_by = T0 + timedelta(hours=3)
    assert [c.item_id for c in store.due_cards(user, due_by=due_by, offset=0, limit=10)] == [
        "c",
        "a",
        "b",
    ]
    assert [c.item_id for c in store.due_cards(user, due_by=due_by, offset=1, limit=1)] == ["a"]


def test_studied_item_ids_leave_out_new_cards(store):
    user = scope_of(store.ensure_user("local", now=T0))
    store.record_review(user, card("seen"), review("seen", T0))
    store.replace_user_state(
        user, UserState(cards=[card("seen"), card("fresh", due=None, state=CardState.NEW)])
    )
    assert store.studied_item_ids(user) == {"seen"}


def test_count_reviews_on_counts_the_days_new_and_learned_first_reviews(store):
    user = scope_of(store.ensure_user("local", now=T0))
    store.record_review(user, card("a"), review("a", T0, state_before=CardState.NEW))
    store.record_review(user, card("b"), review("b", T0))
    store.record_review(user, card("b"), review("b", T0, first_of_day=False))
    store.record_review(
        user, card("c"), review("c", T0, state_before=CardState.LEARNING, first_of_day=True)
    )
    store.record_review(user, card("d"), review("d", T0 - timedelta(days=2)))
    assert store.count_reviews_on(user, T0.date()) == (1, 1)
    assert store.count_reviews_on(user, (T0 - timedelta(days=2)).date()) == (0, 1)
    assert store.count_reviews_on(user, (T0 - timedelta(days=1)).date()) == (0, 0)


def test_daily_stats_split_young_and_mature_first_reviews(store):
    user = scope_of(store.ensure_user("local", now=T0))
    day2 = T0 + timedelta(days=1)
    store.record_review(user, card("a"), review("a", T0, interval_before_days=5.0))
    store.record_review(user, card("b"), review("b", T0, interval_before_days=30.0, rating=1))
    store.record_review(user, card("b"), review("b", T0, first_of_day=False, rating=3))
    store.record_review(user, card("c"), review("c", day2, state_before=CardState.NEW))
    stats = store.daily_stats(user)
    assert [s.day for s in stats] == [date(2026, 11, 1), date(2026, 11, 2)]
    first = stats[0]
    assert (first.reviews, first.young_first, first.young_passed) == (3, 1, 1)
    assert (first.mature_first, first.mature_passed, first.duration_ms) == (1, 0, 12600)
    assert (stats[1].reviews, stats[1].new_items) == (1, 1)


def test_rating_counts_count_each_items_reviews_and_agains_as_the_log_changes(store):
    user = scope_of(store.ensure_user("local", now=T0))
    other = scope_of(store.ensure_user("other", now=T0))
    since = T0 - timedelta(days=1)
    store.record_review(user, card("a"), review("a", T0))
    store.record_review(user, card("b", state=CardState.LEARNING), review("b", T0, rating=1))
    store.record_review(user, card("b"), review("b", T0, first_of_day=False))
    store.record_review(other, card("b"), review("b", T0, rating=1))
    assert store.rating_counts(user, since=since) == {"a": (1, 0), "b": (2, 1)}
    later = T0 + timedelta(minutes=5)
    undone = store.record_review(user, card("b", due=later), review("b", later, rating=1))
    assert store.rating_counts(user, since=since)["b"] == (3, 2)
    store.undo_review(user, undone, card=card("b"))
    assert store.rating_counts(user, since=since) == {"a": (1, 0), "b": (2, 1)}
    assert store.rating_counts(other, since=since) == {"b": (1, 1)}


def test_rating_counts_leave_out_reviews_before_the_span(store):
    user = scope_of(store.ensure_user("local", now=T0))
    store.record_review(user, card("a"), review("a", T0 - timedelta(days=40), rating=1))
    store.record_review(user, card("a"), review("a", T0, first_of_day=False))
    assert store.rating_counts(user, since=T0 - timedelta(days=30)) == {"a": (1, 0)}
    assert store.rating_counts(user, since=T0 - timedelta(days=50)) == {"a": (2, 1)}


def test_settings_put_replaces_only_given_keys(store):
    user = scope_of(store.ensure_user("local", now=T0))
    store.put_settings(user.user_id, {"desired_retention": 0.85, "learning_steps_minutes": [1.0]})
    store.put_settings(user.user_id, {"desired_retention": 0.92})
    assert store.get_settings(user.user_id) == {
        "desired_retention": 0.92,
        "learning_steps_minutes": [1.0],
    }


def test_sessions_start_finish_and_list_with_merged_meta(store):
    user = scope_of(store.ensure_user("local", now=T0))
    session_id = store.start_session(
        user, SessionRecord(kind="quiz", started_at=T0, meta={"deck": "gpu"})
    )
    store.finish_session(session_id, ended_at=T0 + timedelta(minutes=5), meta={"score": 4})
    [listed] = store.list_sessions(user)
    assert listed.kind == "quiz"
    assert listed.ended_at == T0 + timedelta(minutes=5)
    assert listed.meta == {"deck": "gpu", "score": 4}
    store.record_review(user, card("a"), review("a", T0, session_id=session_id))
    assert [r.session_id for r in store.iter_reviews(user)] == [session_id]


def test_finish_unknown_session_raises_storage_error(store):
    store.ensure_user("local", now=T0)
    with pytest.raises(StorageError, match="No session 999"):
        store.finish_session(999, ended_at=T0, meta={})


def test_replace_user_state_swaps_everything_and_maps_sessions(store):
    user = scope_of(store.ensure_user("local", now=T0))
    store.record_review(user, card("old"), review("old", T0))
    store.put_settings(user.user_id, {"new_per_day": 5})
    state = UserState(
        cards=[card("x"), card("y", due=None, state=CardState.NEW)],
        sessions=[SessionRecord(kind="practice", started_at=T0, meta={"n": 1})],
        reviews=[review("x", T0, session_id=0), review("y", T0 + timedelta(seconds=1))],
        settings={"desired_retention": 0.8},
    )
    store.replace_user_state(user, state)
    assert [c.item_id for c in store.iter_cards(user)] == ["x", "y"]
    assert store.get_card(user, "old") is None
    [session] = store.list_sessions(user)
    reviews = list(store.iter_reviews(user))
    assert [r.item_id for r in reviews] == ["x", "y"]
    assert reviews[0].session_id == session.session_id
    assert reviews[1].session_id is None
    assert store.get_settings(user.user_id) == {"desired_retention": 0.8}


def test_reopened_store_keeps_everything(make_store):
    first = make_store()
    user = scope_of(first.ensure_user("local", now=T0))
    first.record_review(user, card("q-1"), review("q-1", T0))
    second = make_store()
    assert second.ensure_user("local", now=T0) == user.user_id
    assert second.get_card(user, "q-1") == card("q-1")
    assert len(list(second.iter_reviews(user))) == 1


def test_timestamps_come_back_in_utc_with_microseconds(store):
    user = scope_of(store.ensure_user("local", now=T0))
    store.record_review(user, card("q"), review("q", T0))
    [logged] = list(store.iter_reviews(user))
    assert logged.reviewed_at == T0
    assert logged.reviewed_at.tzinfo is UTC or logged.reviewed_at.utcoffset() == timedelta(0)
    assert store.get_card(user, "q").due.microsecond == 123456


def _saved(session_id, *, revision=0, position=0, at=T0, moves=()):
    from sysdrill.study.sessions.saved import SavedSession

    return SavedSession(
        session_id=session_id,
        kind="practice",
        options={"limit": 3, "title": "Practice"},
        item_ids=("q1", "q2", "q3"),
        started_at=T0,
        updated_at=at,
        position=position,
        moves=tuple(moves),
        revision=revision,
    )


def test_active_session_is_saved_updated_and_read_back(make_store):
    store = make_store()
    user = scope_of(store.ensure_user("local", now=T0))
    session_id = store.start_session(user, SessionRecord("practice", T0))
    store.put_active_session(user, _saved(session_id))
    moved = _saved(
        session_id,
        revision=1,
        position=1,
        at=T0 + timedelta(minutes=1),
        moves=[{"move": "rate", "value": "good", "at": T0.isoformat(), "review_id": 1}],
    )
    store.put_active_session(user, moved)
    assert make_store().get_active_session(user, session_id) == moved


def _moves(count: int, *, note: str = "plain"):
    # Text a JSON writer must escape, and a non-ASCII answer: appended text is measured in
    # characters by the database, not bytes.
    return [
        {"move": "answer", "value": f'{note} "{n}" \\ \u00e9t\u00e9 \u4e2d', "at": T0.isoformat()}
        for n in range(count)
    ]


def test_saves_that_add_their_moves_store_every_move(make_store):
    store = make_store()
    user = scope_of(store.ensure_user("local", now=T0))
    session_id = store.start_session(user, SessionRecord("practice", T0))
    store.put_active_session(user, _saved(session_id))
    moves = _moves(4)
    saves = [
        (1, 0),  # the first move, onto none
        (2, 1),  # one more
        (2, 2),  # none new (a save of the position only)
        (4, 2),  # two at once
    ]
    for revision, (count, stored) in enumerate(saves, start=1):
        saved = _saved(session_id, revision=revision, position=count, moves=moves[:count])
        store.put_active_session(user, saved, stored_moves=stored)
        assert make_store().get_active_session(user, session_id) == saved
    # A save that does not know what is stored writes the moves whole.
    whole = _saved(session_id, revision=5, position=1, moves=_moves(1, note="undone"))
    store.put_active_session(user, whole)
    assert make_store().get_active_session(user, session_id) == whole


def test_a_review_with_its_session_stores_its_move_with_the_review(store):
    user = scope_of(store.ensure_user("local", now=T0))
    store.record_review(user, card("q-1"), review("q-1", T0))  # settings stored once
    session_id = store.start_session(user, SessionRecord("practice", T0))
    store.put_active_session(user, _saved(session_id))
    first = _saved(session_id, revision=1, position=1, moves=_moves(2))
    store.put_active_session(user, first, stored_moves=0)
    moved = _with_move(first, 2)
    review_id = _rate_read_card(store, user, moved)
    assert store.get_active_session(user, session_id) == moved.with_last_review(review_id)


def test_active_session_stamp_is_its_revision_and_start_for_its_owner_only(store):
    user = scope_of(store.ensure_user("local", now=T0))
    other = scope_of(store.ensure_user("other", now=T0))
    session_id = store.start_session(user, SessionRecord("practice", T0))
    assert store.active_session_stamp(user, session_id) is None
    store.put_active_session(user, _saved(session_id))
    store.put_active_session(user, _saved(session_id, revision=1, position=1))
    assert store.active_session_stamp(user, session_id) == (1, T0)
    assert store.active_session_stamp(other, session_id) is None
    store.delete_active_session(user, session_id)
    assert store.active_session_stamp(user, session_id) is None


def test_stale_active_session_save_is_refused(store):
    from sysdrill.errors import StorageConflict

    user = scope_of(store.ensure_user("local", now=T0))
    session_id = store.start_session(user, SessionRecord("practice", T0))
    store.put_active_session(user, _saved(session_id))
    store.put_active_session(user, _saved(session_id, revision=1, position=1))
    with pytest.raises(StorageConflict, match="moved on by another request"):
        store.put_active_session(user, _saved(session_id, revision=1, position=2))
    with pytest.raises(StorageConflict):
        store.put_active_session(user, _saved(session_id))
    assert store.get_active_session(user, session_id).position == 1


def test_active_sessions_are_listed_latest_first_per_user_and_deleted(store):
    user = scope_of(store.ensure_user("local", now=T0))
    other = scope_of(store.ensure_user("other", now=T0))
    first = store.start_session(user, SessionRecord("practice", T0))
    second = store.start_session(user, SessionRecord("quiz", T0))
    theirs = store.start_session(other, SessionRecord("quiz", T0))
    store.put_active_session(user, _saved(first, at=T0 + timedelta(minutes=5)))
    store.put_active_session(user, _saved(second, at=T0 + timedelta(minutes=1)))
    store.put_active_session(other, _saved(theirs))
    assert [s.session_id for s in store.list_active_sessions(user)] == [first, second]
    assert store.get_active_session(user, theirs) is None
    store.delete_active_session(user, first)
    store.delete_active_session(user, first)
    assert [s.session_id for s in store.list_active_sessions(user)] == [second]
    assert [s.session_id for s in store.list_active_sessions(other)] == [theirs]


def test_replace_user_state_drops_sessions_in_progress(store):
    user = scope_of(store.ensure_user("local", now=T0))
    session_id = store.start_session(user, SessionRecord("practice", T0))
    store.put_active_session(user, _saved(session_id))
    store.replace_user_state(user, UserState())
    assert store.list_active_sessions(user) == []


def test_undo_review_restores_card_log_and_day_counters(store):
    user = scope_of(store.ensure_user("local", now=T0))
    before = card("q1")
    store.record_review(user, before, review("q1", T0))
    later = T0 + timedelta(hours=1)
    review_id = store.record_review(
        user,
        replace(before, reps=4, due=later + timedelta(days=9)),
        review("q1", later, first_of_day=False),
    )
    store.record_review(user, card("q2"), review("q2", later, state_before=CardState.NEW))
    undone = store.record_review(
        user, card("q3"), review("q3", later, state_before=CardState.NEW, duration_ms=100)
    )
    store.undo_review(user, review_id, card=before)
    store.undo_review(user, undone, card=None)
    assert store.get_card(user, "q1") == before
    assert store.get_card(user, "q3") is None
    assert [r.item_id for r in store.iter_reviews(user)] == ["q1", "q2"]
    [day] = store.daily_stats(user)
    assert (day.reviews, day.new_items, day.duration_ms) == (2, 1, 8400)
    assert store.count_reviews_on(user, T0.date()) == (1, 1)


def test_undo_of_unknown_review_raises_storage_error(store):
    user = scope_of(store.ensure_user("local", now=T0))
    with pytest.raises(StorageError, match="No review 42 to undo"):
        store.undo_review(user, 42, card=None)


def test_two_vaults_with_one_item_id_keep_separate_state(store):
    user_id = store.ensure_user("local", now=T0)
    first, second = scope_of(user_id, VaultId("first")), scope_of(user_id, VaultId("second"))
    studied = card("shared-0001")
    store.record_review(first, studied, review("shared-0001", T0))
    store.put_active_session(
        first, _saved(store.start_session(first, SessionRecord("practice", T0)))
    )
    assert store.get_card(second, "shared-0001") is None
    assert list(store.iter_cards(second)) == []
    assert list(store.iter_reviews(second)) == []
    assert store.studied_item_ids(second) == set()
    assert store.due_cards(second, due_by=T0 + timedelta(days=99), offset=0, limit=9) == []
    assert store.count_reviews_on(second, T0.date()) == (0, 0)
    assert store.daily_stats(second) == []
    assert store.list_sessions(second) == []
    assert store.list_active_sessions(second) == []
    assert store.get_card(first, "shared-0001") == studied


def test_replacing_one_vaults_state_leaves_the_other_vault_alone(store):
    user_id = store.ensure_user("local", now=T0)
    first, second = scope_of(user_id, VaultId("first")), scope_of(user_id, VaultId("second"))
    store.record_review(first, card("q"), review("q", T0))
    store.replace_user_state(second, UserState(cards=[card("other")]))
    assert [c.item_id for c in store.iter_cards(first)] == ["q"]
    assert [r.item_id for r in store.iter_reviews(first)] == ["q"]
    assert [c.item_id for c in store.iter_cards(second)] == ["other"]


def test_moving_vault_state_hands_everything_to_an_empty_vault(store):
    user_id = store.ensure_user("local", now=T0)
    old, new = scope_of(user_id, VaultId("old")), scope_of(user_id, VaultId("new"))
    store.record_review(old, card("q"), review("q", T0))
    store.put_active_session(old, _saved(store.start_session(old, SessionRecord("practice", T0))))
    assert store.move_vault_state(user_id, source=VaultId("old"), target=VaultId("new"))
    assert [c.item_id for c in store.iter_cards(new)] == ["q"]
    assert [r.item_id for r in store.iter_reviews(new)] == ["q"]
    assert [d.reviews for d in store.daily_stats(new)] == [1]
    assert len(store.list_sessions(new)) == len(store.list_active_sessions(new)) == 1
    assert list(store.iter_cards(old)) == [] and store.list_sessions(old) == []
    assert not store.move_vault_state(user_id, source=VaultId("old"), target=VaultId("new"))


def test_moving_vault_state_never_merges_into_a_vault_with_state(store):
    user_id = store.ensure_user("local", now=T0)
    old, new = scope_of(user_id, VaultId("old")), scope_of(user_id, VaultId("new"))
    store.record_review(old, card("q"), review("q", T0))
    store.record_review(new, card("r"), review("r", T0))
    assert not store.move_vault_state(user_id, source=VaultId("old"), target=VaultId("new"))
    assert [c.item_id for c in store.iter_cards(old)] == ["q"]
    assert [c.item_id for c in store.iter_cards(new)] == ["r"]


def test_reviews_of_one_day_add_up_in_its_counts(store):
    user = scope_of(store.ensure_user("local", now=T0))
    for n in range(3):
        at = T0 + timedelta(minutes=n)
        store.record_review(user, card(f"q-{n}"), review(f"q-{n}", at))
    store.record_review(user, card("q-0"), review("q-0", T0 + timedelta(days=1)))
    days = {day.day: day.reviews for day in store.daily_stats(user)}
    assert days == {T0.date(): 3, T0.date() + timedelta(days=1): 1}


# -- a review written with its session's save ------------------------------------------


def _with_move(saved, revision: int):
    move = {"move": "rate", "value": 3, "at": T0.isoformat(), "due": T0.isoformat()}
    return replace(saved, moves=(*saved.moves, move), revision=revision, position=revision)


def _rate_read_card(store, user, session):
    """Review q-1 a day after T0 from the card stored at T0, saving ``session``."""
    later = card("q-1", due=T0 + timedelta(days=9))
    rated = review("q-1", T0 + timedelta(days=1))
    read = _read(store, user, "q-1")
    return store.record_review(user, later, rated, read=read, session=session)


def test_a_review_with_its_session_writes_both_in_one_transaction(store):
    user = scope_of(store.ensure_user("local", now=T0))
    store.record_review(user, card("q-1"), review("q-1", T0))  # settings stored once
    session_id = store.start_session(user, SessionRecord("practice", T0))
    store.put_active_session(user, _saved(session_id))
    moved = _with_move(_saved(session_id), 1)
    review_id = _rate_read_card(store, user, moved)
    assert store.get_card(user, "q-1") == card("q-1", due=T0 + timedelta(days=9))
    assert [r.review_id for r in store.iter_reviews(user)][-1] == review_id
    assert store.get_active_session(user, session_id) == moved.with_last_review(review_id)
    assert sum(day.reviews for day in store.daily_stats(user)) == 2


def test_a_review_with_its_session_over_a_changed_card_writes_nothing(store):
    user = scope_of(store.ensure_user("local", now=T0))
    store.record_review(user, card("q-1"), review("q-1", T0))
    session_id = store.start_session(user, SessionRecord("practice", T0))
    store.put_active_session(user, _saved(session_id))
    with pytest.raises(CardChanged):
        store.record_review(
            user,
            card("q-1", due=T0 + timedelta(days=9)),
            review("q-1", T0 + timedelta(days=1)),
            read=ReadCard(None),  # read before the first review: the card changed since
            session=_with_move(_saved(session_id), 1),
        )
    assert store.get_card(user, "q-1") == card("q-1")
    assert len(list(store.iter_reviews(user))) == 1
    assert store.active_session_stamp(user, session_id) == (0, T0)


def test_a_review_with_a_session_moved_on_writes_nothing(store):
    from sysdrill.errors import StorageConflict

    user = scope_of(store.ensure_user("local", now=T0))
    store.record_review(user, card("q-1"), review("q-1", T0))
    session_id = store.start_session(user, SessionRecord("practice", T0))
    store.put_active_session(user, _saved(session_id))
    store.put_active_session(user, _saved(session_id, revision=1, position=1))
    with pytest.raises(StorageConflict, match="moved on by another request"):
        _rate_read_card(store, user, _with_move(_saved(session_id), 1))
    assert store.get_card(user, "q-1") == card("q-1")
    assert len(list(store.iter_reviews(user))) == 1
    assert sum(day.reviews for day in store.daily_stats(user)) == 1
    assert store.active_session_stamp(user, session_id) == (1, T0)


def test_undo_with_its_session_saves_the_moves_left(store):
    user = scope_of(store.ensure_user("local", now=T0))
    session_id = store.start_session(user, SessionRecord("practice", T0))
    store.put_active_session(user, _saved(session_id))
    moved = _with_move(_saved(session_id), 1)
    review_id = store.record_review(
        user, card("q-1"), review("q-1", T0), read=ReadCard(None), session=moved
    )
    rolled = _saved(session_id, revision=2, position=0)
    store.undo_review(user, review_id, card=None, session=rolled)
    assert store.get_active_session(user, session_id) == rolled
    assert list(store.iter_reviews(user)) == []


def test_a_long_log_reads_whole_and_in_order_across_the_store_s_blocks(store, monkeypatch):
    import sysdrill.storage.sql_store as sql_store

    monkeypatch.setattr(sql_store, "_REVIEWS_PER_READ", 3)  # several blocks, one partial
    user = scope_of(store.ensure_user("local", now=T0))
    other = scope_of(store.ensure_user("other", now=T0))
    at = [T0 + timedelta(minutes=n) for n in range(8)]
    written = []
    for n, moment in enumerate(at):
        # Another learner's reviews between this learner's: the blocks skip them.
        store.record_review(other, card(f"o-{n}"), review(f"o-{n}", moment))
        settings = {"desired_retention": 0.8 if n % 2 else 0.9}
        written.append(
            store.record_review(user, card(f"q-{n}"), review(f"q-{n}", moment, settings=settings))
        )
    read = list(store.iter_reviews(user))
    assert [r.review_id for r in read] == written
    assert [r.settings["desired_retention"] for r in read] == [0.9, 0.8] * 4
    assert len(list(store.iter_reviews(other))) == 8

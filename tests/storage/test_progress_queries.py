"""The progress report's store queries, run against the in-memory, SQLite and PostgreSQL stores."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

from sysdrill.study.card_figures import epoch_day, epoch_us
from sysdrill.study.card_state import CardRecord, CardState
from sysdrill.study.user_state import StudyScope, UserState, VaultId

T0 = datetime(2026, 11, 1, 9, 0, 0, 123456, tzinfo=UTC)
VAULT = VaultId("vault-a")


def _card(item_id: str, **changes) -> CardRecord:
    base = CardRecord(
        item_id=item_id,
        state=CardState.REVIEW,
        step=None,
        stability_days=12.5,
        difficulty=4.25,
        due=T0 + timedelta(days=2),
        last_review=T0 - timedelta(days=3),
        reps=3,
        lapses=1,
        never_seen=False,
    )
    return replace(base, **changes)


def _scope_with(store, cards: list[CardRecord], *, vault: VaultId = VAULT) -> StudyScope:
    scope = StudyScope(store.ensure_user("local", now=T0), vault)
    store.replace_user_state(scope, UserState(cards=cards))
    return scope


def test_seen_cards_give_each_reviewed_card_as_numbers_to_the_microsecond(store):
    last = datetime(2026, 10, 31, 23, 59, 59, 999999, tzinfo=UTC)
    long_ago = datetime(1969, 12, 31, 23, 59, 58, 500000, tzinfo=UTC)
    scope = _scope_with(
        store,
        [
            _card("a", last_review=last, lapses=2),
            _card("b", state=CardState.LEARNING, stability_days=None, last_review=None),
            _card("c", last_review=long_ago, lapses=0),
            _card("never", state=CardState.NEW, due=None, last_review=None, never_seen=True),
        ],
    )

    seen = sorted(store.seen_cards(scope))

    assert seen == [
        ("a", int(CardState.REVIEW), 12.5, epoch_us(last), 2),
        ("b", int(CardState.LEARNING), None, None, 1),
        ("c", int(CardState.REVIEW), 12.5, -1_500_000, 0),
    ]
    assert epoch_us(last) == 1_793_491_199_999_999


def test_seen_cards_keep_vaults_apart(store):
    scope = _scope_with(store, [_card("a")])
    other = _scope_with(store, [_card("b"), _card("c")], vault=VaultId("vault-b"))
    assert [card[0] for card in store.seen_cards(scope)] == ["a"]
    assert sorted(card[0] for card in store.seen_cards(other)) == ["b", "c"]


def test_due_days_count_cards_by_utc_due_day_before_the_bound(store):
    midnight = datetime(2026, 11, 3, tzinfo=UTC)
    scope = _scope_with(
        store,
        [
            _card("overdue", due=T0 - timedelta(days=40)),
            _card("last-moment", due=midnight - timedelta(microseconds=1)),
            _card("at-midnight", due=midnight),
            _card("same-day", due=midnight + timedelta(hours=23)),
            _card("learning", state=CardState.LEARNING, due=midnight + timedelta(minutes=5)),
            _card("new-with-due", state=CardState.NEW, due=midnight),
            _card("no-due", due=None),
            _card("at-bound", due=midnight + timedelta(days=5)),
            _card("past-bound", due=midnight + timedelta(days=9)),
        ],
    )

    counts = store.due_days(scope, before=midnight + timedelta(days=5))

    assert counts == {
        epoch_day((T0 - timedelta(days=40)).date()): 1,
        epoch_day(midnight.date()) - 1: 1,
        epoch_day(midnight.date()): 3,
    }


def test_due_days_of_an_empty_scope_are_empty(store):
    scope = StudyScope(store.ensure_user("local", now=T0), VAULT)
    assert store.due_days(scope, before=T0) == {}
    assert store.seen_cards(scope) == []


def test_forecast_cards_give_each_card_past_new_as_numbers_to_the_microsecond(store):
    due = datetime(2026, 11, 3, 23, 59, 59, 999999, tzinfo=UTC)
    scope = _scope_with(
        store,
        [
            _card("a", due=due),
            _card("b", state=CardState.LEARNING, step=1, stability_days=None, difficulty=None),
            _card("never", state=CardState.NEW, due=None, last_review=None, never_seen=True),
        ],
    )
    _scope_with(store, [_card("elsewhere")], vault=VaultId("vault-b"))

    cards = sorted(store.forecast_cards(scope))

    last = epoch_us(T0 - timedelta(days=3))
    assert cards == [
        ("a", int(CardState.REVIEW), None, 12.5, 4.25, epoch_us(due), last),
        ("b", int(CardState.LEARNING), 1, None, None, epoch_us(T0 + timedelta(days=2)), last),
    ]


def test_seen_counts_count_seen_and_mastered_cards_of_the_given_items_only(store):
    scope = _scope_with(
        store,
        [
            _card("bound", stability_days=21.0),
            _card("under", stability_days=20.999),
            _card("learning", state=CardState.LEARNING, stability_days=40.0),
            _card("unknown", stability_days=None),
            _card("never", state=CardState.NEW, never_seen=True, stability_days=50.0),
            _card("removed", stability_days=30.0),
        ],
    )
    _scope_with(store, [_card("bound", stability_days=99.0)], vault=VaultId("vault-b"))
    in_vault = {"bound", "under", "learning", "unknown", "never", "absent"}

    assert store.seen_counts(scope, in_vault, mastered_stability_days=21.0) == (4, 1)
    # The card of an item the vault lost counts once the vault has the item again.
    assert store.seen_counts(scope, in_vault | {"removed"}, mastered_stability_days=21.0) == (5, 2)
    assert store.seen_counts(scope, set(), mastered_stability_days=21.0) == (0, 0)

"""The dashboard's summary counted by the store equals the summary counted card by card.

Before the store counted seen and mastered cards (``seen_counts``), the summary read
every seen card's figures (``seen_cards``) and counted the vault's items in Python.
``_summary_counted_in_python`` is that computation; a seeded collection, with cards
of items the vault no longer has and every mastery edge, must give the same
summary on the in-memory, SQLite and PostgreSQL stores.
"""

from __future__ import annotations

import random
from dataclasses import astuple
from datetime import UTC, datetime, timedelta

import pytest

from sysdrill.content.models import Item
from sysdrill.study.card_state import CardRecord, CardState
from sysdrill.study.progress import MASTERED_STABILITY_DAYS, ProgressSummary, build_summary
from sysdrill.study.review_log import ReviewRecord
from sysdrill.study.settings import StudySettings
from sysdrill.study.user_state import StudyScope, UserState, VaultId

NOW = datetime(2026, 11, 21, 12, 30, 15, 654321, tzinfo=UTC)
SETTINGS = StudySettings()


def _items(count: int) -> list[Item]:
    return [Item.model_validate({"id": f"q-{n:04d}", "question": "?"}) for n in range(count)]


def _collection(item_ids: list[str], rng: random.Random) -> UserState:
    """A card for each id, its state, stability and first review drawn by ``rng``."""
    state = UserState()
    for n, item_id in enumerate(item_ids):
        last = NOW - timedelta(days=rng.randint(0, 90), seconds=rng.randint(0, 86_399))
        card = CardRecord(
            item_id=item_id,
            state=rng.choice(list(CardState)),
            step=None,
            # Exactly the mastery bound, just under it, none, or anything.
            stability_days=rng.choice(
                [MASTERED_STABILITY_DAYS, 20.999999, None, rng.uniform(0.1, 200)]
            ),
            difficulty=rng.uniform(1, 10),
            due=NOW + timedelta(days=rng.uniform(-20, 40)),
            last_review=last,
            reps=rng.randint(1, 20),
            lapses=rng.randint(0, 4),
            never_seen=n % 11 == 0,
        )
        state.cards.append(card)
        state.reviews.append(
            ReviewRecord(item_id, 3, "self", None, 1000, last, CardState.NEW, None, True, {})
        )
    state.reviews.sort(key=lambda review: review.reviewed_at)
    return state


def _summary_counted_in_python(store, scope, items) -> tuple[int, int]:
    """Seen and mastered items as the summary counted them before the store did."""
    cards = {card[0]: card for card in store.seen_cards(scope)}
    seen = mastered = 0
    for item in items:
        card = cards.get(item.id)
        if card is None:
            continue
        seen += 1
        _, state, stability_days, _, _ = card
        mastered += (
            state == int(CardState.REVIEW)
            and stability_days is not None
            and stability_days >= MASTERED_STABILITY_DAYS
        )
    return seen, mastered


def _build(store, scope, items, *, item_ids=None) -> ProgressSummary:
    return build_summary(store, scope, items, now=NOW, settings=SETTINGS, item_ids=item_ids)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_summary_counts_equal_the_item_by_item_count_with_cards_of_removed_items(
    store, seed: int
) -> None:
    rng = random.Random(seed)
    items = _items(300)
    held = [item.id for item in items[:250]] + [f"removed-{n}" for n in range(20)]
    scope = StudyScope(store.ensure_user("local", now=NOW), VaultId("v"))
    store.replace_user_state(scope, _collection(held, rng))

    summary = _build(store, scope, items)

    seen, mastered = _summary_counted_in_python(store, scope, items)
    assert (summary.items_seen, summary.items_mastered) == (seen, mastered)
    assert 0 < summary.items_mastered < summary.items_seen < 250
    assert summary.items_total == 300
    assert summary.reviews_total == len(held)
    # Given the vault's own index of ids, the figures are the same.
    by_id = {item.id: item for item in items}
    assert astuple(_build(store, scope, items, item_ids=by_id)) == astuple(summary)


def test_summary_counts_every_seen_card_when_the_vault_holds_all_their_items(store) -> None:
    rng = random.Random(7)
    items = _items(200)
    scope = StudyScope(store.ensure_user("local", now=NOW), VaultId("v"))
    store.replace_user_state(scope, _collection([item.id for item in items[:150]], rng))

    summary = _build(store, scope, items)

    assert (summary.items_seen, summary.items_mastered) == _summary_counted_in_python(
        store, scope, items
    )
    # Every eleventh card (n % 11 == 0) was never seen: 150 cards, 14 of them unseen.
    assert summary.items_seen == 136


def test_summary_of_a_learner_without_cards_counts_nothing(store) -> None:
    scope = StudyScope(store.ensure_user("local", now=NOW), VaultId("v"))

    summary = _build(store, scope, _items(5))

    assert (summary.items_total, summary.items_seen, summary.items_mastered) == (5, 0, 0)
    assert summary.reviews_total == 0 and summary.streak_days == 0

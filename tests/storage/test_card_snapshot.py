"""The progress figures a store keeps between calls follow every write of a card (issue 30).

The dashboard and the progress page read the seen cards, their counts and the due
days on every visit; a SQL store keeps what it read while the database says the
scope's cards are unchanged (``storage/card_snapshot.py``). These tests read the
figures, write, and read again, as the pages do between two reviews.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

from sysdrill.study.card_state import CardState
from sysdrill.study.ratings import Rating
from sysdrill.study.review_log import ReviewRecord
from sysdrill.study.scheduler import new_card, review_card
from sysdrill.study.settings import StudySettings
from sysdrill.study.user_state import StudyScope, UserState, VaultId

NOW = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)
SETTINGS = StudySettings()


def _review(item_id: str, at: datetime) -> ReviewRecord:
    return ReviewRecord(item_id, 3, "self", None, 1000, at, CardState.NEW, None, True, {})


def _figures(store, scope) -> tuple[object, ...]:
    """What the dashboard and the progress page read of the cards."""
    return (
        sorted(store.seen_cards(scope)),
        store.due_days(scope, before=NOW + timedelta(days=60)),
        store.seen_counts(scope, {"a", "b", "c"}, mastered_stability_days=21.0),
    )


def test_figures_read_again_follow_a_review_and_its_undo(store) -> None:
    scope = StudyScope(store.ensure_user("local", now=NOW), VaultId("v"))
    first = review_card(new_card("a"), Rating.GOOD, now=NOW, settings=SETTINGS)
    store.record_review(scope, first, _review("a", NOW))
    before = _figures(store, scope)
    assert _figures(store, scope) == before  # kept from this second read on

    later = NOW + timedelta(hours=1)
    second = review_card(new_card("b"), Rating.GOOD, now=later, settings=SETTINGS)
    review_id = store.record_review(scope, second, _review("b", later))
    seen, _, (seen_count, _) = _figures(store, scope)
    assert [card[0] for card in seen] == ["a", "b"] and seen_count == 2

    store.undo_review(scope, review_id, card=None)
    assert _figures(store, scope) == before


def test_figures_read_again_follow_a_replaced_study_state(store) -> None:
    scope = StudyScope(store.ensure_user("local", now=NOW), VaultId("v"))
    card = review_card(new_card("a"), Rating.GOOD, now=NOW, settings=SETTINGS)
    learned = replace(card, state=CardState.REVIEW, stability_days=30.0)
    store.replace_user_state(scope, UserState(cards=[learned], reviews=[_review("a", NOW)]))
    for _ in range(2):  # a figure is kept from its second read on
        assert _figures(store, scope)[2] == (1, 1)

    # The same card back in relearning: only its state differs.
    relearning = replace(learned, state=CardState.RELEARNING)
    store.replace_user_state(scope, UserState(cards=[relearning], reviews=[_review("a", NOW)]))
    seen, _, counts = _figures(store, scope)
    assert [row[1] for row in seen] == [int(CardState.RELEARNING)]
    assert counts == (1, 0)


def test_progress_report_read_again_follows_a_review_and_the_clock(store) -> None:
    """The report's counts are kept while the cards are unchanged; its recall is not."""
    from sysdrill.content.models import Item
    from sysdrill.study.progress import build_progress

    items = [
        Item.model_validate({"id": item_id, "question": "?", "topic": "links", "track": "cloud"})
        for item_id in ("a", "b", "c")
    ]
    scope = StudyScope(store.ensure_user("local", now=NOW), VaultId("v"))
    first = review_card(new_card("a"), Rating.GOOD, now=NOW, settings=SETTINGS)
    # Five reviews, one rated Again: enough for the topic to be ranked among the weakest.
    store.record_review(scope, first, replace(_review("a", NOW), rating=int(Rating.AGAIN)))
    for _ in range(4):
        store.record_review(scope, first, _review("a", NOW))

    def report(at: datetime) -> tuple[int, list[tuple[str, int, float]]]:
        built = build_progress(store, scope, items, now=at, settings=SETTINGS)
        return built.items_seen, [(t.topic, t.seen, t.mean_recall) for t in built.weakest_topics]

    later = NOW + timedelta(days=3)
    for _ in range(3):  # kept from the second read on
        seen, [(_, topic_seen, recall_now)] = report(NOW)
        assert (seen, topic_seen) == (1, 1)
    _, [(_, _, recall_later)] = report(later)
    assert recall_later < recall_now  # three days on, the same card is held less well

    second = review_card(new_card("b"), Rating.GOOD, now=later, settings=SETTINGS)
    store.record_review(scope, second, _review("b", later))
    seen, [(_, topic_seen, _)] = report(later)
    assert (seen, topic_seen) == (2, 2)


def test_seen_counts_read_again_leave_out_the_cards_of_items_a_vault_lost(store) -> None:
    """The dashboard's counts are asked again and again with each loaded vault's ids."""
    scope = StudyScope(store.ensure_user("local", now=NOW), VaultId("v"))
    for item_id in ("a", "b"):
        card = review_card(new_card(item_id), Rating.GOOD, now=NOW, settings=SETTINGS)
        store.record_review(scope, card, _review(item_id, NOW))
    vault_ids = {"a": 1, "b": 2}
    smaller_vault_ids = {"a": 1}
    for _ in range(3):
        assert store.seen_counts(scope, vault_ids, mastered_stability_days=21.0) == (2, 0)
        assert store.seen_counts(scope, smaller_vault_ids, mastered_stability_days=21.0) == (1, 0)

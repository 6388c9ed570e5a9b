"""Plans: practice puts due reviews before new items, quiz keeps deck order, daily is stable."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from sysdrill.content.enums import Track
from sysdrill.errors import ChainNotFound, DeckNotFound
from sysdrill.storage.memory import MemoryStudyStore
from sysdrill.study.filters import ItemFilter
from sysdrill.study.ratings import GradedBy, Rating
from sysdrill.study.service import StudyService
from sysdrill.study.sessions.lineups import (
    NEW_HELD_KEY,
    chain_plan,
    daily_listing,
    daily_plan,
    filter_meta,
    practice_plan,
    quiz_plan,
)
from sysdrill.study.sessions.new_items import NewItemAllowance
from sysdrill.study.sessions.state_machine import SessionKind
from sysdrill.study.user_state import VaultId

START = datetime(2026, 11, 21, 9, 0, tzinfo=UTC)


@pytest.fixture
def study():
    service = StudyService(MemoryStudyStore(), vault_id=VaultId("test"), now=START)
    yield service
    service.close()


def _ids(plan):
    return [item.id for item in plan.items]


def test_practice_puts_due_reviews_before_new_items(vault, study):
    study.record_review("c-l6-real", rating=Rating.GOOD, graded_by=GradedBy.SELF, now=START)
    later = START + timedelta(days=30)
    plan = practice_plan(
        study,
        vault.items,
        vault.decks,
        item_filter=ItemFilter(track=Track.CLOUD),
        now=later,
        limit=3,
    )
    assert _ids(plan) == ["c-l6-real", "c-l1-hbm", "c-l2-mc"]
    assert plan.title == "Practice: 3 items (1 due, 2 new)"
    assert plan.kind is SessionKind.PRACTICE
    assert plan.offer_chain and plan.repeat_again
    assert plan.meta == {"track": "cloud"}


def test_practice_respects_the_limit_and_the_new_item_cap(vault, study):
    study.update_settings(new_per_day=2)
    plan = practice_plan(
        study, vault.items, vault.decks, item_filter=ItemFilter(), now=START, limit=5
    )
    assert _ids(plan) == ["c-l1-hbm", "c-l2-mc"]
    plan = practice_plan(
        study, vault.items, vault.decks, item_filter=ItemFilter(), now=START, limit=1
    )
    assert _ids(plan) == ["c-l1-hbm"]


def test_practice_deck_filter_includes_items_listed_in_decks_yaml(vault, study):
    plan = practice_plan(
        study, vault.items, vault.decks, item_filter=ItemFilter(deck="ch26-quiz"), now=START
    )
    assert _ids(plan) == ["quiz-2", "quiz-1"]
    with pytest.raises(DeckNotFound):
        practice_plan(study, vault.items, vault.decks, item_filter=ItemFilter(deck="x"), now=START)


def test_quiz_plan_keeps_deck_order_and_title(vault):
    plan = quiz_plan(vault.items, vault.decks, "ch26-quiz")
    assert _ids(plan) == ["quiz-2", "quiz-1"]
    assert plan.title == "Quiz: Chapter 26 quiz (2 items)"
    assert not plan.offer_chain


def test_quiz_asks_the_whole_deck_when_the_days_new_items_are_used_up(vault, study):
    used_up = NewItemAllowance(per_day=20, done_today=20)
    plan = quiz_plan(vault.items, vault.decks, "ch26-quiz", study=study, new_items=used_up)
    assert _ids(plan) == ["quiz-2", "quiz-1"]
    assert plan.title == "Quiz: Chapter 26 quiz (2 items)"
    assert NEW_HELD_KEY not in plan.meta


def test_quiz_new_cap_is_the_learners_own_even_past_what_the_day_has_left(vault, study):
    study.record_review("quiz-2", rating=Rating.GOOD, graded_by=GradedBy.SELF, now=START)
    one_left = NewItemAllowance(per_day=20, done_today=19, session_cap=2)
    plan = quiz_plan(vault.items, vault.decks, "ch26-quiz", study=study, new_items=one_left)
    assert _ids(plan) == ["quiz-2", "quiz-1"]  # quiz-1, new, past the day's last one
    none_new = NewItemAllowance(per_day=20, done_today=0, session_cap=0)
    plan = quiz_plan(vault.items, vault.decks, "ch26-quiz", study=study, new_items=none_new)
    assert _ids(plan) == ["quiz-2"]  # the seen item stays
    assert plan.meta[NEW_HELD_KEY] == "1"


def test_chain_plan_walks_the_chain(vault):
    plan = chain_plan(vault.chains, vault.items, "hbm-basics")
    assert _ids(plan) == ["c-l1-hbm", "c-l2-mc", "c-l3-num"]
    assert plan.title == "Chain: HBM from recall to analysis (3 items)"
    with pytest.raises(ChainNotFound):
        chain_plan(vault.chains, vault.items, "nope")


def test_daily_is_the_same_all_day_and_drops_what_was_done_today(vault, study):
    plan, daily = daily_plan(study, vault.items, vault.decks, item_filter=ItemFilter(), now=START)
    evening, same = daily_plan(
        study, vault.items, vault.decks, item_filter=ItemFilter(), now=START + timedelta(hours=10)
    )
    assert [i.id for i in daily] == [i.id for i in same] and len(daily) == 3
    assert _ids(plan) == [i.id for i in daily]
    later, _ = daily_plan(
        study,
        vault.items,
        vault.decks,
        item_filter=ItemFilter(),
        now=START + timedelta(hours=1),
        done_ids={daily[0].id},
    )
    assert _ids(later) == [i.id for i in daily[1:]]
    assert later.title == plan.title == "Daily 2026-11-21"
    assert daily_listing(daily, {daily[0].id}).startswith(f"{daily[0].title} (done), ")


def test_daily_still_offers_an_item_reviewed_elsewhere_today(vault, study):
    _, daily = daily_plan(study, vault.items, vault.decks, item_filter=ItemFilter(), now=START)
    study.record_review(daily[0].id, rating=Rating.GOOD, graded_by=GradedBy.SELF, now=START)
    later, _ = daily_plan(
        study, vault.items, vault.decks, item_filter=ItemFilter(), now=START + timedelta(hours=1)
    )
    assert _ids(later) == [i.id for i in daily]


def test_filter_meta_lists_only_set_criteria():
    assert filter_meta(ItemFilter(track=Track.EDGE, tag="hbm")) == {"track": "edge", "tag": "hbm"}

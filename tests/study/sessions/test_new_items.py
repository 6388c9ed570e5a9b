"""New-item allowance: the daily limit, the session's cap and what is held back."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from types import SimpleNamespace

from tests.study.sessions.conftest import FakeClock, ListRecorder

from sysdrill.storage.memory import MemoryStudyStore
from sysdrill.study.filters import ItemFilter
from sysdrill.study.ratings import GradedBy, Rating
from sysdrill.study.service import StudyService
from sysdrill.study.sessions.chains import ChainIndex
from sysdrill.study.sessions.lineups import practice_plan
from sysdrill.study.sessions.new_items import (
    ChainNewLimit,
    NewItemAllowance,
    chain_new_limit,
    hold_back_new,
    new_item_allowance,
)
from sysdrill.study.sessions.state_machine import Phase, Session
from sysdrill.study.user_state import VaultId

T0 = datetime(2026, 11, 21, 9, 0, tzinfo=UTC)


def test_the_session_cap_never_exceeds_what_the_day_has_left() -> None:
    assert NewItemAllowance(per_day=20, done_today=5).for_session == 15
    assert NewItemAllowance(per_day=20, done_today=5, session_cap=3).for_session == 3
    assert NewItemAllowance(per_day=20, done_today=18, session_cap=5).for_session == 2
    assert NewItemAllowance(per_day=20, done_today=25).left_today == 0
    assert NewItemAllowance(per_day=20, done_today=5).left_after(4) == 11


def test_hold_back_keeps_seen_items_and_the_first_new_ones_in_order() -> None:
    items = [SimpleNamespace(id=name) for name in ("n1", "s1", "n2", "s2", "n3")]
    kept, held = hold_back_new(items, is_new=lambda i: i.id.startswith("n"), allowed=1)
    assert [i.id for i in kept] == ["n1", "s1", "s2"]
    assert held == 2


def test_held_note_names_the_limit_that_held_items_back() -> None:
    by_day = NewItemAllowance(per_day=20, done_today=20)
    assert by_day.held_note(0) is None
    assert by_day.held_note(3) == (
        "3 new item(s) left for another day: today's 20 new items are used up "
        "(new items per day, in the settings)"
    )
    by_session = NewItemAllowance(per_day=20, done_today=0, session_cap=2)
    assert by_session.held_note(1) == "1 new item(s) left out: this session takes 2 new"
    # Both bind: the cap the learner chose is the one named.
    both = NewItemAllowance(per_day=20, done_today=20, session_cap=0)
    assert both.held_note(2) == "2 new item(s) left out: this session takes 0 new"


def test_allowance_counts_new_items_of_the_utc_day_only() -> None:
    study = StudyService(MemoryStudyStore(), vault_id=VaultId("test"), now=T0)
    yesterday = T0 - timedelta(days=1)
    study.record_review("a", rating=Rating.GOOD, graded_by=GradedBy.SELF, now=yesterday)
    study.record_review("b", rating=Rating.GOOD, graded_by=GradedBy.SELF, now=T0)
    # A second review of an item met today is not a new item again.
    later = T0 + timedelta(minutes=20)
    study.record_review("b", rating=Rating.GOOD, graded_by=GradedBy.SELF, now=later)
    allowance = new_item_allowance(study, per_day=5, now=later)
    assert (allowance.done_today, allowance.left_today) == (1, 4)


def _items(*ids: str) -> list[SimpleNamespace]:
    return [SimpleNamespace(id=name) for name in ids]


def test_a_chain_offer_of_a_seen_item_is_always_allowed() -> None:
    limit = ChainNewLimit(new_ids=frozenset({"n1"}), extra=0)
    assert limit.may_offer("s1", queue=_items("a"), planned=_items("a"))


def test_a_new_chain_item_already_in_the_session_is_offered_without_spending_allowance() -> None:
    limit = ChainNewLimit(new_ids=frozenset({"n1"}), extra=0)
    assert limit.may_offer("n1", queue=_items("a", "n1"), planned=_items("a", "n1"))


def test_new_chain_items_are_offered_until_the_extra_allowance_is_spent() -> None:
    limit = ChainNewLimit(new_ids=frozenset({"n1", "n2", "n3"}), extra=2)
    planned = _items("a")
    assert limit.may_offer("n1", queue=_items("a"), planned=planned)
    assert limit.may_offer("n2", queue=_items("a", "n1"), planned=planned)
    assert not limit.may_offer("n3", queue=_items("a", "n1", "n2"), planned=planned)


def test_chain_limit_spends_what_the_plan_left_of_the_allowance() -> None:
    allowance = NewItemAllowance(per_day=10, done_today=4, session_cap=5)
    limit = chain_new_limit(
        ["n1", "s1", "n2"], is_new=lambda i: i.startswith("n"), allowance=allowance, planned_new=3
    )
    assert limit == ChainNewLimit(new_ids=frozenset({"n1", "n2"}), extra=2)
    used_up = chain_new_limit(["n1"], is_new=lambda i: True, allowance=allowance, planned_new=6)
    assert used_up.extra == 0
    assert ChainNewLimit.from_dict(limit.to_dict()) == limit


def _practice(vault, study: StudyService, *, limit: int) -> Session:
    allowance = new_item_allowance(study, per_day=study.settings.new_per_day, now=T0)
    chains = ChainIndex(vault.chains, vault.items)
    plan = practice_plan(
        study,
        vault.items,
        vault.decks,
        item_filter=ItemFilter(),
        now=T0,
        limit=limit,
        new_items=allowance,
        chains=chains,
    )
    return Session(plan, recorder=ListRecorder(), clock=FakeClock(T0), chains=chains)


def test_practice_offers_no_new_chain_item_once_the_day_allows_no_more(vault) -> None:
    study = StudyService(MemoryStudyStore(), vault_id=VaultId("test"), now=T0)
    study.update_settings(new_per_day=1)
    session = _practice(vault, study, limit=5)
    assert [item.id for item in session.queue] == ["c-l1-hbm"]

    session.answer("80 GB")
    session.rate(Rating.GOOD)

    assert session.chain_offer is None  # c-l2-mc is new and the day's one new item is used
    assert session.phase is Phase.DONE


def test_practice_offers_new_chain_items_while_the_day_has_room(vault) -> None:
    study = StudyService(MemoryStudyStore(), vault_id=VaultId("test"), now=T0)
    study.update_settings(new_per_day=2)
    session = _practice(vault, study, limit=1)
    assert [item.id for item in session.queue] == ["c-l1-hbm"]

    session.answer("80 GB")
    session.rate(Rating.GOOD)
    assert session.chain_offer is not None and session.chain_offer.item.id == "c-l2-mc"
    session.follow_chain(True)
    session.answer("c")

    # c-l3-num would be a third new item on a day that allows two.
    assert session.chain_offer is None
    assert session.phase is Phase.DONE


def test_practice_still_offers_a_chain_item_seen_before_when_no_new_is_left(vault) -> None:
    study = StudyService(MemoryStudyStore(), vault_id=VaultId("test"), now=T0)
    yesterday = T0 - timedelta(days=1)  # rated Easy: not due again for days
    study.record_review("c-l2-mc", rating=Rating.EASY, graded_by=GradedBy.SELF, now=yesterday)
    study.update_settings(new_per_day=1)
    session = _practice(vault, study, limit=1)
    assert [item.id for item in session.queue] == ["c-l1-hbm"]

    session.answer("80 GB")
    session.rate(Rating.GOOD)

    assert session.chain_offer is not None and session.chain_offer.item.id == "c-l2-mc"


def test_a_saved_session_keeps_its_chain_limit(tmp_path) -> None:
    import json

    from tests.study.sessions.conftest import VAULT_DIR

    from sysdrill.app.live_session import plan_options, restore_plan
    from sysdrill.app.study_vault import open_study_vault
    from sysdrill.study.sessions.saved import SavedSession
    from sysdrill.study.user_state import SessionId

    vault = open_study_vault(VAULT_DIR, cache_dir=tmp_path)
    study = StudyService(MemoryStudyStore(), vault_id=VaultId("test"), now=T0)
    study.update_settings(new_per_day=2)
    plan = _practice(vault, study, limit=1).plan
    # The ids a chain offer can name from the planned item, not every chain member.
    assert plan.chain_new_limit == ChainNewLimit(frozenset({"c-l2-mc", "c-l3-num"}), 1)
    saved = SavedSession(
        session_id=SessionId(1),
        kind=plan.kind.value,
        options=json.loads(json.dumps(plan_options(plan, {}))),
        item_ids=tuple(item.id for item in plan.items),
        started_at=T0,
        updated_at=T0,
    )

    assert restore_plan(saved, vault).chain_new_limit == plan.chain_new_limit

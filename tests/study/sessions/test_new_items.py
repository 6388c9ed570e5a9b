"""New-item allowance: the daily limit, the session's cap and what is held back."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from types import SimpleNamespace

from sysdrill.storage.memory import MemoryStudyStore
from sysdrill.study.ratings import GradedBy, Rating
from sysdrill.study.service import StudyService
from sysdrill.study.sessions.new_items import NewItemAllowance, hold_back_new, new_item_allowance
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
        "3 new item(s) left for another day: today's 20 new items are used up (setting new_per_day)"
    )
    by_session = NewItemAllowance(per_day=20, done_today=0, session_cap=2)
    assert by_session.held_note(1) == "1 new item(s) left out: this session takes 2 new (--new)"


def test_allowance_counts_new_items_of_the_utc_day_only() -> None:
    study = StudyService(MemoryStudyStore(), vault_id=VaultId("test"), now=T0)
    yesterday = T0 - timedelta(days=1)
    study.record_review("a", rating=Rating.GOOD, graded_by=GradedBy.SELF, now=yesterday)
    study.record_review("b", rating=Rating.GOOD, graded_by=GradedBy.SELF, now=T0)
    # A second review of an item met today is not a new item again.
    later = T0 + timedelta(minutes=20)
    study.record_review("b", rating=Rating.GOOD, graded_by=GradedBy.SELF, now=later)
    allowance = new_item_allowance(study.store, study.scope, per_day=5, now=later)
    assert (allowance.done_today, allowance.left_today) == (1, 4)

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from sysdrill.content.enums import Track
from sysdrill.errors import SchedulingError
from sysdrill.storage.memory import MemoryStudyStore
from sysdrill.study.card_state import CardState
from sysdrill.study.service import GradedBy, ItemFilter, Rating, StudyService
from sysdrill.study.user_state import VaultId

T0 = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)


def _ids(items):
    return [item.id for item in items]


def _graduate(study, item_id, now=T0):
    return study.record_review(item_id, rating=Rating.EASY, graded_by=GradedBy.SELF, now=now)


def test_new_items_come_in_vault_order(study, make_item):
    items = [make_item(f"q{i}") for i in range(5)]
    assert _ids(study.next_items(items, now=T0, limit=3)) == ["q0", "q1", "q2"]


def test_due_reviews_come_before_new_items(study, make_item):
    items = [make_item(f"q{i}") for i in range(4)]
    outcome = _graduate(study, "q3")
    later = outcome.due + timedelta(hours=1)
    assert _ids(study.next_items(items, now=later, limit=2)) == ["q3", "q0"]


def test_items_not_due_are_not_offered(study, make_item):
    items = [make_item("q0")]
    outcome = _graduate(study, "q0")
    study.update_settings(new_per_day=0)
    assert study.next_items(items, now=outcome.due - timedelta(hours=1)) == []
    assert _ids(study.next_items(items, now=outcome.due)) == ["q0"]


def test_new_items_stop_at_the_daily_limit(study, make_item):
    study.update_settings(new_per_day=2)
    items = [make_item(f"q{i}") for i in range(5)]
    study.record_review("q0", rating=Rating.GOOD, graded_by=GradedBy.SELF, now=T0)
    # q0 is now learning (due in 10 minutes); one new item is left for today.
    assert _ids(study.next_items(items, now=T0, limit=10)) == ["q1"]
    assert _ids(study.next_items(items, now=T0 + timedelta(days=1), limit=10)) == [
        "q0",
        "q1",
        "q2",
    ]


def test_reviews_stop_at_the_daily_limit(study, make_item):
    study.update_settings(reviews_per_day=1, new_per_day=0)
    items = [make_item("a"), make_item("b")]
    first = _graduate(study, "a")
    _graduate(study, "b")
    day = first.due + timedelta(days=3)
    assert len(study.next_items(items, now=day, limit=10)) == 1
    study.record_review("a", rating=Rating.GOOD, graded_by=GradedBy.SELF, now=day)
    assert study.next_items(items, now=day + timedelta(minutes=1), limit=10) == []


def test_filters_limit_due_and_new_items(study, make_item):
    items = [make_item("c1", track="cloud"), make_item("e1", track="edge")]
    chosen = study.next_items(items, now=T0, filters=ItemFilter(track=Track.EDGE))
    assert _ids(chosen) == ["e1"]


def test_zero_limit_returns_nothing(study, make_item):
    assert study.next_items([make_item("a")], now=T0, limit=0) == []


def test_record_review_returns_next_due_and_is_logged(study):
    outcome = study.record_review(
        "q",
        rating=Rating.GOOD,
        graded_by=GradedBy.NUMERIC,
        answer="3.6 ms",
        duration_ms=2500,
        now=T0,
    )
    assert outcome.previous_state is CardState.NEW
    assert outcome.due == T0 + timedelta(minutes=10)
    assert outcome.interval_days == pytest.approx(10 / 1440)
    [logged] = list(study.store.iter_reviews(study.scope))
    assert (logged.answer, logged.graded_by, logged.duration_ms) == ("3.6 ms", "numeric", 2500)
    assert logged.settings["desired_retention"] == 0.9
    assert logged.review_id == outcome.review_id


def test_a_review_from_a_card_read_earlier_uses_it_while_it_is_stored(study):
    read = study.cards_of(["q"])
    assert read["q"].card is None
    first = study.record_review(
        "q", rating=Rating.GOOD, graded_by=GradedBy.SELF, now=T0, read=read["q"]
    )
    assert first.card_before is None
    assert study.card_state("q") == first.card


def test_a_review_from_a_card_read_before_another_review_is_refused(study):
    from sysdrill.errors import CardChanged

    stale = study.cards_of(["q"])["q"]  # then another session of the learner reviews q
    _graduate(study, "q")
    at = T0 + timedelta(days=30)
    with pytest.raises(CardChanged, match="Reload the session"):
        study.record_review("q", rating=Rating.GOOD, graded_by=GradedBy.SELF, now=at, read=stale)
    assert study.card_state("q").reps == 1
    assert len(list(study.store.iter_reviews(study.scope))) == 1


def test_record_review_rejects_naive_time_and_negative_duration(study):
    with pytest.raises(SchedulingError, match="timezone-aware"):
        study.record_review(
            "q", rating=Rating.GOOD, graded_by=GradedBy.SELF, now=datetime(2026, 1, 1)
        )
    with pytest.raises(SchedulingError, match="duration_ms must be 0 or more"):
        study.record_review(
            "q", rating=Rating.GOOD, graded_by=GradedBy.SELF, duration_ms=-5, now=T0
        )
    assert list(study.store.iter_reviews(study.scope)) == []


def test_card_state_of_unseen_item_is_new_and_never_seen(study):
    card = study.card_state("unseen")
    assert (card.state, card.never_seen, card.due) == (CardState.NEW, True, None)


def test_settings_changes_are_stored_and_reloaded():
    store = MemoryStudyStore()
    first = StudyService(store, vault_id=VaultId("test"), now=T0)
    first.set_setting("desired_retention", "0.85")
    first.update_settings(new_per_day=3)
    again = StudyService(store, vault_id=VaultId("test"), now=T0)
    assert (again.settings.desired_retention, again.settings.new_per_day) == (0.85, 3)


def test_invalid_setting_is_not_stored(study):
    with pytest.raises(SchedulingError):
        study.set_setting("desired_retention", "1.5")
    assert study.settings.desired_retention == 0.9
    assert "desired_retention" not in study.store.get_settings(study.user_id)


def test_session_reviews_are_linked_and_summary_kept(study):
    session = study.start_session("quiz", now=T0, meta={"deck": "gpu"})
    study.record_review(
        "q", rating=Rating.GOOD, graded_by=GradedBy.MULTIPLE_CHOICE, now=T0, session_id=session
    )
    study.finish_session(session, now=T0 + timedelta(minutes=3), summary={"score": 1})
    [stored] = study.sessions()
    assert stored.meta == {"deck": "gpu", "score": 1}
    assert [r.session_id for r in study.store.iter_reviews(study.scope)] == [session]


def test_deadline_eve_brings_back_items_due_after_the_interview(study, make_item):
    items = [make_item("far")]
    _graduate(study, "far", now=T0 - timedelta(days=20))
    study.update_settings(deadline=(T0 + timedelta(days=1)).date(), new_per_day=0)
    assert _ids(study.next_items(items, now=T0)) == ["far"]
    study.record_review("far", rating=Rating.GOOD, graded_by=GradedBy.SELF, now=T0)
    assert study.next_items(items, now=T0 + timedelta(hours=1)) == []


def test_final_pass_offers_each_day_its_share_not_every_item_on_the_eve(study, make_item):
    items = [make_item(f"far{n:02d}") for n in range(70)]
    for item in items:
        first = _graduate(study, item.id, now=T0 - timedelta(days=60))
        assert _graduate(study, item.id, now=first.due).due > T0 + timedelta(days=7)
    study.update_settings(deadline=(T0 + timedelta(days=7)).date(), new_per_day=0)
    first_day = _ids(study.next_items(items, now=T0, limit=100))
    assert 0 < len(first_day) < 30
    for item_id in first_day:
        study.record_review(item_id, rating=Rating.GOOD, graded_by=GradedBy.SELF, now=T0)
    # Reviewed in the pass: not offered again before the interview.
    later = _ids(study.next_items(items, now=T0 + timedelta(days=3), limit=100))
    assert not set(first_day) & set(later)


def test_deadline_workload_counts_items_in_scope(study, make_item):
    items = [make_item("a", track="cloud"), make_item("b", track="edge")]
    study.update_settings(deadline=(T0 + timedelta(days=3)).date())
    workload = study.deadline_workload(items, now=T0, filters=ItemFilter(track=Track.CLOUD))
    assert [w.new_items for w in workload] == [1, 0, 0]


def test_due_items_outside_the_filter_are_paged_past(study, make_item):
    others = [make_item(f"o{i:02d}", track="edge") for i in range(30)]
    wanted = make_item("w", track="cloud")
    for item in others:
        _graduate(study, item.id, now=T0 - timedelta(days=30))
    _graduate(study, "w", now=T0 - timedelta(days=20))
    chosen = study.next_items(
        [*others, wanted], now=T0, filters=ItemFilter(track=Track.CLOUD), limit=1
    )
    assert _ids(chosen) == ["w"]


def test_public_names_of_the_study_modules_exist():
    import importlib

    for name in (
        "sysdrill.study.service",
        "sysdrill.study.grading",
        "sysdrill.study.progress",
        "sysdrill.study.deadline",
        "sysdrill.study.state_io",
        "sysdrill.study.staffml_progress",
        "sysdrill.study.settings",
        "sysdrill.study.scheduler",
        "sysdrill.study.optimizer",
        "sysdrill.storage.sql_store",
        "sysdrill.storage.memory",
        "sysdrill.study.card_state",
        "sysdrill.study.review_log",
        "sysdrill.study.user_state",
        "sysdrill.study.store",
        "sysdrill.study.workload",
        "sysdrill.app.study",
        "sysdrill.app.build",
    ):
        module = importlib.import_module(name)
        missing = [attr for attr in module.__all__ if not hasattr(module, attr)]
        assert missing == [], name


def test_learning_steps_are_not_held_back_by_the_review_limit(study, make_item):
    study.update_settings(reviews_per_day=0, new_per_day=0)
    items = [make_item(f"r{i:02d}") for i in range(40)] + [make_item("learning")]
    for item in items[:-1]:
        _graduate(study, item.id, now=T0 - timedelta(days=60))
    step = study.record_review(
        "learning", rating=Rating.AGAIN, graded_by=GradedBy.SELF, now=T0 - timedelta(minutes=5)
    )
    assert step.card.state is CardState.LEARNING
    assert _ids(study.next_items(items, now=T0, limit=5)) == ["learning"]


def test_services_of_two_vaults_share_settings_but_not_cards(make_item):
    store = MemoryStudyStore()
    first = StudyService(store, vault_id=VaultId("first"), now=T0)
    second = StudyService(store, vault_id=VaultId("second"), now=T0)
    first.update_settings(desired_retention=0.85)
    first.record_review("shared", rating=Rating.GOOD, graded_by=GradedBy.SELF, now=T0)
    items = [make_item("shared")]
    assert second.card_state("shared").state is CardState.NEW
    assert _ids(second.next_items(items, now=T0, limit=5)) == ["shared"]
    again = StudyService(store, vault_id=VaultId("second"), now=T0)
    assert again.settings.desired_retention == 0.85


def test_adopting_another_vaults_state_takes_it_over_once(make_item):
    store = MemoryStudyStore()
    old = StudyService(store, vault_id=VaultId("old"), now=T0)
    old.record_review("q", rating=Rating.GOOD, graded_by=GradedBy.SELF, now=T0)
    new = StudyService(store, vault_id=VaultId("new"), now=T0)
    assert new.card_state("q").reps == 0
    assert new.adopt_state(VaultId("old"))
    assert new.card_state("q").reps == 1
    assert old.card_state("q").reps == 0
    assert not new.adopt_state(VaultId("old"))

"""Suspend, bury and an item's history as the app's use cases, with the time injected."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from sysdrill.app import sessions as app
from sysdrill.app.item_actions import (
    HistoryEntry,
    bury_item,
    item_history,
    item_status,
    suspend_item,
    unbury_item,
    unsuspend_item,
)
from sysdrill.app.session_lineups import StartOptions, assemble_lineup
from sysdrill.errors import QuestionNotFound, SchedulingError, UsageError
from sysdrill.study.filters import ItemFilter
from sysdrill.study.service import StudyService
from sysdrill.study.sessions.state_machine import SessionKind

T0 = datetime(2026, 11, 21, 22, 30, tzinfo=UTC)
CARDS = ItemFilter(deck="dp-cards")


def _planned(study, vault, kind: SessionKind, *, now: datetime) -> list[str]:
    options = StartOptions(kind, CARDS if kind is not SessionKind.DAILY else ItemFilter())
    return [item.id for item in assemble_lineup(study, vault, options, now=now).plan.items]


def test_a_suspended_item_stays_out_of_practice_quiz_and_daily(study, vault):
    daily_before = _planned(study, vault, SessionKind.DAILY, now=T0)
    for item_id in ("fc-2", daily_before[0]):
        suspend_item(study, vault, item_id, now=T0)
    later = T0 + timedelta(days=30)
    assert _planned(study, vault, SessionKind.PRACTICE, now=later) == ["fc-1", "fc-3"]
    assert _planned(study, vault, SessionKind.QUIZ, now=later) == ["fc-1", "fc-3"]
    daily = _planned(study, vault, SessionKind.DAILY, now=T0)
    assert daily_before[0] not in daily and len(daily) == len(daily_before)

    unsuspend_item(study, vault, "fc-2", now=later)
    assert _planned(study, vault, SessionKind.QUIZ, now=later) == ["fc-1", "fc-2", "fc-3"]


def test_a_buried_item_comes_back_at_the_next_utc_midnight(study, vault):
    status = bury_item(study, vault, "fc-1", now=T0)
    assert status.buried_until == datetime(2026, 11, 22, tzinfo=UTC)
    assert status.message == "Buried fc-1. Buried until 2026-11-22 00:00 UTC."
    before_midnight = T0 + timedelta(minutes=89)
    assert _planned(study, vault, SessionKind.PRACTICE, now=before_midnight) == ["fc-2", "fc-3"]
    midnight = datetime(2026, 11, 22, tzinfo=UTC)
    assert _planned(study, vault, SessionKind.PRACTICE, now=midnight) == ["fc-1", "fc-2", "fc-3"]
    assert item_status(study, vault, "fc-1", now=midnight).buried_until is None
    with pytest.raises(UsageError, match="is not buried"):
        unbury_item(study, vault, "fc-1", now=midnight)


def test_unbury_lets_the_item_come_up_the_same_day(study, vault):
    bury_item(study, vault, "fc-1", now=T0)
    unbury_item(study, vault, "fc-1", now=T0)
    assert _planned(study, vault, SessionKind.PRACTICE, now=T0) == ["fc-1", "fc-2", "fc-3"]


def test_one_learners_flags_do_not_reach_another(vault):
    from sysdrill.storage.memory import MemoryStudyStore
    from sysdrill.study.user_state import VaultId

    store = MemoryStudyStore()
    ada = StudyService(store, user="ada", vault_id=VaultId("test"), now=T0)
    bob = StudyService(store, user="bob", vault_id=VaultId("test"), now=T0)
    suspend_item(ada, vault, "fc-1", now=T0)
    assert _planned(bob, vault, SessionKind.QUIZ, now=T0) == ["fc-1", "fc-2", "fc-3"]
    assert _planned(ada, vault, SessionKind.QUIZ, now=T0) == ["fc-2", "fc-3"]


def _quiz(study, vault, ratings: list[str], *, now: datetime) -> None:
    """Rate the dp-cards quiz's first items, one rating each, all at ``now``."""
    view = app.start_session(study, vault, StartOptions(SessionKind.QUIZ, CARDS), now=now)
    for rating in ratings:
        app.reveal(study, vault, view.session_id, now=now)
        view = app.rate(study, vault, view.session_id, rating, now=now)


def test_history_gives_each_reviews_rating_and_the_interval_it_scheduled(study, vault):
    _quiz(study, vault, ["again", "good", "hard"], now=T0)
    history = item_history(study, vault, "fc-1", now=T0)
    [entry] = history.entries
    assert (entry.rating, entry.graded_by, entry.reviewed_at) == ("Again", "self", T0)
    card = study.store.get_card(study.scope, "fc-1")
    assert card.due == T0 + timedelta(minutes=1)
    assert entry.interval_days == 1 / (24 * 60)  # the learning step, not rounded to 0
    assert entry.interval_text == "1 min"
    assert history.due == card.due
    assert history.to_dict()["reviews"][0] == {
        "reviewed_at": T0.isoformat(),
        "rating": "Again",
        "interval_days": entry.interval_days,
        "interval": "1 min",
        "graded_by": "self",
    }
    [good] = item_history(study, vault, "fc-2", now=T0).entries
    assert (good.rating, good.interval_text) == ("Good", "10 min")  # not 14 min (0.01 day)
    [hard] = item_history(study, vault, "fc-3", now=T0).entries
    assert (hard.rating, hard.interval_text) == ("Hard", "6 min")


def test_history_takes_each_earlier_interval_from_the_review_after_it(study, vault):
    _quiz(study, vault, ["good"], now=T0)
    ten_minutes_on = T0 + timedelta(minutes=10)
    _quiz(study, vault, ["good"], now=ten_minutes_on)
    first, second = item_history(study, vault, "fc-1", now=ten_minutes_on).entries
    assert (first.reviewed_at, first.interval_text) == (T0, "10 min")
    assert first.interval_days * 24 * 60 == pytest.approx(10, abs=1e-9)
    card = study.store.get_card(study.scope, "fc-1")
    scheduled = card.due - ten_minutes_on
    assert scheduled >= timedelta(days=1)  # Good on the last learning step graduates it
    assert second.interval_days == scheduled / timedelta(days=1)
    assert second.interval_text == f"{round(scheduled / timedelta(days=1))} days"


@pytest.mark.parametrize(
    ("interval_days", "shown"),
    [
        (None, "-"),
        (30 / 86_400, "1 min"),
        (59 / (24 * 60), "59 min"),
        (5 / 24, "5 h"),
        (1.0, "1 day"),
        (12.4, "12 days"),
    ],
)
def test_a_history_interval_reads_in_minutes_hours_or_days(interval_days, shown):
    entry = HistoryEntry(T0, "Good", interval_days, "self")
    assert entry.interval_text == shown
    assert entry.to_dict()["interval"] == shown


def test_an_unknown_item_or_a_local_time_is_refused(study, vault):
    with pytest.raises(QuestionNotFound, match="no item with id 'fc-9'"):
        suspend_item(study, vault, "fc-9", now=T0)
    with pytest.raises(QuestionNotFound):
        item_history(study, vault, "nope", now=T0)
    with pytest.raises(SchedulingError):
        bury_item(study, vault, "fc-1", now=datetime(2026, 11, 21, 9, 0))

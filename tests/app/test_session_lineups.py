"""The daily set's "done today", read from the review log: what undo takes back is asked again."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sysdrill.app import sessions as app
from sysdrill.app.review_undo import undo_last_review
from sysdrill.app.session_lineups import (
    AssembledPlan,
    StartOptions,
    assemble_lineup,
    daily_done_today,
)
from sysdrill.study.filters import ItemFilter
from sysdrill.study.sessions.state_machine import SessionKind

T0 = datetime(2026, 11, 21, 9, 0, tzinfo=UTC)
DAILY_CARDS = StartOptions(SessionKind.DAILY, ItemFilter(deck="dp-cards"))
"""A daily set drawn from the three flashcards fc-1, fc-2 and fc-3: all three, each day."""


def _ids(assembled: AssembledPlan) -> list[str]:
    """The ids of the items a daily set still asks, in order."""
    return [item.id for item in assembled.plan.items]


def _rate_daily(study, vault, ratings: list[str], *, now: datetime):
    """Start a daily set and rate its first items; the view after the last rating."""
    view = app.start_session(study, vault, DAILY_CARDS, now=now)
    for rating in ratings:
        app.reveal(study, vault, view.session_id, now=now)
        view = app.rate(study, vault, view.session_id, rating, now=now)
        if view.phase == "chain":
            view = app.follow_chain(study, vault, view.session_id, False, now=now)
    return view


def test_a_daily_review_undone_after_the_session_is_asked_again(study, vault):
    first = _rate_daily(study, vault, ["good"], now=T0)
    app.finish(study, vault, first.session_id, now=T0)
    later = T0 + timedelta(minutes=2)
    done = assemble_lineup(study, vault, DAILY_CARDS, now=later)
    [answered] = daily_done_today(study, now=later)
    assert answered not in _ids(done) and len(_ids(done)) == 2
    assert f"{answered} (done)" in (done.note or "")

    undone = undo_last_review(study, vault, now=later)
    assert undone.item_id == answered and undone.session_id is None
    again = assemble_lineup(study, vault, DAILY_CARDS, now=later)
    assert answered in _ids(again) and len(_ids(again)) == 3
    assert "(done)" not in (again.note or "")
    assert daily_done_today(study, now=later) == set()


def test_a_daily_review_undone_in_its_session_no_longer_counts_as_done(study, vault):
    view = _rate_daily(study, vault, ["good", "hard"], now=T0)
    assert len(daily_done_today(study, now=T0)) == 2
    undone = undo_last_review(study, vault, now=T0)
    assert undone.session_id == view.session_id
    assert daily_done_today(study, now=T0) == {
        r.item_id for r in study.store.iter_reviews(study.scope)
    }
    assert len(daily_done_today(study, now=T0)) == 1
    assert len(_ids(assemble_lineup(study, vault, DAILY_CARDS, now=T0))) == 2


def test_skipped_daily_items_and_other_sessions_reviews_are_not_done(study, vault):
    view = app.start_session(study, vault, DAILY_CARDS, now=T0)
    skipped = view.item.item_id
    app.skip(study, vault, view.session_id, now=T0)
    app.finish(study, vault, view.session_id, now=T0)
    quiz = app.start_session(
        study, vault, StartOptions(SessionKind.QUIZ, ItemFilter(deck="dp-cards")), now=T0
    )
    app.reveal(study, vault, quiz.session_id, now=T0)
    app.rate(study, vault, quiz.session_id, "good", now=T0)
    assert [r.item_id for r in study.store.iter_reviews(study.scope)] == ["fc-1"]
    assert daily_done_today(study, now=T0) == set()
    assert skipped in _ids(assemble_lineup(study, vault, DAILY_CARDS, now=T0))
    assert len(_ids(assemble_lineup(study, vault, DAILY_CARDS, now=T0))) == 3


def test_yesterdays_daily_reviews_leave_today_undone(study, vault):
    _rate_daily(study, vault, ["good", "good", "good"], now=T0)
    assert len(daily_done_today(study, now=T0 + timedelta(hours=14, minutes=59))) == 3
    next_day = datetime(2026, 11, 22, 0, 0, tzinfo=UTC)
    assert daily_done_today(study, now=next_day) == set()
    assert len(_ids(assemble_lineup(study, vault, DAILY_CARDS, now=next_day))) == 3

"""Session assembly: the new-item limits across a day's sessions, and teaching order."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from sysdrill.app import sessions as app
from sysdrill.app.session_lineups import StartOptions, assemble_lineup
from sysdrill.app.study_vault import StudyVault
from sysdrill.study.filters import ItemFilter
from sysdrill.study.service import StudyService
from sysdrill.study.sessions.state_machine import SessionKind

VAULT_DIR = Path(__file__).resolve().parents[1] / "study" / "sessions" / "vault"
T0 = datetime(2026, 11, 21, 9, 0, tzinfo=UTC)
CARDS = ItemFilter(deck="dp-cards")


def _rate(study, vault, session_id, rating, *, now, memory=None):
    """Show the answer (a flashcard's back: a rating is refused before), then rate."""
    app.reveal(study, vault, session_id, now=now, memory=memory)
    return app.rate(study, vault, session_id, rating, now=now, memory=memory)


def _rate_all(study: StudyService, vault: StudyVault, options: StartOptions, when: datetime):
    view = app.start_session(study, vault, options, now=when)
    rated = []
    while view.item is not None and view.phase == "rate":
        rated.append(view.item.item_id)
        view = _rate(study, vault, view.session_id, "good", now=when)
    app.finish(study, vault, view.session_id, now=when)
    return rated


def test_new_flag_caps_one_session_and_the_title_counts_what_the_day_has_left(study, vault):
    plan = assemble_lineup(
        study, vault, StartOptions(SessionKind.PRACTICE, CARDS, new_limit=2), now=T0
    ).plan
    assert [i.id for i in plan.items] == ["fc-1", "fc-2"]
    assert plan.title == "Practice: 2 items (0 due, 2 new; 18 more new today)"


def test_new_per_day_holds_across_sessions_of_the_same_day(study, vault):
    study.update_settings(new_per_day=2)
    assert _rate_all(study, vault, StartOptions(SessionKind.PRACTICE, CARDS), T0) == [
        "fc-1",
        "fc-2",
    ]
    soon = T0 + timedelta(minutes=1)
    view = app.start_session(study, vault, StartOptions(SessionKind.PRACTICE, CARDS), now=soon)
    assert view.session_id is None
    assert view.empty_message is not None
    assert "(2 new items a day, 2 new today)" in view.empty_message
    # Once the two come due they are asked; fc-3, new, still waits.
    later = T0 + timedelta(hours=3)
    plan = assemble_lineup(study, vault, StartOptions(SessionKind.PRACTICE, CARDS), now=later).plan
    assert [i.id for i in plan.items] == ["fc-1", "fc-2"]
    assert plan.title == "Practice: 2 items (2 due, 0 new; 0 more new today)"
    # The next UTC day allows new items again.
    tomorrow = T0 + timedelta(days=1)
    plan = assemble_lineup(study, vault, StartOptions(SessionKind.PRACTICE, CARDS), now=tomorrow)
    assert "fc-3" in [i.id for i in plan.plan.items]


def test_reviews_due_are_not_limited_by_new_items(study, vault):
    _rate_all(study, vault, StartOptions(SessionKind.PRACTICE, CARDS, new_limit=1), T0)
    later = T0 + timedelta(hours=1)
    plan = assemble_lineup(
        study, vault, StartOptions(SessionKind.PRACTICE, CARDS, new_limit=0), now=later
    ).plan
    assert [i.id for i in plan.items] == ["fc-1"]
    assert plan.title == "Practice: 1 items (1 due, 0 new; 19 more new today)"


def test_quiz_asks_a_whole_deck_after_practice_used_the_days_new_items(study, vault):
    study.update_settings(new_per_day=2)
    _rate_all(study, vault, StartOptions(SessionKind.PRACTICE, CARDS), T0)
    quiz = StartOptions(SessionKind.QUIZ, ItemFilter(deck="ch26-quiz"))
    view = app.start_session(study, vault, quiz, now=T0 + timedelta(minutes=1))
    assert view.title == "Quiz: Chapter 26 quiz (2 items)" and view.total == 2
    assert view.note is None and view.empty_message is None
    # Practice of the same deck still keeps the day's limit.
    practice = StartOptions(SessionKind.PRACTICE, ItemFilter(deck="ch26-quiz"))
    empty = app.start_session(study, vault, practice, now=T0 + timedelta(minutes=2))
    assert empty.session_id is None
    assert "(2 new items a day, 2 new today)" in (empty.empty_message or "")


def test_quiz_new_option_caps_the_quiz_and_says_so(study, vault):
    quiz = StartOptions(SessionKind.QUIZ, ItemFilter(deck="ch26-quiz"), new_limit=1)
    assembled = assemble_lineup(study, vault, quiz, now=T0)
    assert [i.id for i in assembled.plan.items] == ["quiz-2"]
    assert assembled.note == (
        "This quiz asks 1 of the deck's 2 items: 1 new item(s) left out: this session takes 1 new"
    )


def test_quiz_new_option_past_the_days_limit_names_the_session_cap(study, vault):
    study.update_settings(new_per_day=2)
    _rate_all(study, vault, StartOptions(SessionKind.PRACTICE, CARDS), T0)
    quiz = StartOptions(SessionKind.QUIZ, ItemFilter(deck="ch26-quiz"), new_limit=1)
    assembled = assemble_lineup(study, vault, quiz, now=T0 + timedelta(minutes=1))
    assert len(assembled.plan.items) == 1
    assert assembled.note == (
        "This quiz asks 1 of the deck's 2 items: 1 new item(s) left out: this session takes 1 new"
    )


def test_daily_with_no_new_item_allowed_says_why_instead_of_done(study, vault):
    options = StartOptions(SessionKind.DAILY, ItemFilter(track=None), new_limit=0)
    view = app.start_session(study, vault, options, now=T0)
    assert view.session_id is None
    assert view.empty_message == (
        "Nothing to ask now: 3 new item(s) left out: this session takes 0 new."
    )


def test_new_limit_is_saved_with_the_options(study, vault):
    view = app.start_session(
        study, vault, StartOptions(SessionKind.PRACTICE, CARDS, new_limit=3), now=T0
    )
    assert view.options == {"kind": "practice", "deck": "dp-cards", "limit": 20, "new_limit": 3}


def _answer_all(study, vault, view, when):
    """Answer every item of a session as a learner guessing would ("a" or "-", then Good)."""
    while view.phase != "done":
        if view.phase == "chain":
            view = app.follow_chain(study, vault, view.session_id, False, now=when)
        elif view.phase == "answer":
            guess = "a" if view.item.options else "-"
            view = app.answer(study, vault, view.session_id, guess, now=when)
        else:
            view = _rate(study, vault, view.session_id, "good", now=when)
    app.finish(study, vault, view.session_id, now=when)


def test_daily_offers_todays_items_after_practice_used_the_days_new_items(study, vault):
    daily = StartOptions(SessionKind.DAILY)
    first = assemble_lineup(study, vault, daily, now=T0)
    todays = [item.id for item in first.plan.items]
    assert len(todays) == 3
    titles = [vault.by_id[item_id].title or item_id for item_id in todays]
    assert first.note == f"Today's items: {', '.join(titles)}"
    # Practice meets the day's new items (one of today's three among them) first.
    study.update_settings(new_per_day=len(todays))
    practice = StartOptions(SessionKind.PRACTICE, ItemFilter(), limit=len(todays))
    _answer_all(study, vault, app.start_session(study, vault, practice, now=T0), T0)
    later = T0 + timedelta(minutes=5)
    view = app.start_session(study, vault, daily, now=later)
    assert view.session_id is not None and view.total == 3
    assert view.note == f"Today's items: {', '.join(titles)}"
    _answer_all(study, vault, view, later)
    done = app.start_session(study, vault, daily, now=later + timedelta(minutes=1))
    assert done.session_id is None
    assert done.empty_message == (
        "Today's daily items are done. Come back tomorrow. Today's items: "
        + ", ".join(f"{title} (done)" for title in titles)
        + "."
    )


def test_daily_title_is_the_days_name_on_every_step_and_in_progress(study, vault):
    from sysdrill.app.session_records import list_sessions

    view = app.start_session(study, vault, StartOptions(SessionKind.DAILY, CARDS), now=T0)
    assert (view.title, view.position, view.done, view.total) == ("Daily 2026-11-21", 1, 0, 3)
    view = _rate(study, vault, view.session_id, "good", now=T0)
    if view.phase == "chain":
        view = app.follow_chain(study, vault, view.session_id, False, now=T0)
    assert (view.title, view.position, view.done) == ("Daily 2026-11-21", 2, 1)
    [waiting] = list_sessions(study, now=T0)
    assert (waiting["title"], waiting["position"], waiting["items"]) == ("Daily 2026-11-21", 1, 3)
    # A second start the same day names the day alike and asks what is left.
    again = assemble_lineup(study, vault, StartOptions(SessionKind.DAILY, CARDS), now=T0)
    assert again.plan.title == "Daily 2026-11-21" and len(again.plan.items) == 2

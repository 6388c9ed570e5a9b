"""Undo the last review outside any session: the card is as before it, the log without it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from sysdrill.app import sessions as app
from sysdrill.app.review_undo import undo_last_review
from sysdrill.app.session_lineups import StartOptions
from sysdrill.errors import UsageError
from sysdrill.study.filters import ItemFilter
from sysdrill.study.sessions.state_machine import SessionKind

T0 = datetime(2026, 11, 21, 9, 0, tzinfo=UTC)
CARDS = StartOptions(SessionKind.QUIZ, ItemFilter(deck="dp-cards"))


def _quiz(study, vault, ratings: list[str], *, now: datetime) -> int:
    view = app.start_session(study, vault, CARDS, now=now)
    for rating in ratings:
        app.reveal(study, vault, view.session_id, now=now)
        view = app.rate(study, vault, view.session_id, rating, now=now)
    return view.session_id


def test_undo_after_a_finished_session_puts_back_the_card_of_the_day_before(study, vault):
    _quiz(study, vault, ["good", "good", "good"], now=T0)
    later = T0 + timedelta(days=3)
    before = study.store.get_card(study.scope, "fc-1")
    finished = _quiz(study, vault, ["easy"], now=later)
    app.finish(study, vault, finished, now=later)
    assert study.store.get_card(study.scope, "fc-1").due != before.due

    undone = undo_last_review(study, vault, now=later)
    assert undone.message == "Undid your Easy review of fc-1 from 2026-11-24 09:00 UTC."
    assert (undone.item_id, undone.rating, undone.session_id) == ("fc-1", "Easy", None)
    assert study.store.get_card(study.scope, "fc-1") == before
    assert [r.rating for r in study.store.item_reviews(study.scope, "fc-1")] == [3]


def test_undo_of_a_first_review_leaves_the_item_new(study, vault):
    _quiz(study, vault, ["again"], now=T0)
    undone = undo_last_review(study, vault, now=T0)
    assert undone.rating == "Again"
    assert study.store.get_card(study.scope, "fc-1") is None
    assert list(study.store.iter_reviews(study.scope)) == []


def test_undo_during_a_session_in_progress_asks_the_item_again(study, vault):
    session = _quiz(study, vault, ["good", "hard"], now=T0)
    undone = undo_last_review(study, vault, now=T0)
    assert (undone.item_id, undone.rating, undone.session_id) == ("fc-2", "Hard", session)
    assert undone.message.endswith("Its session asks it again.")
    view = app.current_prompt(study, vault, session, now=T0)
    assert view.item is not None and view.item.item_id == "fc-2"


def test_undo_with_no_review_says_there_is_nothing_to_undo(study, vault):
    with pytest.raises(UsageError, match="Nothing to undo"):
        undo_last_review(study, vault, now=T0)

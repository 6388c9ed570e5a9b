"""A worker keeps a session's machine between moves, but the database stays the truth."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from sysdrill.app import session_cache
from sysdrill.app import sessions as app
from sysdrill.app.live_session import restore_session
from sysdrill.app.sessions import StartOptions
from sysdrill.errors import StorageConflict, UsageError
from sysdrill.storage.memory import MemoryStudyStore
from sysdrill.study.filters import ItemFilter
from sysdrill.study.ratings import Rating
from sysdrill.study.service import StudyService
from sysdrill.study.sessions.engine import SessionKind
from sysdrill.study.user_state import VaultId

T0 = datetime(2026, 11, 21, 9, 0, tzinfo=UTC)
DECK = StartOptions(SessionKind.PRACTICE, ItemFilter(deck="dp-cards"))


def _saved(study: StudyService, session_id: int):
    saved = study.store.get_active_session(study.scope, session_id)
    assert saved is not None
    return saved


def test_a_committed_move_keeps_the_machine_at_the_saved_revision(study, vault):
    view = app.start_session(study, vault, DECK, now=T0)
    app.rate(study, vault, view.session_id, "good", now=T0 + timedelta(seconds=5))
    saved = _saved(study, view.session_id)
    kept = session_cache.take(study, vault, view.session_id)
    assert kept is not None
    assert kept.saved == saved
    # Taken out while in use: a second request on the session replays instead.
    assert session_cache.take(study, vault, view.session_id) is None


def test_a_kept_machine_is_not_used_for_a_new_session_with_the_same_id(study, vault):
    view = app.start_session(study, vault, DECK, now=T0)
    app.rate(study, vault, view.session_id, "good", now=T0 + timedelta(seconds=5))
    saved = _saved(study, view.session_id)
    # The session is gone and another took its id (SQLite reuses the highest id), at
    # the same revision but a later start: its own moves count, not the kept ones.
    study.store.delete_active_session(study.scope, view.session_id)
    later = T0 + timedelta(minutes=1)
    study.store.put_active_session(
        study.scope, replace(saved, moves=(), position=0, revision=0, started_at=later)
    )
    skip = {"move": "skip", "value": None, "at": (later + timedelta(seconds=1)).isoformat()}
    again = _saved(study, view.session_id)
    study.store.put_active_session(
        study.scope, replace(again, moves=(skip, skip), revision=saved.revision)
    )
    now = app.current_prompt(study, vault, view.session_id, now=later + timedelta(seconds=2))
    # Two items skipped: the kept machine (one item rated) would be at fc-2.
    assert now.item is not None and now.item.item_id == "fc-3"


def test_a_move_made_by_another_worker_is_replayed_from_the_database(study, vault):
    view = app.start_session(study, vault, DECK, now=T0)
    app.rate(study, vault, view.session_id, "good", now=T0 + timedelta(seconds=5))
    # Another worker skips the second item: the database moves on, this worker's
    # kept machine does not know.
    saved = _saved(study, view.session_id)
    skip = {"move": "skip", "value": None, "at": (T0 + timedelta(seconds=9)).isoformat()}
    study.store.put_active_session(
        study.scope,
        replace(saved, moves=(*saved.moves, skip), revision=saved.revision + 1),
    )
    now = app.current_prompt(study, vault, view.session_id, now=T0 + timedelta(seconds=10))
    assert now.item is not None and now.item.item_id == "fc-3"


def test_a_failed_move_leaves_no_machine_and_the_next_move_works(study, vault):
    view = app.start_session(study, vault, DECK, now=T0)
    with pytest.raises(UsageError):
        app.answer(study, vault, view.session_id, "an answer to a flashcard", now=T0)
    assert session_cache.take(study, vault, view.session_id) is None
    after = app.rate(study, vault, view.session_id, "easy", now=T0 + timedelta(seconds=3))
    assert after.item is not None and after.item.item_id == "fc-2"
    reviews = [(r.item_id, r.rating) for r in study.store.iter_reviews(study.scope)]
    assert reviews == [("fc-1", int(Rating.EASY))]


def test_machines_of_two_stores_never_mix(vault):
    # Two databases with the same ids (two tests, two servers in one process).
    first = StudyService(MemoryStudyStore(), vault_id=VaultId("test"), now=T0)
    second = StudyService(MemoryStudyStore(), vault_id=VaultId("test"), now=T0)
    one = app.start_session(first, vault, DECK, now=T0)
    two = app.start_session(second, vault, DECK, now=T0)
    assert one.session_id == two.session_id
    app.rate(first, vault, one.session_id, "good", now=T0 + timedelta(seconds=5))
    assert session_cache.take(second, vault, one.session_id) is None


def test_two_workers_rating_one_item_at_once_store_one_review(study, vault):
    view = app.start_session(study, vault, DECK, now=T0)
    saved = _saved(study, view.session_id)
    # Both workers resumed the session at the same revision.
    here = restore_session(study, vault, saved, clock=lambda: T0 + timedelta(seconds=4))
    there = restore_session(study, vault, saved, clock=lambda: T0 + timedelta(seconds=5))
    with study.store.unit_of_work():
        here.rate(Rating.GOOD)
    with pytest.raises(StorageConflict), study.store.unit_of_work():
        there.rate(Rating.AGAIN)
    # The loser's review went with its failed save.
    reviews = [(r.item_id, r.rating) for r in study.store.iter_reviews(study.scope)]
    assert reviews == [("fc-1", int(Rating.GOOD))]

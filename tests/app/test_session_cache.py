"""A worker keeps a session's machine between moves, but the database stays the truth."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from sysdrill.app import session_cache
from sysdrill.app import sessions as app
from sysdrill.app.live_session import restore_session
from sysdrill.app.sessions import StartOptions
from sysdrill.app.study import open_study
from sysdrill.app.study_vault import StudyVault
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


def _another_under_the_same_id(study: StudyService, saved, started_at: datetime) -> None:
    study.store.delete_active_session(study.scope, saved.session_id)
    study.store.put_active_session(
        study.scope, replace(saved, moves=(), position=0, revision=0, started_at=started_at)
    )


def test_a_kept_machine_is_not_used_for_a_new_session_with_the_same_id(study, vault):
    view = app.start_session(study, vault, DECK, now=T0)
    app.rate(study, vault, view.session_id, "good", now=T0 + timedelta(seconds=5))
    saved = _saved(study, view.session_id)
    # The session is gone and another took its id (SQLite reuses the highest id), at
    # the same revision but a later start: its own moves count, not the kept ones.
    later = T0 + timedelta(minutes=1)
    _another_under_the_same_id(study, saved, later)
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


# -- a kept machine is trusted until its save says otherwise ------------------------------


@pytest.fixture(params=["memory", "sqlite", "postgresql"])
def any_study(request: pytest.FixtureRequest, tmp_path: Path, vault: StudyVault):
    """The learner's study service on each kind of store (the save's check is SQL there)."""
    if request.param == "memory":
        yield StudyService(MemoryStudyStore(), vault_id=VaultId("test"), now=T0)
        return
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'study.sqlite3'}"
    else:
        url = request.getfixturevalue("postgres_url")
    with open_study(url, vault=vault, upgrade=True) as study:
        yield study


def _moved_elsewhere(study: StudyService, session_id: int, move: str, at: datetime) -> None:
    """Another worker makes ``move`` on the session: this worker's kept machine does not know."""
    saved = _saved(study, session_id)
    made = {"move": move, "value": None, "at": at.isoformat()}
    study.store.put_active_session(
        study.scope, replace(saved, moves=(*saved.moves, made), revision=saved.revision + 1)
    )


def _reviews(study: StudyService) -> list[tuple[str, int]]:
    return [(r.item_id, r.rating) for r in study.store.iter_reviews(study.scope)]


def test_a_rating_on_a_machine_that_fell_behind_rates_the_item_the_database_asks(any_study, vault):
    study = any_study
    view = app.start_session(study, vault, DECK, now=T0)
    app.rate(study, vault, view.session_id, "good", now=T0 + timedelta(seconds=5))
    _moved_elsewhere(study, view.session_id, "skip", T0 + timedelta(seconds=9))
    # The kept machine waits on fc-2, the database on fc-3 (fc-2 was skipped), the last.
    after = app.rate(study, vault, view.session_id, "easy", now=T0 + timedelta(seconds=12))
    assert after.phase == "done"
    # fc-2's review, written before the stale save failed, went with it.
    assert _reviews(study) == [("fc-1", int(Rating.GOOD)), ("fc-3", int(Rating.EASY))]
    assert _saved(study, view.session_id).revision == 3  # rate, skip, rate


def test_a_move_the_database_refuses_is_refused_after_the_kept_machine_accepted_it(
    any_study, vault
):
    study = any_study
    view = app.start_session(study, vault, DECK, now=T0)
    app.rate(study, vault, view.session_id, "good", now=T0 + timedelta(seconds=5))
    # Another worker ended the session: nothing waits for a rating any more.
    _moved_elsewhere(study, view.session_id, "quit", T0 + timedelta(seconds=9))
    with pytest.raises(UsageError):
        app.rate(study, vault, view.session_id, "easy", now=T0 + timedelta(seconds=12))
    assert _reviews(study) == [("fc-1", int(Rating.GOOD))]


def test_a_move_on_a_kept_machine_of_a_session_whose_id_was_reused_moves_the_new_one(
    any_study, vault
):
    study = any_study
    view = app.start_session(study, vault, DECK, now=T0)
    app.rate(study, vault, view.session_id, "good", now=T0 + timedelta(seconds=5))
    later = T0 + timedelta(minutes=1)
    # Same id, same revision, a later start: only the start time tells them apart.
    _another_under_the_same_id(study, _saved(study, view.session_id), later)
    _moved_elsewhere(study, view.session_id, "skip", later)
    after = app.rate(study, vault, view.session_id, "hard", now=later + timedelta(seconds=3))
    assert after.item is not None and after.item.item_id == "fc-3"
    assert _reviews(study)[-1] == ("fc-2", int(Rating.HARD))


def test_a_move_on_a_current_kept_machine_does_not_read_the_session(any_study, vault):
    study = any_study
    view = app.start_session(study, vault, DECK, now=T0)
    app.rate(study, vault, view.session_id, "good", now=T0 + timedelta(seconds=5))
    asked: list[int] = []
    store = study.store
    real = store.active_session_stamp

    def stamp(scope, session_id):
        asked.append(session_id)
        return real(scope, session_id)

    store.active_session_stamp = stamp  # type: ignore[method-assign]
    app.rate(study, vault, view.session_id, "good", now=T0 + timedelta(seconds=8))
    assert asked == []
    # Showing the prompt saves nothing, so nothing would catch a machine behind: it asks.
    app.current_prompt(study, vault, view.session_id, now=T0 + timedelta(seconds=9))
    assert asked == [view.session_id]


def test_a_kept_machine_reviews_an_item_from_its_card_as_another_session_left_it(any_study, vault):
    study = any_study
    # Two sessions of the learner ask the same items; each machine read their cards at start.
    one = app.start_session(study, vault, DECK, now=T0)
    two = app.start_session(study, vault, DECK, now=T0 + timedelta(seconds=1))
    app.rate(study, vault, one.session_id, "good", now=T0 + timedelta(seconds=5))
    app.rate(study, vault, two.session_id, "again", now=T0 + timedelta(seconds=9))
    card = study.card_state("fc-1")
    # The second review was scheduled from the card the first one wrote, not from none.
    assert (card.reps, card.lapses) == (2, 0)
    assert _reviews(study) == [("fc-1", int(Rating.GOOD)), ("fc-1", int(Rating.AGAIN))]
    [first, second] = study.store.iter_reviews(study.scope)
    assert (first.state_before, second.state_before) == (0, 1)


def test_a_rating_whose_card_changed_after_the_restore_read_it_is_made_again(any_study, vault):
    study = any_study
    one = app.start_session(study, vault, DECK, now=T0)
    two = app.start_session(study, vault, DECK, now=T0 + timedelta(seconds=1))
    app.rate(study, vault, one.session_id, "good", now=T0 + timedelta(seconds=5))
    session_cache.take(study, vault, two.session_id)  # the next move restores it
    store = study.store
    real = store.cards_of
    reads: list[int] = []

    def read_before_the_other_review(scope, item_ids):
        reads.append(len(reads))
        return {} if len(reads) == 1 else real(scope, item_ids)

    store.cards_of = read_before_the_other_review  # type: ignore[method-assign]
    app.rate(study, vault, two.session_id, "again", now=T0 + timedelta(seconds=9))
    assert len(reads) == 2  # the move was made again, its cards read afresh
    assert study.card_state("fc-1").reps == 2
    assert _reviews(study) == [("fc-1", int(Rating.GOOD)), ("fc-1", int(Rating.AGAIN))]

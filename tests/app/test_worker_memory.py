"""A worker keeps sessions' machines and learners' settings, but the database stays the truth."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from sysdrill.app import sessions as app
from sysdrill.app.live_session import restore_session
from sysdrill.app.sessions import StartOptions
from sysdrill.app.study import open_study
from sysdrill.app.study_vault import StudyVault
from sysdrill.app.worker_memory import WorkerMemory
from sysdrill.errors import CardChanged, StorageConflict, UsageError
from sysdrill.storage.memory import MemoryStudyStore
from sysdrill.study.filters import ItemFilter
from sysdrill.study.ratings import Rating
from sysdrill.study.service import StudyService
from sysdrill.study.sessions.state_machine import SessionKind
from sysdrill.study.settings import StudySettings
from sysdrill.study.user_state import VaultId

T0 = datetime(2026, 11, 21, 9, 0, tzinfo=UTC)
DECK = StartOptions(SessionKind.PRACTICE, ItemFilter(deck="dp-cards"))


def _rate(study, vault, session_id, rating, *, now, memory=None):
    """Show the answer (a flashcard's back: a rating is refused before), then rate."""
    app.reveal(study, vault, session_id, now=now, memory=memory)
    return app.rate(study, vault, session_id, rating, now=now, memory=memory)


@pytest.fixture
def memory(tmp_path: Path) -> WorkerMemory:
    return WorkerMemory(cache_dir=tmp_path / "cache")


@pytest.fixture(params=["memory", "sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def any_study(request: pytest.FixtureRequest, tmp_path: Path, vault: StudyVault):
    """The learner's study service on each kind of store."""
    if request.param == "memory":
        yield StudyService(MemoryStudyStore(), vault_id=VaultId("test"), now=T0)
        return
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'study.sqlite3'}"
    else:
        url = request.getfixturevalue("postgres_url")
    with open_study(url, vault=vault, upgrade=True) as study:
        yield study


def _saved(study: StudyService, session_id: int):
    saved = study.store.get_active_session(study.scope, session_id)
    assert saved is not None
    return saved


def _moved_elsewhere(study: StudyService, session_id: int, move: str, at: datetime) -> None:
    """Another worker makes ``move`` on the session: this worker's kept machine does not know."""
    saved = _saved(study, session_id)
    made = {"move": move, "value": None, "at": at.isoformat()}
    study.store.put_active_session(
        study.scope,
        replace(saved, moves=(*saved.moves, made), revision=saved.revision + 1),
        stored_moves=len(saved.moves),
    )


def _reviews(study: StudyService) -> list[tuple[str, int]]:
    return [(r.item_id, r.rating) for r in study.store.iter_reviews(study.scope)]


def test_a_stored_move_keeps_the_machine_at_the_saved_revision(study, vault, memory):
    view = app.start_session(study, vault, DECK, now=T0, memory=memory)
    _rate(study, vault, view.session_id, "good", now=T0 + timedelta(seconds=5), memory=memory)
    kept = memory.take_session(study, vault, view.session_id)
    assert kept is not None and kept.saved == _saved(study, view.session_id)
    # Taken out while in use: a second request on the session replays instead.
    assert memory.take_session(study, vault, view.session_id) is None


def test_a_kept_machine_is_used_only_after_the_database_confirms_it(any_study, vault, memory):
    study = any_study
    view = app.start_session(study, vault, DECK, now=T0, memory=memory)
    _rate(study, vault, view.session_id, "good", now=T0 + timedelta(seconds=5), memory=memory)
    asked: list[int] = []
    real = study.store.active_session_stamp

    def stamp(scope, session_id):
        asked.append(session_id)
        return real(scope, session_id)

    app.reveal(study, vault, view.session_id, now=T0 + timedelta(seconds=7), memory=memory)
    study.store.active_session_stamp = stamp  # type: ignore[method-assign]
    app.rate(study, vault, view.session_id, "good", now=T0 + timedelta(seconds=8), memory=memory)
    assert asked == [view.session_id]


def test_a_move_made_by_another_worker_is_replayed_from_the_database(any_study, vault, memory):
    study = any_study
    view = app.start_session(study, vault, DECK, now=T0, memory=memory)
    _rate(study, vault, view.session_id, "good", now=T0 + timedelta(seconds=5), memory=memory)
    _moved_elsewhere(study, view.session_id, "skip", T0 + timedelta(seconds=9))
    # The kept machine waits on fc-2, the database on fc-3 (fc-2 was skipped), the last.
    after = _rate(
        study, vault, view.session_id, "easy", now=T0 + timedelta(seconds=12), memory=memory
    )
    assert after.phase == "done"
    assert _reviews(study) == [("fc-1", int(Rating.GOOD)), ("fc-3", int(Rating.EASY))]
    assert _saved(study, view.session_id).revision == 5  # reveal, rate, skip, reveal, rate


def test_a_kept_machine_is_not_used_for_a_new_session_with_the_same_id(any_study, vault, memory):
    study = any_study
    view = app.start_session(study, vault, DECK, now=T0, memory=memory)
    _rate(study, vault, view.session_id, "good", now=T0 + timedelta(seconds=5), memory=memory)
    saved = _saved(study, view.session_id)
    # The session is gone and another took its id (SQLite reuses the highest id), at
    # the same revision but a later start: its own moves count, not the kept ones.
    later = T0 + timedelta(minutes=1)
    study.store.delete_active_session(study.scope, saved.session_id)
    study.store.put_active_session(
        study.scope, replace(saved, moves=(), position=0, revision=0, started_at=later)
    )
    _moved_elsewhere(study, view.session_id, "skip", later)
    after = _rate(
        study, vault, view.session_id, "hard", now=later + timedelta(seconds=3), memory=memory
    )
    assert after.item is not None and after.item.item_id == "fc-3"
    assert _reviews(study)[-1] == ("fc-2", int(Rating.HARD))


def test_a_failed_move_leaves_no_machine_and_the_next_move_works(study, vault, memory):
    view = app.start_session(study, vault, DECK, now=T0, memory=memory)
    with pytest.raises(UsageError):
        app.answer(study, vault, view.session_id, "an answer", now=T0, memory=memory)
    assert memory.take_session(study, vault, view.session_id) is None
    after = _rate(
        study, vault, view.session_id, "easy", now=T0 + timedelta(seconds=3), memory=memory
    )
    assert after.item is not None and after.item.item_id == "fc-2"
    assert _reviews(study) == [("fc-1", int(Rating.EASY))]


def test_machines_of_two_stores_never_mix(vault, memory):
    # Two databases with the same ids (two tests, two servers in one process).
    first = StudyService(MemoryStudyStore(), vault_id=VaultId("test"), now=T0)
    second = StudyService(MemoryStudyStore(), vault_id=VaultId("test"), now=T0)
    one = app.start_session(first, vault, DECK, now=T0, memory=memory)
    two = app.start_session(second, vault, DECK, now=T0, memory=memory)
    assert one.session_id == two.session_id
    _rate(first, vault, one.session_id, "good", now=T0 + timedelta(seconds=5), memory=memory)
    assert memory.take_session(second, vault, one.session_id) is None


def test_two_workers_rating_one_item_at_once_store_one_review(any_study, vault):
    study = any_study
    view = app.start_session(study, vault, DECK, now=T0)
    app.reveal(study, vault, view.session_id, now=T0 + timedelta(seconds=2))
    saved = _saved(study, view.session_id)
    # Both workers resumed the session at the same revision.
    here = restore_session(study, vault, saved, clock=lambda: T0 + timedelta(seconds=4))
    there = restore_session(study, vault, saved, clock=lambda: T0 + timedelta(seconds=5))
    here.rate(Rating.GOOD)
    with pytest.raises(StorageConflict):
        there.rate(Rating.AGAIN)
    # The loser wrote nothing: its review went with its refused save.
    assert _reviews(study) == [("fc-1", int(Rating.GOOD))]


def test_a_rating_whose_card_another_session_changed_is_refused_once(any_study, vault, memory):
    study = any_study
    # Two sessions of the learner ask the same items; each machine read their cards at start.
    one = app.start_session(study, vault, DECK, now=T0, memory=memory)
    two = app.start_session(study, vault, DECK, now=T0 + timedelta(seconds=1), memory=memory)
    _rate(study, vault, one.session_id, "good", now=T0 + timedelta(seconds=5), memory=memory)
    with pytest.raises(CardChanged):
        _rate(study, vault, two.session_id, "again", now=T0 + timedelta(seconds=9), memory=memory)
    assert _reviews(study) == [("fc-1", int(Rating.GOOD))]
    assert _saved(study, two.session_id).revision == 1  # its reveal, not the rating
    # Tried again (a reload), the session is read afresh and the review scheduled
    # from the card the first one wrote.
    _rate(study, vault, two.session_id, "again", now=T0 + timedelta(seconds=12), memory=memory)
    card = study.card_state("fc-1")
    assert (card.reps, card.lapses) == (2, 0)
    assert _reviews(study) == [("fc-1", int(Rating.GOOD)), ("fc-1", int(Rating.AGAIN))]


def test_settings_are_kept_under_their_version_and_per_database(memory):
    loose = StudySettings()
    strict = StudySettings().with_changes(new_per_day=3)
    memory.keep_settings("db-a", 1, 4, loose)
    assert memory.settings("db-a", 1, 4) == loose
    assert memory.settings("db-a", 1, 5) is None  # changed since: read again
    assert memory.settings("db-b", 1, 4) is None
    memory.keep_settings("db-a", 1, 5, strict)
    assert memory.settings("db-a", 1, 5) == strict


def test_two_apps_keep_apart(tmp_path: Path, vault):
    first, second = WorkerMemory(cache_dir=tmp_path), WorkerMemory(cache_dir=tmp_path)
    first.keep_settings("db", 1, 1, StudySettings())
    assert second.settings("db", 1, 1) is None

"""A session's start and moves make a fixed number of database round trips.

Every move of a web learner is a request; its cost is mostly its statements. A
start once ran a card query per chain member of the vault (hundreds on the starter
vault), so the counts here are bounds that a per-item query would blow at once,
whatever the vault's size. Counted with SQLAlchemy's cursor events, not timed.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from sysdrill.app import sessions as app
from sysdrill.app.sessions import StartOptions
from sysdrill.app.study import open_study
from sysdrill.app.study_vault import StudyVault, open_study_vault
from sysdrill.app.worker_memory import WorkerMemory
from sysdrill.study.filters import ItemFilter
from sysdrill.study.sessions.state_machine import SessionKind

T0 = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
START_STATEMENTS_AT_MOST = 12
MOVE_STATEMENTS_AT_MOST = 6
"""A review in a kept session: the session's revision read (the kept machine confirmed),
then in one transaction the card, the review, the day's counts, the session's revision
and its move. The card was read with the session's, the settings with the login."""


@contextmanager
def _counted(engine: sa.Engine) -> Iterator[list[str]]:
    """The first word of each statement sent."""
    statements: list[str] = []

    def count(_conn: Any, _cursor: Any, statement: str, params: Any, *_: Any) -> None:
        word = statement.split(None, 1)[0].upper()
        if word not in ("BEGIN", "COMMIT"):  # a transaction's ends are not queries
            statements.append(word)

    sa.event.listen(engine, "before_cursor_execute", count)
    try:
        yield statements
    finally:
        sa.event.remove(engine, "before_cursor_execute", count)


def _rate(study, vault, session_id, rating, *, now, memory=None):
    """Show the answer (a flashcard's back: a rating is refused before), then rate."""
    app.reveal(study, vault, session_id, now=now, memory=memory)
    return app.rate(study, vault, session_id, rating, now=now, memory=memory)


@pytest.fixture(scope="module")
def starter(tmp_path_factory: pytest.TempPathFactory) -> StudyVault:
    # The starter vault: 353 items, 29 chains whose members a start once queried one by one.
    return open_study_vault(cache_dir=tmp_path_factory.mktemp("cache"))


def _study(tmp_path: Path, vault: StudyVault) -> Any:
    return open_study(f"sqlite:///{tmp_path / 'study.sqlite3'}", vault=vault, upgrade=True)


def test_a_practice_start_reads_a_fixed_number_of_statements(
    tmp_path: Path, starter: StudyVault
) -> None:
    options = StartOptions(SessionKind.PRACTICE, ItemFilter(), limit=20)
    with _study(tmp_path, starter) as study:
        engine = study.store.engine
        with _counted(engine) as first:
            view = app.start_session(study, starter, options, now=T0)
        assert view.session_id is not None
        # A learner with history: some items known, a session finished.
        for step in range(6):
            current = app.current_prompt(study, starter, view.session_id, now=T0)
            if current.phase != "rate":
                break
            _rate(study, starter, view.session_id, "good", now=T0 + timedelta(seconds=step))
        app.finish(study, starter, view.session_id, now=T0 + timedelta(minutes=1))
        with _counted(engine) as later:
            app.start_session(study, starter, options, now=T0 + timedelta(minutes=2))
    assert len(first) <= START_STATEMENTS_AT_MOST, first
    assert len(later) <= START_STATEMENTS_AT_MOST, later


def _move(study: Any, vault: StudyVault, view: Any, at: datetime, memory: WorkerMemory) -> Any:
    """The move the session waits for, as a learner makes it."""
    session_id = view.session_id
    if view.phase == "rate" and not view.revealed:  # a flashcard: its back first
        return app.reveal(study, vault, session_id, now=at, memory=memory)
    if view.phase == "rate":
        return app.rate(study, vault, session_id, "good", now=at, memory=memory)
    if view.phase == "chain":
        return app.follow_chain(study, vault, session_id, False, now=at, memory=memory)
    if view.phase == "rubric":
        return app.score_rubric(study, vault, session_id, [0], now=at, memory=memory)
    mode = view.item.mode if view.item is not None else None
    answer = {"multiple-choice": "a", "numeric": "1 s"}.get(mode or "", "an answer")
    return app.answer(study, vault, session_id, answer, now=at, memory=memory)


def test_a_review_in_a_kept_session_makes_a_fixed_number_of_statements(
    migrated_db_url: str, starter: StudyVault, tmp_path: Path
) -> None:
    options = StartOptions(SessionKind.PRACTICE, ItemFilter(), limit=20)
    memory = WorkerMemory(cache_dir=tmp_path)
    with open_study(migrated_db_url, vault=starter) as study:
        view = app.start_session(study, starter, options, now=T0, memory=memory)
        at = T0
        # The first review ever also stores the scheduler's settings once: count later ones.
        while view.done < 2:
            at += timedelta(seconds=5)
            view = _move(study, starter, view, at, memory)
        counted = []
        while view.done < 6:
            at += timedelta(seconds=5)
            with _counted(study.store.engine) as statements:
                after = _move(study, starter, view, at, memory)
            if after.done > view.done:
                counted.append(statements)
            view = after
    assert counted
    for statements in counted:
        assert len(statements) <= MOVE_STATEMENTS_AT_MOST, statements
        # The worker kept the session (confirmed by one read of its revision), the
        # learner's settings and the card: the card's write checks it is unchanged.
        assert statements.count("SELECT") == 1, statements

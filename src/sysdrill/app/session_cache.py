"""Sessions in progress kept in memory between moves, checked against the database.

A session in progress lives in the database (its moves, with a revision that
goes up by one per move), so any process can resume it by replaying its
moves. Replaying every move again on every request costs more as a session
goes on, and a learner's requests usually come back to the same worker (a
browser keeps its connection open). So the worker that made a move keeps the
session's machine, and the next move uses it when the database still says the
revision it was kept at, for the same database and the same loaded vault.
Anything else (another worker moved it on, the vault reloaded, the entry was
dropped) means replaying from the database as before: the kept machine only
saves work, the database stays the one truth.

Machines are kept only after their move committed (:func:`after_commit`), and
taken out while a request uses one, so two requests never share a machine.
Safe under threads; bounded (least recently used goes first).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from sysdrill.app.kept_lru import KeptLru
from sysdrill.app.live_session import LiveSession
from sysdrill.app.study_vault import StudyVault
from sysdrill.study.service import StudyService
from sysdrill.study.user_state import StudyScope

__all__ = ["KEPT_SESSIONS", "after_commit", "keep", "take"]

KEPT_SESSIONS = 4096
"""Sessions kept per process at most (a few kilobytes each)."""


@dataclass(frozen=True, slots=True)
class _Kept:
    database: object
    """The engine (or store) the session was saved through: a test's second database
    with the same ids must not match."""
    vault: StudyVault
    live: LiveSession
    """Not moved on while kept (taken out to be used): its saved revision is the kept one."""


_kept: KeptLru[tuple[StudyScope, int], _Kept] = KeptLru(KEPT_SESSIONS)
_pending: ContextVar[list[tuple[StudyService, StudyVault, LiveSession]] | None] = ContextVar(
    "sysdrill_sessions_to_keep", default=None
)


def _database(study: StudyService) -> object:
    return getattr(study.store, "engine", study.store)


def take(study: StudyService, vault: StudyVault, session_id: int) -> LiveSession | None:
    """The machine kept of the session for this database and vault, else None.

    The machine is taken out (a concurrent request on the same session replays).
    The caller uses it only if the database still holds the session at
    ``live.saved.revision`` (started at ``live.saved.started_at``): revisions go
    up by one per committed move, so an equal revision means equal moves.
    """
    slot = (study.scope, int(session_id))
    kept = _kept.pop(slot)
    if kept is None or kept.vault is not vault or kept.database is not _database(study):
        return None
    return kept.live


def keep(study: StudyService, vault: StudyVault, live: LiveSession) -> None:
    """Keep ``live`` once the move being made commits.

    Only inside :func:`after_commit`: elsewhere (the terminal's driver holds its
    machine for the whole session) nothing is kept.
    """
    pending = _pending.get()
    if pending is not None:
        pending.append((study, vault, live))


def _put(study: StudyService, vault: StudyVault, live: LiveSession) -> None:
    slot = (study.scope, int(live.session_id))
    _kept.put(slot, _Kept(_database(study), vault, live))


@contextmanager
def after_commit() -> Iterator[None]:
    """Hold back :func:`keep` until the block ends without an error (the move committed)."""
    outer = _pending.get()
    if outer is not None:
        yield
        return
    pending: list[tuple[StudyService, StudyVault, LiveSession]] = []
    token = _pending.set(pending)
    try:
        yield
    finally:
        _pending.reset(token)
    for study, vault, live in pending:
        _put(study, vault, live)

"""One move of a session in progress: one transaction, and the kept machine trusted.

A move loads the session (the machine this worker kept after the last move, else
a replay of the stored moves), applies the learner's move, writes its review and
saves the session, all in one unit of work of the learner's store.

A kept machine is current when the database still holds the session at the
revision (and start time) it was kept at. Asking first costs a round trip on
every move, and the answer is nearly always yes. A move that saves the session
does not need to ask: the save is an update that matches only that revision
and start time, so a machine that fell behind (another worker moved the session
on, or the id now names another session) makes the save fail, the whole unit
of work rolls back, and the move is made again once from the database. A kept
machine that fell behind may also refuse the move outright (it waits for a
rating where the session waits for an answer); that too is tried again from the
database, where a refusal that comes back is the learner's to see.

Use cases that may end without saving (showing the current prompt, ending a
session) pass ``verify=True`` to :func:`load_session`, which asks the database
before using a kept machine, as every caller outside :func:`one_transaction`
(the terminal's driver) does too.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import datetime
from typing import Concatenate, ParamSpec, TypeVar

from sysdrill.app import session_cache
from sysdrill.app.live_session import LiveSession, restore_session
from sysdrill.app.study_vault import StudyVault
from sysdrill.app.template_draws import drawn_vault
from sysdrill.errors import CardChanged, SessionNotFound, SysdrillError
from sysdrill.study.clock import require_utc
from sysdrill.study.service import StudyService
from sysdrill.study.sessions.saved import SavedSession

__all__ = ["load_session", "one_transaction"]

_P = ParamSpec("_P")
_R = TypeVar("_R")


@dataclass(slots=True)
class _Attempt:
    """How the move being made may load its session."""

    trust_kept: bool
    """A kept machine may be used without asking the database (its save checks)."""
    trusted: bool = False
    """One was: a failure may only mean it had fallen behind."""


_attempt: ContextVar[_Attempt | None] = ContextVar("sysdrill_move_attempt", default=None)


def one_transaction(
    use_case: Callable[Concatenate[StudyService, _P], _R],
) -> Callable[Concatenate[StudyService, _P], _R]:
    """Run a use case in one unit of work of the learner's store.

    Reading the session, writing the review and saving the move then commit
    together on one connection, or not at all: a move that fails halfway (a
    worker killed, a conflict with another request on the same session) leaves
    neither a review without its move nor a move without its review. A move
    made on a kept machine that fails is made once more from the database.
    """

    @functools.wraps(use_case)
    def run(study: StudyService, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        if _attempt.get() is not None:
            # Called from within another move: it joins that move's unit of work.
            return use_case(study, *args, **kwargs)
        first = _Attempt(trust_kept=True)
        token = _attempt.set(first)
        try:
            try:
                # The session's machine is kept for the next move only once this one committed.
                with session_cache.after_commit(), study.store.unit_of_work():
                    return use_case(study, *args, **kwargs)
            except SysdrillError as exc:
                # A card changed since it was read is read afresh by the retry too.
                if not first.trusted and not isinstance(exc, CardChanged):
                    raise
            # Everything the kept machine wrote was rolled back with the failed save.
            _attempt.set(_Attempt(trust_kept=False))
            with session_cache.after_commit(), study.store.unit_of_work():
                return use_case(study, *args, **kwargs)
        finally:
            _attempt.reset(token)

    return run


def load_session(
    study: StudyService,
    vault: StudyVault,
    session_id: int,
    *,
    now: datetime,
    verify: bool = False,
) -> tuple[SavedSession, LiveSession]:
    """The session in progress as stored, and its machine ready for the next move.

    Args:
        study: The learner's study service (inside the move's unit of work).
        vault: The vault the session asks from.
        session_id: The session in progress.
        now: Time of the move (UTC).
        verify: Ask the database whether a kept machine is current even within
            :func:`one_transaction` (for a use case that may not save the session).

    Raises:
        SessionNotFound: If no session with that id is in progress.
    """
    moment = require_utc(now)
    live = session_cache.take(study, vault, session_id)
    attempt = _attempt.get()
    if live is not None:
        if not verify and attempt is not None and attempt.trust_kept:
            attempt.trusted = True
        # A session id may be used again once its session is deleted (SQLite reuses the
        # highest): the start time tells the two apart where the revision cannot.
        elif study.store.active_session_stamp(study.scope, session_id) != (
            live.saved.revision,
            live.saved.started_at,
        ):
            live = None
    if live is not None:
        live.rebind(study, clock=lambda: moment)
    else:
        saved = study.store.get_active_session(study.scope, session_id)
        if saved is None:
            raise SessionNotFound(
                f"No session {session_id} in progress. Start one, or see the sessions "
                "in progress with list_sessions()."
            )
        live = restore_session(study, drawn_vault(vault, saved), saved, clock=lambda: moment)
    # In one_transaction a failed save means "again from the database": a review can be
    # written with its save in one go (its card having changed fails the save too).
    live.join_saves(attempt is not None)
    session_cache.keep(study, vault, live)
    return live.saved, live

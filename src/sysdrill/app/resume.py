"""A practice left unfinished, found again at the next start to go on with it.

Every move of a session is saved as it is made (:mod:`sysdrill.app.sessions`),
so a practice cut short (Ctrl-C, a closed terminal, a killed process) is still
a session in progress in the database. The next ``practice`` started with the
same options goes on with it instead of planning another; the learner may end
it instead (its reviews stay recorded) and start afresh.

Only practice is resumed this way: a quiz, a chain or the daily set is short and
planned again the same, and a gauntlet's countdown runs on while nobody looks.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sysdrill.app.session_lineups import StartOptions
from sysdrill.app.session_records import list_sessions
from sysdrill.app.template_draws import TEMPLATE_SEED_KEY
from sysdrill.study.service import StudyService
from sysdrill.study.sessions.state_machine import SessionKind

__all__ = ["RESUMABLE_KINDS", "UnfinishedSession", "find_unfinished"]

RESUMABLE_KINDS = frozenset({SessionKind.PRACTICE})
"""Kinds of session an interruption leaves in progress, to be resumed at the next start."""


@dataclass(frozen=True, slots=True)
class UnfinishedSession:
    """A session in progress that a new start with the same options would resume."""

    session_id: int
    title: str
    done: int
    """Items behind the learner (answered or skipped)."""
    items: int
    """Items planned."""
    started_at: datetime
    updated_at: datetime
    """When its last move was made (UTC)."""


def _started_with(options: dict[str, object]) -> dict[str, object]:
    """The options a session was started with, less the seed the start itself drew."""
    return {key: value for key, value in options.items() if key != TEMPLATE_SEED_KEY}


def find_unfinished(
    study: StudyService, options: StartOptions, *, now: datetime
) -> UnfinishedSession | None:
    """The most recently moved session in progress started with ``options``, if any.

    Only kinds in :data:`RESUMABLE_KINDS` are looked for; a session that asks
    nothing more (every item answered) is not offered.

    Args:
        study: The learner's study service (its vault's scope).
        options: What the new session would be started with.
        now: Current time (UTC).

    Returns:
        The session to resume, or None when there is none.
    """
    if options.kind not in RESUMABLE_KINDS:
        return None
    wanted = options.to_dict()
    open_ids = {entry["session_id"] for entry in list_sessions(study, now=now)}
    for saved in study.store.list_active_sessions(study.scope):  # most recently moved first
        if int(saved.session_id) not in open_ids or saved.kind != options.kind.value:
            continue
        if _started_with(dict(saved.options.get("started_with", {}))) == wanted:
            return UnfinishedSession(
                session_id=int(saved.session_id),
                title=str(saved.options.get("title", saved.kind)),
                done=saved.position,
                items=len(saved.item_ids),
                started_at=saved.started_at,
                updated_at=saved.updated_at,
            )
    return None

"""Finished interviews: the report of one, and every one in the state export and back.

The report reads the conductor's saved state and the turns (each item's best
share of the key points, hints, skips, napkin verdicts); the ratings shown are
those :func:`~sysdrill.study.interview.item_rating` gave the reviews. The state
export (``sysdrill state export``) carries every interview of the learner in the
vault with its turns; ``state import`` stores them again.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, BinaryIO

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from sysdrill.app.interview import InterviewView, interview_row, interview_view, open_interviews
from sysdrill.app.study_vault import StudyVault
from sysdrill.errors import ImportFailed
from sysdrill.storage.interview_store import InterviewStore, TurnRow
from sysdrill.study.interview import InterviewState, item_rating
from sysdrill.study.service import StudyService

__all__ = [
    "InterviewResults",
    "export_interviews",
    "import_interviews",
    "import_state_file",
    "interview_results",
    "parse_interviews",
    "write_state_file",
]


# -- results -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class InterviewResults:
    """A finished (or abandoned) interview, item by item, like the gauntlet's report."""

    view: InterviewView
    items: tuple[dict[str, Any], ...]
    score: float
    """Mean share of the key points made over the items asked, 0.0 to 1.0."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready mapping."""
        return {**self.view.to_dict(), "items": list(self.items), "score": round(self.score, 4)}


def interview_results(
    study: StudyService, vault: StudyVault, store: InterviewStore, interview_id: int
) -> InterviewResults:
    """Each item asked: its rating, key points made, hints, and the napkin verdicts.

    Raises:
        SessionNotFound: If the learner has no interview with that id.
    """
    view = interview_view(study, store, interview_id)
    row = interview_row(study, store, interview_id)
    state = InterviewState.from_dict(row.state)
    items = []
    asked = [p for n, p in enumerate(state.progress) if p.done or n == state.position]
    for progress in asked:
        found = vault.by_id.get(progress.item_id)
        verdicts = [
            v
            for turn in view.turns
            if turn.item_id == progress.item_id and turn.assessment is not None
            for v in turn.assessment.get("math", [])
        ]
        items.append(
            {
                "item_id": progress.item_id,
                "title": (found.title if found is not None else None) or progress.item_id,
                "level": found.level.value if found is not None and found.level else None,
                "answers": progress.answers,
                "hints": progress.hints,
                "skipped": progress.skipped,
                "done": progress.done,
                "key_points_made": round(progress.best_fraction, 4),
                "rating": item_rating(progress).name.lower() if progress.done else None,
                "math": verdicts,
            }
        )
    done = [p for p in state.progress if p.done]
    score = sum(p.best_fraction for p in done) / len(done) if done else 0.0
    return InterviewResults(view, tuple(items), score)


def export_interviews(study: StudyService, store: InterviewStore) -> list[dict[str, Any]]:
    """Every interview of the learner in this vault with its turns, oldest first (JSON-ready).

    The endpoint's API key is never stored with an interview, so it is never exported.
    """
    exported = []
    for row in reversed(store.list_interviews(study.scope)):
        exported.append(
            {
                "title": row.title,
                "pick": {"kind": row.pick_kind, "name": row.pick_name},
                "conductor": row.conductor,
                "endpoint": row.endpoint or None,
                "model": row.model_name or None,
                "started_at": row.started_at.isoformat(),
                "ended_at": None if row.ended_at is None else row.ended_at.isoformat(),
                "state": row.state,
                "turns": [turn.to_dict() for turn in store.turns_of(study.scope, row.id)],
            }
        )
    return exported


class _Turn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    role: str = Field(pattern="^(interviewer|learner)$")
    intent: str = Field(max_length=20)
    item_id: str | None = Field(default=None, max_length=300)
    text: str
    assessment: dict[str, Any] | None = None
    source: str = Field(max_length=20)
    created_at: datetime


class _Pick(BaseModel):
    kind: str = Field(max_length=20)
    name: str = Field(max_length=300)


class _Interview(BaseModel):
    """One interview of a state export."""

    model_config = ConfigDict(extra="forbid")

    title: str = Field(max_length=300)
    pick: _Pick
    conductor: str = Field(pattern="^(rubric|model)$")
    endpoint: str | None = Field(default=None, max_length=500)
    model: str | None = Field(default=None, max_length=200)
    started_at: datetime
    ended_at: datetime | None = None
    state: dict[str, Any]
    turns: list[_Turn]


def parse_interviews(data: dict[str, Any]) -> list[_Interview]:
    """The ``interviews`` of a state export document, validated before anything is stored.

    Raises:
        ImportFailed: If they are not a list of interviews of a state export.
    """
    entries = data.get("interviews") or []
    if not isinstance(entries, list):
        raise ImportFailed("The file's interviews are not a list.")
    try:
        parsed = [_Interview.model_validate(entry) for entry in entries]
        for entry in parsed:
            InterviewState.from_dict(entry.state)
    except (ValidationError, KeyError, TypeError, ValueError) as exc:
        raise ImportFailed(f"An interview of the file is malformed: {str(exc)[:300]}") from exc
    return parsed


def import_interviews(
    study: StudyService, store: InterviewStore, parsed: list[_Interview], *, replace: bool
) -> int:
    """Store interviews read by :func:`parse_interviews` (after ``replace``, the scope's go first).

    The reviews they made came with the export's review log; the interviews no
    longer name a session (sessions are renumbered on import).

    Returns:
        How many interviews were stored.
    """
    if replace:
        store.delete_interviews(study.scope)
    for entry in parsed:
        state = InterviewState.from_dict(entry.state)
        interview_id = store.create_interview(
            study.scope,
            session_id=None,
            pick_kind=entry.pick.kind,
            pick_name=entry.pick.name,
            title=entry.title,
            state=state.to_dict(),
            conductor=entry.conductor,
            endpoint=entry.endpoint or "",
            model_name=entry.model or "",
            turns=[TurnRow(**turn.model_dump()) for turn in entry.turns],
            now=entry.started_at,
        )
        if entry.ended_at is not None:
            store.save_turns(
                study.scope,
                interview_id,
                revision=0,
                state=state.to_dict(),
                turns=[],
                now=entry.ended_at,
                ended=True,
            )
    return len(parsed)


def write_state_file(
    study: StudyService,
    db_url: str | None,
    out: BinaryIO,
    *,
    now: datetime,
    progress: Callable[[str, int, int], None] | None = None,
) -> tuple[int, int]:
    """Write the ``state export`` document to ``out``: the learner's state, then interviews.

    Args:
        study: The learner's study service.
        db_url: The study database (its interviews are read there).
        out: A binary file open for writing (UTF-8 JSON).
        now: Export time (UTC).
        progress: Called as ``progress(stage, done, total)`` while reviews are written.

    Returns:
        The cards and the reviews written.
    """
    from sysdrill.study.state_io import write_user_state

    with open_interviews(db_url) as store:
        interviews = export_interviews(study, store)
    return write_user_state(
        study.store,
        study.scope,
        out,
        user=study.user,
        now=now,
        interviews=interviews,
        progress=progress,
    )


def import_state_file(
    study: StudyService,
    db_url: str | None,
    data: dict[str, Any],
    *,
    replace: bool,
    into_vault: bool,
) -> int:
    """Load a ``state export`` document: its reviews, then its interviews (``state import``).

    The interviews are validated first, so a malformed one stores nothing at all,
    not the reviews without the interviews.

    Returns:
        How many reviews were imported.

    Raises:
        ImportFailed: If the document or one of its interviews is malformed.
    """
    parsed = parse_interviews(data)
    count = study.import_state(data, replace=replace, into_vault=into_vault)
    if parsed or replace:
        with open_interviews(db_url) as store:
            import_interviews(study, store, parsed, replace=replace)
    return count

"""Mock interviews in the study database: the interview and its turns (migration 0014).

An interview belongs to one learner and one vault (a :class:`StudyScope`), like
all study data: every read and write here names the scope, so no learner reaches
another's transcript. A turn's save writes the conductor's new state and the new
turns in one transaction, only while the stored revision is the one the turn was
made on (a turn made twice, by two tabs or two workers, fails the second time).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa

from sysdrill.errors import StorageConflict
from sysdrill.storage import schema as t
from sysdrill.storage.engine_store import EngineStore
from sysdrill.storage.sql_rows import of_scope
from sysdrill.study.user_state import StudyScope

__all__ = ["InterviewRow", "InterviewStore", "TurnRow", "interview_turns", "interviews"]

interviews = sa.Table(
    "interviews",
    t.metadata,
    sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
    sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id"), nullable=False),
    sa.Column("vault_id", sa.String(t.VAULT_ID_LENGTH), nullable=False),
    sa.Column("session_id", sa.Integer(), nullable=True),
    sa.Column("pick_kind", sa.String(20), nullable=False),
    sa.Column("pick_name", sa.String(300), nullable=False),
    sa.Column("title", sa.String(300), nullable=False),
    sa.Column("state_json", sa.Text(), nullable=False),
    sa.Column("revision", sa.Integer(), nullable=False),
    sa.Column("conductor", sa.String(20), nullable=False),
    sa.Column("endpoint", sa.String(500), nullable=False),
    sa.Column("model_name", sa.String(200), nullable=False),
    sa.Column("started_at", t.UtcDateTime, nullable=False),
    sa.Column("updated_at", t.UtcDateTime, nullable=False),
    sa.Column("ended_at", t.UtcDateTime, nullable=True),
    sa.Index("ix_interviews_user_vault", "user_id", "vault_id"),
)
"""Mock interviews: the ladder and conductor state (JSON), who conducted, when."""

interview_turns = sa.Table(
    "interview_turns",
    t.metadata,
    sa.Column("interview_id", sa.Integer(), sa.ForeignKey("interviews.id"), primary_key=True),
    sa.Column("seq", sa.Integer(), primary_key=True),
    sa.Column("role", sa.String(20), nullable=False),
    sa.Column("intent", sa.String(20), nullable=False),
    sa.Column("item_id", sa.String(300), nullable=True),
    sa.Column("text", sa.Text(), nullable=False),
    sa.Column("assessment_json", sa.Text(), nullable=True),
    sa.Column("source", sa.String(20), nullable=False),
    sa.Column("created_at", t.UtcDateTime, nullable=False),
)
"""The turns of each interview, in order (``seq`` from 0)."""


@dataclass(frozen=True, slots=True)
class TurnRow:
    """One stored turn."""

    role: str
    """``interviewer`` or ``learner``."""
    intent: str
    """The interviewer's intent, or the learner's move."""
    item_id: str | None
    text: str
    assessment: dict[str, Any] | None
    """Key-point scores and napkin verdicts of the answer replied to (JSON-ready)."""
    source: str
    """Who decided the turn: ``learner``, ``rubric``, ``model``, or ``rubric-fallback``."""
    created_at: datetime
    """When the turn was made (UTC)."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready mapping (time as ISO 8601)."""
        return {
            "role": self.role,
            "intent": self.intent,
            "item_id": self.item_id,
            "text": self.text,
            "assessment": self.assessment,
            "source": self.source,
            "created_at": self.created_at.isoformat(),
        }


@dataclass(frozen=True, slots=True)
class InterviewRow:
    """One stored interview, without its turns."""

    id: int
    session_id: int | None
    pick_kind: str
    pick_name: str
    title: str
    state: dict[str, Any]
    revision: int
    conductor: str
    """``rubric`` (the built-in conductor) or ``model``."""
    endpoint: str
    """The base URL of the endpoint that received the text; empty for none."""
    model_name: str
    started_at: datetime
    updated_at: datetime
    ended_at: datetime | None


def _aware(value: datetime | None) -> datetime | None:
    # PostgreSQL answers in the connection's time zone.
    return None if value is None else value.astimezone(UTC)


def _interview(row: Any) -> InterviewRow:
    started = _aware(row.started_at)
    updated = _aware(row.updated_at)
    assert started is not None and updated is not None
    return InterviewRow(
        id=int(row.id),
        session_id=None if row.session_id is None else int(row.session_id),
        pick_kind=str(row.pick_kind),
        pick_name=str(row.pick_name),
        title=str(row.title),
        state=json.loads(row.state_json),
        revision=int(row.revision),
        conductor=str(row.conductor),
        endpoint=str(row.endpoint),
        model_name=str(row.model_name),
        started_at=started,
        updated_at=updated,
        ended_at=_aware(row.ended_at),
    )


def _turn_values(interview_id: int, seq: int, turn: TurnRow) -> dict[str, Any]:
    return {
        "interview_id": interview_id,
        "seq": seq,
        "role": turn.role,
        "intent": turn.intent,
        "item_id": turn.item_id,
        "text": turn.text,
        "assessment_json": None
        if turn.assessment is None
        else json.dumps(turn.assessment, sort_keys=True),
        "source": turn.source,
        "created_at": turn.created_at,
    }


class InterviewStore(EngineStore):
    """Interview rows over the process's engine for one database URL."""

    def create_interview(
        self,
        scope: StudyScope,
        *,
        session_id: int | None,
        pick_kind: str,
        pick_name: str,
        title: str,
        state: dict[str, Any],
        conductor: str,
        endpoint: str,
        model_name: str,
        turns: Sequence[TurnRow],
        now: datetime,
    ) -> int:
        """Store a new interview with its first turns; return its id."""
        with self._write("starting an interview") as conn:
            found = conn.execute(
                interviews.insert().values(
                    user_id=scope.user_id,
                    vault_id=scope.vault_id,
                    session_id=session_id,
                    pick_kind=pick_kind,
                    pick_name=pick_name,
                    title=title[:300],
                    state_json=json.dumps(state, sort_keys=True),
                    revision=0,
                    conductor=conductor,
                    endpoint=endpoint[:500],
                    model_name=model_name[:200],
                    started_at=now,
                    updated_at=now,
                    ended_at=None,
                )
            )
            key = found.inserted_primary_key
            assert key is not None
            interview_id = int(key[0])
            if turns:
                conn.execute(
                    interview_turns.insert(),
                    [_turn_values(interview_id, seq, turn) for seq, turn in enumerate(turns)],
                )
        return interview_id

    def get_interview(self, scope: StudyScope, interview_id: int) -> InterviewRow | None:
        """The scope's interview with that id; None when it has none."""
        query = sa.select(interviews).where(
            interviews.c.id == interview_id, of_scope(interviews, scope)
        )
        with self._read("reading an interview") as conn:
            row = conn.execute(query).first()
        return None if row is None else _interview(row)

    def list_interviews(self, scope: StudyScope) -> list[InterviewRow]:
        """The scope's interviews, newest first."""
        query = (
            sa.select(interviews)
            .where(of_scope(interviews, scope))
            .order_by(interviews.c.started_at.desc(), interviews.c.id.desc())
        )
        with self._read("listing interviews") as conn:
            return [_interview(row) for row in conn.execute(query)]

    def turns_of(self, scope: StudyScope, interview_id: int) -> list[TurnRow]:
        """The turns of the scope's interview, in order (none for another's)."""
        i, tt = interviews.c, interview_turns.c
        query = (
            sa.select(interview_turns)
            .join(interviews, i.id == tt.interview_id)
            .where(tt.interview_id == interview_id, of_scope(interviews, scope))
            .order_by(tt.seq)
        )
        with self._read("reading an interview's turns") as conn:
            rows = conn.execute(query).all()
        return [
            TurnRow(
                role=str(row.role),
                intent=str(row.intent),
                item_id=None if row.item_id is None else str(row.item_id),
                text=str(row.text),
                assessment=None if row.assessment_json is None else json.loads(row.assessment_json),
                source=str(row.source),
                created_at=_aware(row.created_at) or datetime.min.replace(tzinfo=UTC),
            )
            for row in rows
        ]

    def save_turns(
        self,
        scope: StudyScope,
        interview_id: int,
        *,
        revision: int,
        state: dict[str, Any],
        turns: Sequence[TurnRow],
        now: datetime,
        ended: bool,
    ) -> int:
        """Append ``turns`` and store the new state, while the revision is ``revision``.

        Returns:
            The new revision.

        Raises:
            StorageConflict: If the interview moved on meanwhile, or is not the
                scope's (nothing written).
        """
        i = interviews.c
        with self._write("saving an interview turn") as conn:
            changed = conn.execute(
                interviews.update()
                .where(i.id == interview_id, i.revision == revision, of_scope(interviews, scope))
                .values(
                    state_json=json.dumps(state, sort_keys=True),
                    revision=revision + 1,
                    updated_at=now,
                    ended_at=now if ended else None,
                )
            )
            if changed.rowcount != 1:
                raise StorageConflict(
                    "This interview moved on in another window or tab; reload it to go on."
                )
            start = conn.execute(
                sa.select(sa.func.count())
                .select_from(interview_turns)
                .where(interview_turns.c.interview_id == interview_id)
            ).scalar_one()
            if turns:
                conn.execute(
                    interview_turns.insert(),
                    [
                        _turn_values(interview_id, int(start) + n, turn)
                        for n, turn in enumerate(turns)
                    ],
                )
        return revision + 1

    def delete_interviews(self, scope: StudyScope) -> int:
        """Forget every interview of the scope (``state import --replace``); return how many."""
        mine = sa.select(interviews.c.id).where(of_scope(interviews, scope))
        with self._write("deleting interviews") as conn:
            conn.execute(interview_turns.delete().where(interview_turns.c.interview_id.in_(mine)))
            gone = conn.execute(interviews.delete().where(of_scope(interviews, scope)))
        return int(gone.rowcount)

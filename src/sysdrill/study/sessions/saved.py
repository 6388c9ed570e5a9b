"""A study session in progress, as the study store keeps it between requests.

A session is saved as its plan (the options it was started with and the item
order) and the moves the learner made, each with the time it was made. Any
process can rebuild the live :class:`~sysdrill.study.sessions.state_machine.Session`
by replaying the moves (see ``sysdrill.app.sessions``), so a web server's
next request may land on another worker, and a restarted server resumes
where the learner stopped.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from sysdrill.study.user_state import SessionId

__all__ = ["SavedSession"]


@dataclass(frozen=True, slots=True)
class SavedSession:
    """One session in progress: what it asks and the moves made so far."""

    session_id: SessionId
    """The id of the session's history record (``sessions`` table)."""
    kind: str
    """``practice``, ``quiz``, ``gauntlet``, ``chain`` or ``daily``."""
    options: dict[str, Any]
    """The plan's rules and what the session was started with (JSON-ready)."""
    item_ids: tuple[str, ...]
    """The planned items, in the order they are asked."""
    started_at: datetime
    updated_at: datetime
    position: int = 0
    """Items behind the learner (answered, skipped), for listings."""
    moves: tuple[dict[str, Any], ...] = field(default_factory=tuple)
    """The learner's moves in order (JSON-ready: move, value, time, review id)."""
    revision: int = 0
    """Bumped by every save; a save from a stale copy is refused."""

    def with_last_review(self, review_id: int) -> SavedSession:
        """The record with its last move noting the review it wrote (by id)."""
        last = {**self.moves[-1], "review_id": review_id}
        return replace(self, moves=(*self.moves[:-1], last))

    def to_dict(self) -> dict[str, Any]:
        """Return the record as a JSON-ready mapping (times in ISO 8601)."""
        return {
            "session_id": int(self.session_id),
            "kind": self.kind,
            "options": self.options,
            "item_ids": list(self.item_ids),
            "started_at": self.started_at.isoformat(),
            "updated_at": self.updated_at.isoformat(),
            "position": self.position,
            "moves": [dict(move) for move in self.moves],
            "revision": self.revision,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SavedSession:
        """Rebuild a record written by :meth:`to_dict`."""
        return cls(
            session_id=SessionId(int(data["session_id"])),
            kind=str(data["kind"]),
            options=dict(data["options"]),
            item_ids=tuple(data["item_ids"]),
            started_at=datetime.fromisoformat(data["started_at"]),
            updated_at=datetime.fromisoformat(data["updated_at"]),
            position=int(data["position"]),
            moves=tuple(dict(move) for move in data["moves"]),
            revision=int(data["revision"]),
        )

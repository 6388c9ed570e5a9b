"""Anki's scheduling of the cards of a package: card state and review log, as plain data.

Read only when asked (``sysdrill import --with-scheduling``). Each Anki card is
matched to the item it became (by the item's ``source.key``: the note GUID,
``<guid>#c<N>`` for cloze card ``N``, ``<guid>#forward``/``#reverse`` for the
cards of a reversed note, ``<guid>#t<N>`` for card ``N`` of a note type with
three or more templates). Times are UTC. The mapping to sysdrill's FSRS card
state is done by the study layer (``sysdrill.app.anki_history``); this module
only reads what the collection says.
"""

from __future__ import annotations

import json
import sqlite3  # noqa: TID251 - reads a foreign Anki file, not our storage
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

__all__ = ["AnkiCardHistory", "AnkiReview", "read_scheduling"]

_DAY_SECONDS = 86_400


@dataclass(frozen=True, slots=True)
class AnkiReview:
    """One entry of Anki's review log (``revlog``)."""

    reviewed_at: datetime
    rating: int
    """1 Again, 2 Hard, 3 Good, 4 Easy."""
    kind: int
    """Anki's review type: 0 learning, 1 review, 2 relearning, 3 filtered deck."""
    interval_days: float
    """Interval the review set, in days (Anki stores seconds as negative numbers)."""
    last_interval_days: float
    """Interval the card had before the review, in days."""
    duration_ms: int


@dataclass(slots=True)
class AnkiCardHistory:
    """One Anki card's state and its review log."""

    card_type: int
    """0 new, 1 learning, 2 review, 3 relearning."""
    due: datetime | None
    interval_days: float
    ease_permille: int
    """Anki's SM-2 ease factor (2500 is 250 %); 0 for new cards."""
    reps: int
    lapses: int
    stability_days: float | None = None
    """FSRS memory state when Anki kept one (``cards.data``)."""
    difficulty: float | None = None
    """FSRS difficulty when Anki kept one, 1 to 10."""
    reviews: list[AnkiReview] = field(default_factory=list)


def _days(interval: int) -> float:
    # Anki stores learning intervals as negative seconds.
    return interval / -_DAY_SECONDS if interval < 0 else float(interval)


def _memory_state(data: object) -> tuple[float | None, float | None]:
    if not isinstance(data, str) or not data.startswith("{"):
        return None, None
    try:
        parsed = json.loads(data)
    except json.JSONDecodeError:
        return None, None
    if not isinstance(parsed, dict):
        return None, None
    stability, difficulty = parsed.get("s"), parsed.get("d")
    return (
        float(stability) if isinstance(stability, int | float) and stability > 0 else None,
        float(difficulty) if isinstance(difficulty, int | float) and difficulty > 0 else None,
    )


def _columns(conn: sqlite3.Connection, table: str) -> set[str]:
    return {str(row[1]) for row in conn.execute(f"PRAGMA table_info({table})")}


def read_scheduling(
    conn: sqlite3.Connection, card_keys: dict[int, str]
) -> dict[str, AnkiCardHistory]:
    """Card state and review log of the cards named in ``card_keys``.

    Args:
        conn: The opened collection (read-only).
        card_keys: Item key of each Anki card id to read.

    Returns:
        Each card's history by item key (the first card of a key wins).
    """
    row = conn.execute("SELECT crt FROM col LIMIT 1").fetchone()
    created = datetime.fromtimestamp(int(row[0]) if row and row[0] else 0, UTC)
    has_data = "data" in _columns(conn, "cards")
    query = "SELECT id, type, due, ivl, factor, reps, lapses" + (
        ", data FROM cards" if has_data else ", '' FROM cards"
    )
    found: dict[int, AnkiCardHistory] = {}
    keys_taken: set[str] = set()
    for cid, kind, due, ivl, factor, reps, lapses, data in conn.execute(query):
        key = card_keys.get(int(cid))
        if key is None or key in keys_taken:
            continue
        keys_taken.add(key)
        card_type = int(kind or 0)
        when: datetime | None = None
        if card_type == 2:
            when = created + timedelta(days=int(due or 0))
        elif card_type in (1, 3):
            when = datetime.fromtimestamp(int(due or 0), UTC)
        stability, difficulty = _memory_state(data)
        found[int(cid)] = AnkiCardHistory(
            card_type=card_type,
            due=when,
            interval_days=_days(int(ivl or 0)),
            ease_permille=int(factor or 0),
            reps=int(reps or 0),
            lapses=int(lapses or 0),
            stability_days=stability,
            difficulty=difficulty,
        )
    if "revlog" in {str(r[0]) for r in conn.execute("SELECT name FROM sqlite_master")}:
        rows = conn.execute(
            "SELECT id, cid, ease, type, ivl, lastIvl, time FROM revlog ORDER BY id"
        )
        for rid, cid, ease, kind, ivl, last_ivl, took in rows:
            history = found.get(int(cid))
            if history is None or not 1 <= int(ease or 0) <= 4 or int(kind or 0) > 3:
                continue  # manual reschedules and resets are not reviews
            history.reviews.append(
                AnkiReview(
                    reviewed_at=datetime.fromtimestamp(int(rid) / 1000, UTC),
                    rating=int(ease),
                    kind=int(kind or 0),
                    interval_days=_days(int(ivl or 0)),
                    last_interval_days=_days(int(last_ivl or 0)),
                    duration_ms=max(int(took or 0), 0),
                )
            )
    return {card_keys[cid]: history for cid, history in found.items()}

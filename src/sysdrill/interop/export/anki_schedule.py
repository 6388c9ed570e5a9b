"""Write sysdrill's scheduling into an exported Anki collection, so Anki continues from it.

For each exported item with a history (``sysdrill export --with-scheduling``),
its Anki card gets our state: card type and queue (new, learning, review,
relearning), due (days since the collection's creation for review cards,
seconds since the epoch for learning ones), interval, reps, lapses, the FSRS
memory state in ``cards.data`` (``{"s": stability, "d": difficulty}``, which
Anki's FSRS reads), and one ``revlog`` row per review. Anki imports them when
the package is imported with scheduling.
"""

from __future__ import annotations

import json
import sqlite3  # noqa: TID251 - writes the exported Anki collection, not our storage
from collections.abc import Mapping

from sysdrill.interop.anki_scheduling import AnkiCardHistory

__all__ = ["set_card_queues", "write_scheduling"]

_DAY_SECONDS = 86_400
_DEFAULT_EASE_PERMILLE = 2500


def set_card_queues(conn: sqlite3.Connection, queues: Mapping[tuple[str, int], int]) -> int:
    """Put the cards named by (note GUID, card ordinal) in a queue: -1 suspended, -3 buried.

    Anki keeps the queue when the package is imported with scheduling.

    Returns:
        Cards changed.
    """
    if not queues:
        return 0
    cards = _card_ids(conn)
    rows = [(queue, cards[slot]) for slot, queue in queues.items() if slot in cards]
    conn.executemany("UPDATE cards SET queue = ? WHERE id = ?", rows)
    return len(rows)


def _card_ids(conn: sqlite3.Connection) -> dict[tuple[str, int], int]:
    """Each card's id by (note GUID, card ordinal), read once (genanki indexes no GUID)."""
    rows = conn.execute(
        "SELECT notes.guid, cards.ord, cards.id FROM cards JOIN notes ON notes.id = cards.nid"
    )
    return {(str(guid), int(ord_)): int(cid) for guid, ord_, cid in rows}


def _anki_interval(days: float) -> int:
    # Anki stores intervals under a day as negative seconds.
    return round(days) if days >= 1 else -max(round(days * _DAY_SECONDS), 1)


def _due(history: AnkiCardHistory, created_s: int) -> int:
    if history.due is None:
        return 0
    seconds = int(history.due.timestamp())
    if history.card_type == 2:
        return max((seconds - created_s) // _DAY_SECONDS, 0)
    return seconds


def write_scheduling(
    conn: sqlite3.Connection, cards: Mapping[tuple[str, int], AnkiCardHistory]
) -> int:
    """Set the state of the cards named by (note GUID, card ordinal) and append their reviews.

    Returns:
        Reviews written to ``revlog``.
    """
    row = conn.execute("SELECT crt FROM col LIMIT 1").fetchone()
    created_s = int(row[0]) if row and row[0] else 0
    used_ids: set[int] = {int(r[0]) for r in conn.execute("SELECT id FROM revlog")}
    written = 0
    card_ids = _card_ids(conn) if cards else {}
    for slot, history in cards.items():
        card_id = card_ids.get(slot)
        if card_id is None:
            continue
        queue = {0: 0, 1: 1, 2: 2, 3: 1}.get(history.card_type, 0)
        ease = history.ease_permille or (_DEFAULT_EASE_PERMILLE if history.card_type else 0)
        memory = (
            {"s": round(history.stability_days, 4), "d": round(history.difficulty, 4)}
            if history.stability_days and history.difficulty
            else {}
        )
        conn.execute(
            "UPDATE cards SET type = ?, queue = ?, due = ?, ivl = ?, factor = ?, reps = ?, "
            "lapses = ?, data = ? WHERE id = ?",
            (
                history.card_type,
                queue,
                _due(history, created_s),
                max(round(history.interval_days), 0) if history.card_type == 2 else 0,
                ease,
                history.reps,
                history.lapses,
                json.dumps(memory) if memory else "",
                card_id,
            ),
        )
        for review in history.reviews:
            review_id = int(review.reviewed_at.timestamp() * 1000)
            while review_id in used_ids:
                review_id += 1
            used_ids.add(review_id)
            conn.execute(
                "INSERT INTO revlog (id, cid, usn, ease, ivl, lastIvl, factor, time, type) "
                "VALUES (?, ?, -1, ?, ?, ?, ?, ?, ?)",
                (
                    review_id,
                    card_id,
                    review.rating,
                    _anki_interval(review.interval_days),
                    _anki_interval(review.last_interval_days) if review.last_interval_days else 0,
                    ease,
                    min(review.duration_ms, 60_000),
                    review.kind,
                ),
            )
            written += 1
    return written

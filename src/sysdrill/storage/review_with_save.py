"""PostgreSQL: a rating's whole write (card, review, day's counts, session) in one statement.

A rating in a session writes the item's card (only while it is the card read),
the review, the day's counts and the session's save (only while the session is
at the revision read). As four statements
in a transaction that was BEGIN, two statements and COMMIT; as one statement,
outside any transaction, it is one round trip and still all or nothing, since a
statement is.

The session's new moves are sent as two pieces of JSON text, before and after the
new review's id, which the statement puts between them and appends to the stored
moves (see ``sql_rows.MOVES_KEPT``): the last move records
its review's id, which only the insert knows. The statement returns that id, or
NULL when the card was not the one read (then nothing is written). When the
session's save matched no row although the review was inserted, it divides by
the saves' count, zero, and PostgreSQL undoes the whole statement:
``DivisionByZero`` then means the session moved on.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from sysdrill.storage import schema as t
from sysdrill.storage.sql_rows import (
    CHECKED_CARD_WRITES,
    MOVES_OPENED,
    SAVE_ACTIVE_SESSION,
    reviewed_from,
    saving_moves,
)

__all__ = ["MOVES_WITH_REVIEW_ID", "REVIEW_WITH_SAVE", "moves_around_review_id"]

MOVES_WITH_REVIEW_ID = -7_000_000_000_000_000_001
"""Stands in the moves' JSON for the review id the statement fills in (real ids are > 0)."""
_MARK = f'"review_id":{MOVES_WITH_REVIEW_ID}'


def moves_around_review_id(moves_json: str) -> tuple[str, str]:
    """The moves' JSON before and after :data:`MOVES_WITH_REVIEW_ID` (in the last move).

    A string value cannot hold the mark: JSON escapes the quotes inside strings.
    """
    head, mark, tail = moves_json.rpartition(_MARK)
    if not mark:
        raise ValueError("The last move does not carry the review id to fill in.")
    return head + '"review_id":', tail


def _statement(card_write: Any) -> Any:
    card = card_write.cte("card_written")
    review_insert, day = reviewed_from(card)
    review = review_insert.returning(t.reviews.c.id).cte("review_written")
    review_id = sa.select(review.c.id).scalar_subquery()
    moves = (
        MOVES_OPENED
        + sa.bindparam("m_head", type_=sa.Text())
        + sa.cast(review_id, sa.Text())
        + sa.bindparam("m_tail", type_=sa.Text())
    )
    save = SAVE_ACTIVE_SESSION.where(sa.exists(sa.select(review.c.id)))
    saved = saving_moves(save, moves).returning(t.active_sessions.c.session_id).cte("session_saved")
    saves = sa.select(sa.func.count()).select_from(saved).scalar_subquery()
    # NULL / 0 is NULL (the card had changed: nothing written); id / 0 raises.
    return sa.select((review_id / saves).label("review_id")).add_cte(card, review, day, saved)


REVIEW_WITH_SAVE = {
    read_card: _statement(CHECKED_CARD_WRITES["postgresql"][1 if read_card else 0])
    for read_card in (False, True)
}
"""The statement by whether a card was read."""

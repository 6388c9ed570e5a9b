"""Session moves as rows: one row per move of a session in progress.

A session's moves were one JSON array in ``active_sessions.moves_json``, which every
move rewrote (or appended to with string surgery). Each move is now a row of
``session_moves`` keyed by its session and its place in the session (``seq``); a
move's save inserts one row. The existing arrays are copied into rows, in order.

Revision ID: 0013_session_moves
Revises: 0012_card_version
"""

import json

import sqlalchemy as sa
from alembic import op

revision = "0013_session_moves"
down_revision = "0012_card_version"
branch_labels = None
depends_on = None

_ACTIVE = sa.table(
    "active_sessions", sa.column("session_id", sa.Integer()), sa.column("moves_json", sa.Text())
)
_MOVES = sa.table(
    "session_moves",
    sa.column("session_id", sa.Integer()),
    sa.column("seq", sa.Integer()),
    sa.column("move_json", sa.Text()),
)


def _create_moves_table() -> None:
    op.create_table(
        "session_moves",
        sa.Column(
            "session_id",
            sa.Integer(),
            sa.ForeignKey("active_sessions.session_id"),
            primary_key=True,
        ),
        sa.Column("seq", sa.Integer(), primary_key=True),
        sa.Column("move_json", sa.Text(), nullable=False),
    )


def upgrade() -> None:
    conn = op.get_bind()
    # Read first: SQLite's batch mode rebuilds active_sessions, which it cannot drop
    # while session_moves rows refer to it.
    found = conn.execute(sa.select(_ACTIVE.c.session_id, _ACTIVE.c.moves_json)).all()
    with op.batch_alter_table("active_sessions") as batch:
        batch.drop_column("moves_json")
    _create_moves_table()
    rows = [
        {"session_id": session_id, "seq": seq, "move_json": json.dumps(move, sort_keys=True)}
        for session_id, text in found
        for seq, move in enumerate(json.loads(text))
    ]
    if rows:
        conn.execute(_MOVES.insert(), rows)


def downgrade() -> None:
    conn = op.get_bind()
    moves: dict[int, list[object]] = {}
    query = sa.select(_MOVES.c.session_id, _MOVES.c.move_json).order_by(
        _MOVES.c.session_id, _MOVES.c.seq
    )
    for session_id, text in conn.execute(query):
        moves.setdefault(session_id, []).append(json.loads(text))
    op.drop_table("session_moves")
    with op.batch_alter_table("active_sessions") as batch:
        batch.add_column(sa.Column("moves_json", sa.Text(), nullable=False, server_default="[]"))
    for session_id, listed in moves.items():
        conn.execute(
            _ACTIVE.update()
            .where(_ACTIVE.c.session_id == session_id)
            .values(moves_json=json.dumps(listed, sort_keys=True, separators=(",", ":")))
        )

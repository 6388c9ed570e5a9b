"""Mock interviews: one row per interview, one row per turn.

An interview (``sysdrill interview``, the Interview page) keeps its ladder of
items and the conductor's state as JSON under a revision every turn raises, the
endpoint and model that conducted it (empty for the built-in conductor), and
the study session its reviews belong to. Each turn, the interviewer's or the
learner's, is a row of ``interview_turns`` keyed by its interview and its place
(``seq``): the text, the intent, the napkin verdicts and key-point scores, and
whether a model or the rubric decided it.

The session is a plain id, not a foreign key: ``state import --replace`` deletes
a learner's sessions, and the interviews that named them stay readable.

Revision ID: 0014_interviews
Revises: 0013_session_moves
"""

import sqlalchemy as sa
from alembic import op

revision = "0014_interviews"
down_revision = "0013_session_moves"
branch_labels = None
depends_on = None

_TIME = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "interviews",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id"), nullable=False),
        sa.Column("vault_id", sa.String(200), nullable=False),
        sa.Column("session_id", sa.Integer(), nullable=True),
        sa.Column("pick_kind", sa.String(20), nullable=False),
        sa.Column("pick_name", sa.String(300), nullable=False),
        sa.Column("title", sa.String(300), nullable=False),
        sa.Column("state_json", sa.Text(), nullable=False),
        sa.Column("revision", sa.Integer(), nullable=False),
        sa.Column("conductor", sa.String(20), nullable=False),
        sa.Column("endpoint", sa.String(500), nullable=False),
        sa.Column("model_name", sa.String(200), nullable=False),
        sa.Column("started_at", _TIME, nullable=False),
        sa.Column("updated_at", _TIME, nullable=False),
        sa.Column("ended_at", _TIME, nullable=True),
    )
    # A learner's interviews in one vault are listed newest first.
    op.create_index("ix_interviews_user_vault", "interviews", ["user_id", "vault_id"])
    op.create_table(
        "interview_turns",
        sa.Column("interview_id", sa.Integer(), sa.ForeignKey("interviews.id"), primary_key=True),
        sa.Column("seq", sa.Integer(), primary_key=True),
        sa.Column("role", sa.String(20), nullable=False),
        sa.Column("intent", sa.String(20), nullable=False),
        sa.Column("item_id", sa.String(300), nullable=True),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("assessment_json", sa.Text(), nullable=True),
        sa.Column("source", sa.String(20), nullable=False),
        sa.Column("created_at", _TIME, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("interview_turns")
    op.drop_index("ix_interviews_user_vault", table_name="interviews")
    op.drop_table("interviews")

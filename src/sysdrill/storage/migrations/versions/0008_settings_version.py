"""Settings version: a counter per learner that every change of their settings raises.

A web worker keeps each learner's settings under it, and the login lookup every
request makes reads it along, so a move need not read the settings again.

Revision ID: 0008_settings_version
Revises: 0007_personal_decks
"""

import sqlalchemy as sa
from alembic import op

revision = "0008_settings_version"
down_revision = "0007_personal_decks"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column(
        "users",
        sa.Column("settings_version", sa.Integer(), nullable=False, server_default="0"),
    )


def downgrade() -> None:
    # Native DROP COLUMN (SQLite 3.35+): a copy of the table would cascade into every
    # table that refers to its users.
    op.drop_column("users", "settings_version")

"""Card version: raised by every write of a card, for the optimistic check of a review.

Revision ID: 0012_card_version
Revises: 0011_problem_reports
"""

import sqlalchemy as sa
from alembic import op

revision = "0012_card_version"
down_revision = "0011_problem_reports"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("cards", sa.Column("version", sa.Integer(), nullable=False, server_default="0"))


def downgrade() -> None:
    op.drop_column("cards", "version")  # native DROP COLUMN, as 0008's downgrade

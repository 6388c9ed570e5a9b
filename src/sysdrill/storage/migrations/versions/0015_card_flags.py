"""Card flags: items a learner suspended or buried, and an index for an item's reviews.

One row per (user, vault, item) that is kept out of sessions: ``suspended``
until the learner takes it back, ``buried_until`` the instant a bury ends (the
next midnight UTC). An item with neither has no row. The index serves an
item's review history (the item page, ``sysdrill item history``), which
otherwise reads the learner's whole log.

Revision ID: 0015_card_flags
Revises: 0014_interviews
"""

import sqlalchemy as sa
from alembic import op

revision = "0015_card_flags"
down_revision = "0014_interviews"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "card_flags",
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id"), primary_key=True),
        sa.Column("vault_id", sa.String(200), primary_key=True),
        sa.Column("item_id", sa.String(300), primary_key=True),
        sa.Column("suspended", sa.Boolean(), nullable=False),
        sa.Column("buried_until", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index("ix_reviews_user_item", "reviews", ["user_id", "vault_id", "item_id"])


def downgrade() -> None:
    op.drop_index("ix_reviews_user_item", table_name="reviews")
    op.drop_table("card_flags")

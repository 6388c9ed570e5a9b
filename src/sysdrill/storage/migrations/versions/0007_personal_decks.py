"""Personal decks: decks a learner imports that only they see.

The items are kept in the database, not in a vault folder, so every worker of a
multi-user server serves them. ``personal_deck_versions`` holds a counter per
learner that every import or deletion raises; workers cache a learner's merged
vault under it.

Revision ID: 0007_personal_decks
Revises: 0006_vault_keyed_state
"""

import sqlalchemy as sa
from alembic import op

revision = "0007_personal_decks"
down_revision = "0006_vault_keyed_state"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "personal_decks",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id"), nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("title", sa.String(300), nullable=False),
        sa.Column("source_name", sa.String(300), nullable=False),
        sa.Column("format", sa.String(40), nullable=False),
        sa.Column("item_count", sa.Integer(), nullable=False),
        sa.Column("imported_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("user_id", "name", name="uq_personal_decks_user_name"),
    )
    op.create_table(
        "personal_items",
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id"), primary_key=True),
        sa.Column("item_id", sa.String(300), primary_key=True),
        sa.Column("deck_id", sa.Integer(), sa.ForeignKey("personal_decks.id"), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("item_json", sa.Text(), nullable=False),
    )
    op.create_index("ix_personal_items_deck_id", "personal_items", ["deck_id"])
    op.create_table(
        "personal_deck_versions",
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id"), primary_key=True),
        sa.Column("version", sa.Integer(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("personal_deck_versions")
    op.drop_index("ix_personal_items_deck_id", table_name="personal_items")
    op.drop_table("personal_items")
    op.drop_table("personal_decks")

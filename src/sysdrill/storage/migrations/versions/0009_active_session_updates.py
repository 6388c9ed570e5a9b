"""Sessions in progress: a move's update changes no indexed column.

Every move of a session rewrites its row in ``active_sessions``. Its index held
``updated_at``, which every move changes, so each move wrote the index too and,
on PostgreSQL, could never be a heap-only (HOT) update: every move added an entry
to each of the table's indexes and left a dead row for vacuum. The index now holds
the learner and vault alone (a learner has a few sessions in progress; listing
them sorts those few by time).

Revision ID: 0009_active_session_updates
Revises: 0008_settings_version
"""

from alembic import op

revision = "0009_active_session_updates"
down_revision = "0008_settings_version"
branch_labels = None
depends_on = None

_INDEX = "ix_active_sessions_user"


def upgrade() -> None:
    op.drop_index(_INDEX, table_name="active_sessions")
    op.create_index(_INDEX, "active_sessions", ["user_id", "vault_id"])


def downgrade() -> None:
    op.drop_index(_INDEX, table_name="active_sessions")
    op.create_index(_INDEX, "active_sessions", ["user_id", "vault_id", "updated_at"])

"""Study state keyed by vault: cards, reviews, sessions and review days get a vault_id.

Two vaults that hold the same item id (importers reuse ids such as
``global-flashcard-0001``) used to share one card. Every row written before this
revision is given the legacy vault identity ``(legacy)``: nothing recorded which
vault it was studied with, and the first vault opened that holds one of its
studied items adopts it (``docs/sessions.md``). The column keeps that value as
its default, so no row can be left without a vault; sysdrill always names one.

SQLite cannot change a primary key in place, so ``cards`` and ``review_days``
(which no table refers to) are copied into new tables; ``reviews``, ``sessions``
and ``active_sessions`` only gain a column (copying ``sessions`` would cascade
the deletion of the old table to sessions in progress).

Downgrading drops the column again, which only works while no learner has the
same item (or the same day of counters) in two vaults; otherwise it stops with
an error and changes nothing.

Revision ID: 0006_vault_keyed_state
Revises: 0005_server_secrets
"""

import warnings

import sqlalchemy as sa
from alembic import op

revision = "0006_vault_keyed_state"
down_revision = "0005_server_secrets"
branch_labels = None
depends_on = None

LEGACY = "(legacy)"
VAULT_ID_LENGTH = 200

# table -> (primary key before, primary key after); None for tables keyed by id.
_KEYS: dict[str, tuple[list[str], list[str]] | None] = {
    "cards": (["user_id", "item_id"], ["user_id", "vault_id", "item_id"]),
    "review_days": (["user_id", "day"], ["user_id", "vault_id", "day"]),
    "reviews": None,
    "sessions": None,
    "active_sessions": None,
}

# name -> (table, columns before, columns after)
_INDEXES = {
    "ix_cards_user_due": (
        "cards",
        ["user_id", "due", "item_id"],
        ["user_id", "vault_id", "due", "item_id"],
    ),
    "ix_reviews_user_time": (
        "reviews",
        ["user_id", "reviewed_at"],
        ["user_id", "vault_id", "reviewed_at"],
    ),
    "ix_reviews_user_day": (
        "reviews",
        ["user_id", "review_day"],
        ["user_id", "vault_id", "review_day"],
    ),
    "ix_sessions_user": ("sessions", ["user_id", "id"], ["user_id", "vault_id", "id"]),
    "ix_active_sessions_user": (
        "active_sessions",
        ["user_id", "updated_at"],
        ["user_id", "vault_id", "updated_at"],
    ),
}


def _set_primary_key(table: str, columns: list[str]) -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.drop_constraint(f"{table}_pkey", table, type_="primary")
        op.create_primary_key(f"{table}_pkey", table, columns)
        return
    # SQLAlchemy warns that the reflected key differs from the one the copy is
    # given, which is the change asked for.
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Table '_alembic_tmp_", sa.exc.SAWarning)
        with op.batch_alter_table(table, recreate="always") as batch:
            batch.create_primary_key(f"pk_{table}", columns)


def _rebuild_indexes(*, after: bool) -> None:
    for name, (table, before_columns, after_columns) in _INDEXES.items():
        op.drop_index(name, table_name=table)
        op.create_index(name, table, after_columns if after else before_columns)


def upgrade() -> None:
    for table in _KEYS:
        op.add_column(
            table,
            sa.Column(
                "vault_id",
                sa.String(VAULT_ID_LENGTH),
                nullable=False,
                server_default=LEGACY,
            ),
        )
    for table, keys in _KEYS.items():
        if keys is not None:
            _set_primary_key(table, keys[1])
    _rebuild_indexes(after=True)


def downgrade() -> None:
    bind = op.get_bind()
    for table, keys in _KEYS.items():
        if keys is None:
            continue
        key: list[sa.ColumnClause[object]] = [sa.column(name) for name in keys[0]]
        clash = bind.execute(
            sa.select(*key).select_from(sa.table(table)).group_by(*key).having(sa.func.count() > 1)
        ).first()
        if clash is not None:
            raise RuntimeError(
                f"{table} holds {tuple(clash)} in more than one vault; a schema before "
                "0006_vault_keyed_state cannot keep both. Export each vault's state "
                "(sysdrill state export) before downgrading."
            )
    _rebuild_indexes(after=False)
    for table, keys in _KEYS.items():
        if keys is not None:
            _set_primary_key(table, keys[0])
    for table in _KEYS:
        # Native DROP COLUMN (SQLite 3.35+): no copy of the table, so no cascade.
        op.drop_column(table, "vault_id")

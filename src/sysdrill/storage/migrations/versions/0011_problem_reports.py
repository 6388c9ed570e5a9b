"""Problem reports in the database, so every worker serving it records and lists the same ones.

Until now the web app appended reports to ``reports.jsonl`` in the user data folder,
under a lock of its own process: several workers did not share it, and workers on
several machines each had their own file. The file is not imported (it may not be on
the machine that migrates); sysdrill no longer reads or writes it.

Revision ID: 0011_problem_reports
Revises: 0010_login_throttle
"""

import sqlalchemy as sa
from alembic import op

revision = "0011_problem_reports"
down_revision = "0010_login_throttle"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "problem_reports",
        sa.Column(
            "id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            primary_key=True,
            autoincrement=True,
        ),
        sa.Column("item_id", sa.String(300), nullable=False),
        sa.Column("kind", sa.String(20), nullable=False),
        sa.Column("message", sa.Text(), nullable=False),
        sa.Column("user_name", sa.String(200), nullable=False),
        sa.Column("reported_at", sa.DateTime(timezone=True), nullable=False),
    )
    # The authors' list reads them newest first.
    op.create_index("ix_problem_reports_reported_at", "problem_reports", ["reported_at"])


def downgrade() -> None:
    op.drop_index("ix_problem_reports_reported_at", table_name="problem_reports")
    op.drop_table("problem_reports")

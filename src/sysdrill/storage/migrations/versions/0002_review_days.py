"""Per-day review counters, so progress reports need not scan the whole log.

Revision ID: 0002_review_days
Revises: 0001_initial
"""

import sqlalchemy as sa
from alembic import op

revision = "0002_review_days"
down_revision = "0001_initial"
branch_labels = None
depends_on = None

MATURE_INTERVAL_DAYS = 21.0
NEW, REVIEW = 0, 2


def upgrade() -> None:
    op.create_table(
        "review_days",
        sa.Column(
            "user_id",
            sa.Integer(),
            sa.ForeignKey("users.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("day", sa.Date(), primary_key=True),
        sa.Column("reviews", sa.Integer(), nullable=False),
        sa.Column("new_items", sa.Integer(), nullable=False),
        sa.Column("young_first", sa.Integer(), nullable=False),
        sa.Column("young_passed", sa.Integer(), nullable=False),
        sa.Column("mature_first", sa.Integer(), nullable=False),
        sa.Column("mature_passed", sa.Integer(), nullable=False),
        sa.Column("duration_ms", sa.BigInteger(), nullable=False),
    )
    reviews = sa.table(
        "reviews",
        sa.column("user_id", sa.Integer()),
        sa.column("review_day", sa.Date()),
        sa.column("rating", sa.Integer()),
        sa.column("state_before", sa.Integer()),
        sa.column("interval_before_days", sa.Float()),
        sa.column("first_of_day", sa.Boolean()),
        sa.column("duration_ms", sa.Integer()),
    )
    r = reviews.c
    graduated = sa.and_(r.first_of_day.is_(True), r.state_before == REVIEW)
    mature = r.interval_before_days >= MATURE_INTERVAL_DAYS
    young = sa.or_(r.interval_before_days.is_(None), r.interval_before_days < MATURE_INTERVAL_DAYS)
    passed = r.rating > 1

    def count(condition: sa.ColumnElement[bool]) -> sa.ColumnElement[int]:
        return sa.func.coalesce(sa.func.sum(sa.case((condition, 1), else_=0)), 0)

    summary = sa.select(
        r.user_id,
        r.review_day,
        sa.func.count(),
        count(r.state_before == NEW),
        count(sa.and_(graduated, young)),
        count(sa.and_(graduated, young, passed)),
        count(sa.and_(graduated, mature)),
        count(sa.and_(graduated, mature, passed)),
        sa.func.coalesce(sa.func.sum(r.duration_ms), 0),
    ).group_by(r.user_id, r.review_day)
    target = sa.table(
        "review_days",
        *(
            sa.column(name)
            for name in (
                "user_id",
                "day",
                "reviews",
                "new_items",
                "young_first",
                "young_passed",
                "mature_first",
                "mature_passed",
                "duration_ms",
            )
        ),
    )
    op.execute(target.insert().from_select(list(target.c.keys()), summary))


def downgrade() -> None:
    op.drop_table("review_days")

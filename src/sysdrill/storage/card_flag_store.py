"""Suspended and buried items in the SQL study store (the ``card_flags`` table).

Mixed into :class:`~sysdrill.storage.sql_store.SqlStudyStore`. An item that
nothing keeps out of sessions has no row: clearing its flags deletes the row,
so the table holds only what a learner set aside.
"""

from __future__ import annotations

from datetime import datetime

import sqlalchemy as sa

from sysdrill.storage import schema as t
from sysdrill.storage.engine_store import EngineStore
from sysdrill.storage.sql_rows import of_scope, utc
from sysdrill.study.card_flags import CardFlags
from sysdrill.study.user_state import StudyScope

__all__ = ["CardFlagStore"]


class CardFlagStore(EngineStore):
    """The card-flag methods of the SQL study store."""

    def get_card_flags(self, scope: StudyScope, item_id: str) -> CardFlags:
        """Return the item's flags (clear ones when none are stored)."""
        f = t.card_flags.c
        query = sa.select(f.suspended, f.buried_until).where(
            of_scope(t.card_flags, scope), f.item_id == item_id
        )
        with self._read("reading an item's flags") as conn:
            row = conn.execute(query).first()
        if row is None:
            return CardFlags(item_id)
        return CardFlags(item_id, suspended=bool(row[0]), buried_until=utc(row[1]))

    def put_card_flags(self, scope: StudyScope, flags: CardFlags) -> None:
        """Store ``flags`` in place of the item's (clear flags delete its row)."""
        mine = sa.and_(of_scope(t.card_flags, scope), t.card_flags.c.item_id == flags.item_id)
        with self._write("saving an item's flags") as conn:
            conn.execute(t.card_flags.delete().where(mine))
            if not flags.is_clear:
                conn.execute(
                    t.card_flags.insert().values(
                        user_id=scope.user_id,
                        vault_id=scope.vault_id,
                        item_id=flags.item_id,
                        suspended=flags.suspended,
                        buried_until=flags.buried_until,
                    )
                )

    def held_item_ids(self, scope: StudyScope, *, now: datetime) -> set[str]:
        """Return the ids of items suspended, or buried past ``now`` (UTC)."""
        f = t.card_flags.c
        query = sa.select(f.item_id).where(
            of_scope(t.card_flags, scope),
            sa.or_(f.suspended.is_(True), f.buried_until > now),
        )
        with self._read("reading suspended and buried items") as conn:
            return {str(row[0]) for row in conn.execute(query)}

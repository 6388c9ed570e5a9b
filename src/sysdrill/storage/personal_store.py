"""Personal decks in the study database: decks a learner imported that only they see.

A multi-user server may run several workers on several hosts, so the decks live
in the database, never on one worker's disk. Every row belongs to one user; no
method reads or changes another user's rows. Each import or deletion raises the
learner's deck version in the same transaction, so a worker that cached the
learner's merged vault under an older version knows to build it again.

The rules (formats, limits, id clashes) live in :mod:`sysdrill.app.personal_decks`;
this module stores rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from sysdrill.errors import StorageConflict
from sysdrill.storage import schema as t
from sysdrill.storage.engine_store import EngineStore

__all__ = ["PersonalDeckRow", "PersonalDeckStore", "PersonalItemRow"]


@dataclass(frozen=True, slots=True)
class PersonalDeckRow:
    """One personal deck as stored (its items are read separately)."""

    name: str
    title: str
    source_name: str
    """The name of the file the deck was imported from."""
    format: str
    """The import format the file was read as."""
    item_count: int
    imported_at: datetime
    """When the deck was imported (UTC)."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready mapping."""
        return {
            "name": self.name,
            "title": self.title,
            "source_name": self.source_name,
            "format": self.format,
            "item_count": self.item_count,
            "imported_at": self.imported_at.isoformat(),
        }


@dataclass(frozen=True, slots=True)
class PersonalItemRow:
    """One item of a personal deck: its id, its deck's name and the item as JSON."""

    deck: str
    item_id: str
    item_json: str


_DECK_COLUMNS = (
    t.personal_decks.c.name,
    t.personal_decks.c.title,
    t.personal_decks.c.source_name,
    t.personal_decks.c.format,
    t.personal_decks.c.item_count,
    t.personal_decks.c.imported_at,
)


def _deck_row(row: Any) -> PersonalDeckRow:
    return PersonalDeckRow(
        name=str(row.name),
        title=str(row.title),
        source_name=str(row.source_name),
        format=str(row.format),
        item_count=int(row.item_count),
        imported_at=row.imported_at,
    )


def _user_id(name: str) -> sa.ScalarSelect[Any]:
    return sa.select(t.users.c.id).where(t.users.c.name == name).scalar_subquery()


_VERSION_QUERY = (
    sa.select(t.personal_deck_versions.c.version)
    .join_from(
        t.personal_deck_versions, t.users, t.personal_deck_versions.c.user_id == t.users.c.id
    )
    .where(t.users.c.name == sa.bindparam("name"))
)


class PersonalDeckStore(EngineStore):
    """Personal deck rows over the process's engine for one database URL."""

    def deck_version(self, user: str) -> int:
        """The learner's deck version: 0 if they never imported a personal deck.

        One indexed lookup: the only query a request of a learner without
        personal decks adds.
        """
        with self._read("reading the personal deck version") as conn:
            found = conn.execute(_VERSION_QUERY, {"name": user}).scalar()
        return 0 if found is None else int(found)

    def list_decks(self, user: str) -> list[PersonalDeckRow]:
        """The learner's personal decks, by name."""
        query = (
            sa.select(*_DECK_COLUMNS)
            .where(t.personal_decks.c.user_id == _user_id(user))
            .order_by(t.personal_decks.c.name)
        )
        with self._read("listing personal decks") as conn:
            return [_deck_row(row) for row in conn.execute(query)]

    def item_ids(self, user: str) -> set[str]:
        """The ids of every item of the learner's personal decks."""
        query = sa.select(t.personal_items.c.item_id).where(
            t.personal_items.c.user_id == _user_id(user)
        )
        with self._read("reading personal item ids") as conn:
            return {str(row[0]) for row in conn.execute(query)}

    def load_items(self, user: str) -> tuple[int, list[PersonalDeckRow], list[PersonalItemRow]]:
        """The learner's deck version, decks and items (deck by deck, in deck order).

        Read in one transaction, so the three agree with each other.
        """
        d, i = t.personal_decks.c, t.personal_items.c
        decks = sa.select(*_DECK_COLUMNS).where(d.user_id == _user_id(user)).order_by(d.name)
        items = (
            sa.select(d.name, i.item_id, i.item_json)
            .join_from(t.personal_items, t.personal_decks, i.deck_id == d.id)
            .where(i.user_id == _user_id(user))
            .order_by(d.name, i.position)
        )
        with self._read("reading personal decks") as conn, conn.begin():
            version = conn.execute(_VERSION_QUERY, {"name": user}).scalar()
            found_decks = [_deck_row(row) for row in conn.execute(decks)]
            found_items = [
                PersonalItemRow(str(r.name), str(r.item_id), str(r.item_json))
                for r in conn.execute(items)
            ]
        return (0 if version is None else int(version)), found_decks, found_items

    def add_deck(
        self,
        user: str,
        deck: PersonalDeckRow,
        items: Sequence[tuple[str, str]],
        *,
        now: datetime,
    ) -> int:
        """Store a deck and its ``(item id, item JSON)`` pairs, all or nothing.

        Creates the user row on first use. Returns the learner's new deck version.

        Raises:
            StorageConflict: If the learner already has a deck of that name or an
                item of one of those ids (nothing is written).
        """
        with self._write(f"storing the personal deck {deck.name!r}") as conn:
            user_id = self._ensure_user(conn, user, now=now)
            result = conn.execute(
                t.personal_decks.insert().values(
                    user_id=user_id,
                    name=deck.name,
                    title=deck.title,
                    source_name=deck.source_name,
                    format=deck.format,
                    item_count=len(items),
                    imported_at=deck.imported_at,
                )
            )
            assert result.inserted_primary_key is not None
            deck_id = result.inserted_primary_key[0]
            if items:
                conn.execute(
                    t.personal_items.insert(),
                    [
                        {
                            "user_id": user_id,
                            "item_id": item_id,
                            "deck_id": deck_id,
                            "position": position,
                            "item_json": item_json,
                        }
                        for position, (item_id, item_json) in enumerate(items)
                    ],
                )
            return self._raise_version(conn, user_id)

    def replace_deck(
        self,
        user: str,
        deck: PersonalDeckRow,
        items: Sequence[tuple[str, str]],
    ) -> int:
        """Put ``items`` in place of the items of the learner's deck ``deck.name``, all or nothing.

        The deck row takes ``deck``'s title, source, format and import time. Study
        state (cards, reviews) is keyed by item id and never touched, so items kept
        under their id keep their history. Returns the learner's new deck version.

        Raises:
            StorageConflict: If the deck is gone, or another deck of the learner holds
                one of those item ids (nothing is written).
        """
        d = t.personal_decks.c
        with self._write(f"updating the personal deck {deck.name!r}") as conn:
            found = conn.execute(
                sa.select(d.id, d.user_id).where(d.user_id == _user_id(user), d.name == deck.name)
            ).first()
            if found is None:
                raise StorageConflict(f"the personal deck {deck.name!r} was deleted just now")
            conn.execute(t.personal_items.delete().where(t.personal_items.c.deck_id == found.id))
            conn.execute(
                t.personal_decks.update()
                .where(d.id == found.id)
                .values(
                    title=deck.title,
                    source_name=deck.source_name,
                    format=deck.format,
                    item_count=len(items),
                    imported_at=deck.imported_at,
                )
            )
            if items:
                conn.execute(
                    t.personal_items.insert(),
                    [
                        {
                            "user_id": int(found.user_id),
                            "item_id": item_id,
                            "deck_id": found.id,
                            "position": position,
                            "item_json": item_json,
                        }
                        for position, (item_id, item_json) in enumerate(items)
                    ],
                )
            return self._raise_version(conn, int(found.user_id))

    def delete_deck(self, user: str, name: str) -> bool:
        """Delete the learner's deck ``name`` and its items; False if they have none of that name.

        Study state (cards, reviews) of its items is kept: importing the deck
        again continues where the learner stopped.
        """
        d = t.personal_decks.c
        with self._write(f"deleting the personal deck {name!r}") as conn:
            found = conn.execute(
                sa.select(d.id, d.user_id).where(d.user_id == _user_id(user), d.name == name)
            ).first()
            if found is None:
                return False
            conn.execute(t.personal_items.delete().where(t.personal_items.c.deck_id == found.id))
            conn.execute(t.personal_decks.delete().where(d.id == found.id))
            self._raise_version(conn, int(found.user_id))
        return True

    @staticmethod
    def _ensure_user(conn: Connection, name: str, *, now: datetime) -> int:
        known = conn.execute(sa.select(t.users.c.id).where(t.users.c.name == name)).scalar()
        if known is not None:
            return int(known)
        result = conn.execute(t.users.insert().values(name=name, created_at=now))
        assert result.inserted_primary_key is not None
        return int(result.inserted_primary_key[0])

    @staticmethod
    def _raise_version(conn: Connection, user_id: int) -> int:
        v = t.personal_deck_versions.c
        changed = conn.execute(
            t.personal_deck_versions.update()
            .where(v.user_id == user_id)
            .values(version=v.version + 1)
            .returning(v.version)
        ).scalar()
        if changed is not None:
            return int(changed)
        conn.execute(t.personal_deck_versions.insert().values(user_id=user_id, version=1))
        return 1

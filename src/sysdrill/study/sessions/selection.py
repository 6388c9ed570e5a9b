"""Which items a session shows: studyable items, decks, filters and the daily three."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import replace
from datetime import date

from sysdrill.content.collections import Deck
from sysdrill.content.enums import Status
from sysdrill.content.models import Item
from sysdrill.errors import DeckNotFound
from sysdrill.study.filters import ItemFilter

__all__ = [
    "DAILY_COUNT",
    "daily_items",
    "deck_items",
    "deck_names",
    "filter_items",
    "studyable",
]

DAILY_COUNT = 3
"""Items in the daily set."""

_RETIRED = frozenset({Status.ARCHIVED, Status.DELETED})


def studyable(items: Sequence[Item]) -> list[Item]:
    """Items a learner may be asked: everything but archived and deleted ones."""
    return [item for item in items if item.status not in _RETIRED]


def deck_names(items: Sequence[Item], decks: Sequence[Deck]) -> list[str]:
    """Every deck name: those of ``decks.yaml`` first, then those only items name."""
    names = [deck.name for deck in decks]
    for item in items:
        if item.deck and item.deck not in names:
            names.append(item.deck)
    return names


def deck_items(items: Sequence[Item], decks: Sequence[Deck], name: str) -> list[Item]:
    """The items of one deck, in order.

    The deck's own list in ``decks.yaml`` comes first, then the items whose
    ``deck`` field names it, in vault order; an item is never listed twice.
    Ids the deck lists but the vault lacks are passed over (``check`` reports them).

    Args:
        items: Studyable items of the vault.
        decks: Decks of ``decks.yaml``.
        name: The deck's name.

    Returns:
        The deck's items in order.

    Raises:
        DeckNotFound: If no deck has that name, naming the known decks.
    """
    by_id = {item.id: item for item in items}
    listed = next((deck for deck in decks if deck.name == name), None)
    chosen: list[Item] = []
    seen: set[str] = set()
    for item_id in listed.items if listed else ():
        if item_id in by_id and item_id not in seen:
            chosen.append(by_id[item_id])
            seen.add(item_id)
    for item in items:
        if item.deck == name and item.id not in seen:
            chosen.append(item)
            seen.add(item.id)
    if listed is None and not chosen:
        known = deck_names(items, decks)
        hint = f" Known decks: {', '.join(known)}." if known else " This vault has no decks."
        raise DeckNotFound(f"No deck named {name!r}.{hint}")
    return chosen


def filter_items(
    items: Sequence[Item], decks: Sequence[Deck], item_filter: ItemFilter
) -> list[Item]:
    """Studyable items that pass ``item_filter``; ``deck`` also takes ``decks.yaml`` lists.

    Raises:
        DeckNotFound: If the filter names a deck that does not exist.
    """
    pool = studyable(items)
    if item_filter.deck is not None:
        pool = deck_items(pool, decks, item_filter.deck)
        item_filter = replace(item_filter, deck=None)
    return [item for item in pool if item_filter.matches(item)]


def _daily_key(day: date, item_filter: ItemFilter, item_id: str) -> str:
    criteria = "|".join(
        str(value or "")
        for value in (
            item_filter.deck,
            item_filter.track,
            item_filter.level,
            item_filter.zone,
            item_filter.topic,
            item_filter.competency_area,
            item_filter.tag,
        )
    )
    text = f"{day.isoformat()}|{criteria}|{item_id}"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def daily_items(
    items: Sequence[Item], *, item_filter: ItemFilter, day: date, count: int = DAILY_COUNT
) -> list[Item]:
    """The day's items: the same filters on the same day always give the same items.

    Each item gets a rank from a SHA-256 of the day, the filter and its id, so
    the choice does not depend on file order or on what else is in the vault,
    and changes every day.

    Args:
        items: Candidate items (already filtered).
        item_filter: The learner's filters (part of the hash, so another filter
            gives another set).
        day: The UTC day.
        count: How many items to choose.

    Returns:
        Up to ``count`` items, in rank order.
    """
    ranked = sorted(items, key=lambda item: _daily_key(day, item_filter, item.id))
    return ranked[:count]

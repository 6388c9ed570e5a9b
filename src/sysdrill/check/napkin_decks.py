"""Decks whose items the napkin tier leaves alone (``skip_napkin_check`` in ``decks.yaml``).

A deck imported from a flashcard app holds numbers that are not napkin math:
"96 - 12" in a chemistry deck is bond notation, not a subtraction to check. Such a
deck says so once, and every item in it (listed under its ``items`` or naming it in
its own ``deck`` field) gets no napkin finding, while every other rule still runs.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from sysdrill.content.collections import Deck

__all__ = ["NapkinExemptions", "napkin_exemptions"]


@dataclass(frozen=True, slots=True)
class NapkinExemptions:
    """The items the napkin tier does not judge, by deck name and by listed id."""

    deck_names: frozenset[str] = frozenset()
    item_ids: frozenset[str] = frozenset()

    def __bool__(self) -> bool:
        return bool(self.deck_names or self.item_ids)

    def covers(self, item_id: str | None, deck: str | None) -> bool:
        """Whether the item ``item_id``, whose own ``deck`` field is ``deck``, is exempt."""
        return (deck is not None and deck in self.deck_names) or (
            item_id is not None and item_id in self.item_ids
        )


def napkin_exemptions(decks: Iterable[Deck]) -> NapkinExemptions:
    """The exemptions the decks of a vault declare (none when no deck sets the flag)."""
    skipped = [deck for deck in decks if deck.skip_napkin_check]
    return NapkinExemptions(
        frozenset(deck.name for deck in skipped),
        frozenset(str(item) for deck in skipped for item in deck.items),
    )

"""Chains: an item's place in the chains of ``chains.yaml`` and what comes next."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from sysdrill.content.collections import Chain
from sysdrill.content.models import Item, QuestionId
from sysdrill.errors import ChainNotFound

__all__ = ["ChainIndex", "ChainStep", "chain_items"]


@dataclass(frozen=True, slots=True)
class ChainStep:
    """The item that follows another in a chain."""

    chain: Chain
    position: int
    """0-based position of the following item in the chain."""
    item: Item


class ChainIndex:
    """Lookup of chains by id and of the next item after any chain member.

    Args:
        chains: The vault's chains.
        items: Studyable items; chain entries that name other ids are passed over.
    """

    def __init__(self, chains: Sequence[Chain], items: Sequence[Item]) -> None:
        self._chains = list(chains)
        self._items = {item.id: item for item in items}

    def get(self, chain_id: str) -> Chain:
        """Return the chain with that id.

        Raises:
            ChainNotFound: If there is none, naming the known chains.
        """
        for chain in self._chains:
            if chain.id == chain_id:
                return chain
        known = ", ".join(chain.id for chain in self._chains)
        hint = f" Known chains: {known}." if known else " This vault has no chains."
        raise ChainNotFound(f"No chain with id {chain_id!r}.{hint}")

    def reachable_from(self, item_ids: Iterable[str]) -> frozenset[str]:
        """Ids a "next in chain" offer can name in a session of ``item_ids``.

        An offer follows :meth:`next_after` from an item of the session, and an
        accepted offer joins the session, so these are the items reached by
        following it again and again (the starting ids only when an offer reaches
        them too). A few dozen ids where the whole vault's chain members would be
        thousands: a session keeps this set with it.
        """
        reached: set[str] = set()
        frontier = list(dict.fromkeys(item_ids))
        while frontier:
            step = self.next_after(frontier.pop())
            if step is not None and step.item.id not in reached:
                reached.add(step.item.id)
                frontier.append(step.item.id)
        return frozenset(reached)

    def next_after(self, item_id: str) -> ChainStep | None:
        """The next studyable item after ``item_id`` in the first chain holding it.

        Returns:
            The following step, or None when the item is in no chain or ends it.
        """
        for chain in self._chains:
            if item_id not in chain.items:
                continue
            start = chain.items.index(QuestionId(item_id)) + 1
            for position in range(start, len(chain.items)):
                following = self._items.get(chain.items[position])
                if following is not None:
                    return ChainStep(chain, position, following)
        return None


def chain_items(chain: Chain, items: Sequence[Item]) -> list[Item]:
    """The chain's studyable items in chain order (ids the vault lacks are passed over)."""
    by_id = {item.id: item for item in items}
    return [by_id[item_id] for item_id in chain.items if item_id in by_id]

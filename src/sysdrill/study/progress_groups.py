"""The seen cards of a vault grouped for the progress report, kept while neither changes.

The report walks every item of the vault (100,000 in a large one) to count the
seen and mastered items of each coverage cell and to gather each topic's cards.
None of that depends on the time of the report: only the probability of recall
does. So the grouping is kept for the last few (items, seen cards) pairs, by
identity: a loaded vault keeps one items list until its files change, and the
study store gives back the same seen-cards list while the learner's cards are
unchanged (:mod:`sysdrill.storage.card_snapshot`). A new list of either is a new
grouping. Each report then computes only the recall of the grouped cards
(``sysdrill.study.progress``).
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from operator import attrgetter
from typing import Protocol

from sysdrill.study.card_figures import SeenCard
from sysdrill.study.card_state import CardState

__all__ = [
    "KEPT_GROUPINGS",
    "MASTERED_STABILITY_DAYS",
    "CardGroups",
    "ProgressItem",
    "TopicCards",
    "group_cards",
]

KEPT_GROUPINGS = 2
"""Groupings kept (the least recently used goes): each holds its items and cards alive."""
MASTERED_STABILITY_DAYS = 21.0
"""FSRS stability from which an item counts as mastered, in days (as the report defines it)."""

_NEW = CardState.NEW.value
_REVIEW = CardState.REVIEW.value
_ITEM_FIELDS = attrgetter("competency_area", "track", "id", "topic")

Cell = tuple[str | None, str | None]
"""A coverage cell: (competency area, track) as the items hold them (None for none)."""


class ProgressItem(Protocol):
    """What the report reads of an item: its coverage cell, id and topic.

    An :class:`~sysdrill.content.models.Item` has these, and so has a row of a
    vault's catalogue, so the report of a large vault needs no item loaded.
    """

    @property
    def id(self) -> str:
        """The item's id."""

    @property
    def competency_area(self) -> str | None:
        """Its competency area (None for none)."""

    @property
    def track(self) -> str | None:
        """Its track (None for none)."""

    @property
    def topic(self) -> str | None:
        """Its topic (None for none)."""


@dataclass(frozen=True, slots=True)
class TopicCards:
    """The seen cards of one topic's items."""

    seen: int
    """Items of the topic reviewed at least once."""
    lapses: int
    """Times they were forgotten after graduating, summed."""
    stabilities_days: list[float]
    """FSRS stability of each seen card that has a recall (not back in NEW), in days."""
    last_reviews_us: list[int]
    """Last review of the same cards, epoch microseconds (same order)."""
    item_ids: list[str]
    """Ids of the topic's seen items (whose ratings the weakest topics count)."""


@dataclass(frozen=True, slots=True)
class CardGroups:
    """What the progress report counts of the vault's items and the learner's cards."""

    cells: dict[Cell, tuple[int, int, int]]
    """Items, seen and mastered of each coverage cell."""
    seen: int
    mastered: int
    topics: dict[str, TopicCards]


_lock = threading.Lock()
_kept: list[tuple[Sequence[ProgressItem], Sequence[SeenCard], CardGroups]] = []


def group_cards(items: Sequence[ProgressItem], cards: Sequence[SeenCard]) -> CardGroups:
    """The report's counts of ``items`` and its topics' cards, kept while both are the same.

    Args:
        items: The vault's items (a list a loaded vault or catalogue keeps unchanged).
        cards: The learner's seen cards (from the store; unchanged while kept).
    """
    with _lock:
        for index, (kept_items, kept_cards, groups) in enumerate(_kept):
            if kept_items is items and kept_cards is cards:
                _kept.append(_kept.pop(index))
                return groups
    groups = _group(items, cards)
    with _lock:
        _kept.append((items, cards, groups))
        del _kept[:-KEPT_GROUPINGS]
    return groups


def _group(items: Sequence[ProgressItem], cards: Sequence[SeenCard]) -> CardGroups:
    by_id = {card[0]: card for card in cards}
    # The loop visits every item of the vault: fields are read by attrgetter, in C,
    # and nothing is built per item that the item does not need.
    fields = list(map(_ITEM_FIELDS, items))
    cells: dict[Cell, list[int]] = {
        key: [count, 0, 0] for key, count in Counter(f[:2] for f in fields).items()
    }
    topics: dict[str, tuple[list[int], list[float], list[int], list[str]]] = {}
    seen = mastered = 0
    find_card = by_id.get
    for area, track, item_id, topic in fields:
        card = find_card(item_id)
        if card is None:
            continue
        cell = cells[area, track]
        seen += 1
        cell[1] += 1
        _, state, stability_days, last_review_us, lapses = card
        if state == _REVIEW and stability_days is not None:
            if stability_days >= MASTERED_STABILITY_DAYS:
                mastered += 1
                cell[2] += 1
        if topic:
            entry = topics.get(topic)
            if entry is None:
                entry = topics[topic] = ([0, 0], [], [], [])
            entry[0][0] += 1
            entry[0][1] += lapses
            entry[3].append(item_id)
            # A card back in the NEW state has no review for FSRS: its recall is 0.
            if state != _NEW and last_review_us is not None and stability_days is not None:
                entry[1].append(stability_days)
                entry[2].append(last_review_us)
    return CardGroups(
        cells={key: (n, s, m) for key, (n, s, m) in cells.items()},
        seen=seen,
        mastered=mastered,
        topics={
            topic: TopicCards(counts[0], counts[1], stabilities, last_reviews, item_ids)
            for topic, (counts, stabilities, last_reviews, item_ids) in topics.items()
        },
    )

"""The vault browser's filters and full-text search, over the loaded and compiled vault."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any, TypeVar

from sysdrill.content.enums import CompetencyArea, Level, Status, Track, Zone
from sysdrill.content.models import Item
from sysdrill.errors import UsageError
from sysdrill.study.sessions.text import untitled_heading
from sysdrill.study.sessions.view import difficulty_stars

__all__ = ["BrowseFilters", "browse", "browse_facets", "choice", "in_id_order"]

E = TypeVar("E", bound=StrEnum)
_WORD = re.compile(r"\w+")
_SEPARATORS = re.compile(r"[\W_]+")


def choice(value: str | None, enum: type[E], name: str) -> E | None:
    """``value`` as a member of ``enum``; blank is None (a form's "any").

    Raises:
        UsageError: If the value is not a member (the message lists the members).
    """
    if value is None or not value.strip():
        return None
    try:
        return enum(value.strip())
    except ValueError:
        allowed = ", ".join(member.value for member in enum)
        raise UsageError(f"{name} must be one of {allowed}; got '{value}'") from None


@dataclass(frozen=True, slots=True)
class BrowseFilters:
    """The browser's filters; None means any."""

    q: str = ""
    track: Track | None = None
    level: Level | None = None
    zone: Zone | None = None
    area: CompetencyArea | None = None
    topic: str | None = None
    deck: str | None = None
    status: Status | None = None

    @classmethod
    def parse(cls, **given: str | None) -> BrowseFilters:
        """Read the filters from query parameters (blank means any).

        Raises:
            UsageError: If a closed-set filter has a value outside its set.
        """
        return cls(
            q=(given.get("q") or "").strip(),
            track=choice(given.get("track"), Track, "track"),
            level=choice(given.get("level"), Level, "level"),
            zone=choice(given.get("zone"), Zone, "zone"),
            area=choice(given.get("area"), CompetencyArea, "area"),
            topic=(given.get("topic") or "").strip() or None,
            deck=(given.get("deck") or "").strip() or None,
            status=choice(given.get("status"), Status, "status"),
        )

    def narrows(self) -> bool:
        """Whether any filter or a query is set (else every item passes)."""
        return bool(self.q) or any(
            value is not None
            for value in (
                self.track,
                self.level,
                self.zone,
                self.area,
                self.topic,
                self.deck,
                self.status,
            )
        )

    def in_search_index(self) -> bool:
        """Whether every filter set is one the search index applies (track, level, topic)."""
        return (
            self.zone is None and self.area is None and self.deck is None and (self.status is None)
        )

    def keeps(self, item: Item, deck_members: set[str] | None) -> bool:
        """Whether ``item`` passes every filter but the text query."""
        return (
            (self.track is None or item.track == self.track)
            and (self.level is None or item.level == self.level)
            and (self.zone is None or item.zone == self.zone)
            and (self.area is None or item.competency_area == self.area)
            and (self.topic is None or item.topic == self.topic)
            and (self.status is None or item.status == self.status)
            and (deck_members is None or item.id in deck_members)
        )

    def to_dict(self) -> dict[str, Any]:
        """The filters in force (JSON-ready; None for any)."""
        return {
            "q": self.q,
            "track": self.track,
            "level": self.level,
            "zone": self.zone,
            "area": self.area,
            "topic": self.topic,
            "deck": self.deck,
            "status": self.status,
        }


@dataclass(slots=True)
class BrowseResult:
    """Items passing the filters, best match first when searching."""

    total: int
    hits: list[dict[str, Any]] = field(default_factory=list)
    facets: dict[str, list[str]] = field(default_factory=dict)
    note: str | None = None
    """Why the search fell back to plain word matching, if it did."""
    offset: int = 0
    """How many matching items come before the first hit (the earlier pages)."""

    @property
    def first_number(self) -> int:
        """The 1-based position of the first hit among all matches (0 when none)."""
        return self.offset + 1 if self.hits else 0

    @property
    def last_number(self) -> int:
        """The 1-based position of the last hit among all matches (0 when none)."""
        return self.offset + len(self.hits)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready mapping."""
        return {
            "total": self.total,
            "offset": self.offset,
            "hits": self.hits,
            "facets": self.facets,
            "note": self.note,
        }


def _deck_members(decks: list[Any], items: list[Item], name: str) -> set[str]:
    members: set[str] = {item.id for item in items if item.deck == name}
    for deck in decks:
        if deck.name == name:
            members.update(deck.items)
    return members


def _folded(text: str) -> str:
    # Hyphens, spaces and case dropped, so "allreduce", "all-reduce" and "all reduce"
    # read alike, as the full-text search of the compiled vault reads them.
    return _SEPARATORS.sub("", text.casefold())


def _query_words(query: str) -> list[str]:
    return [_folded(word) for word in _WORD.findall(query)]


def _words_match(item: Item, words: list[str]) -> bool:
    text = _folded(
        " ".join(
            part or ""
            for part in (item.id, item.title, item.scenario, item.question, item.answer_text)
        )
    )
    return all(word in text for word in words)


def browse_facets(items: list[Item], decks: list[Any]) -> dict[str, list[str]]:
    """The vault's topics and decks, sorted: the choices of the open-ended filters."""
    return {
        "topic": sorted({item.topic for item in items if item.topic}),
        "deck": sorted({d.name for d in decks} | {item.deck for item in items if item.deck}),
    }


def in_id_order(items: Sequence[Item]) -> list[Item]:
    """``items`` sorted by id: the order :func:`browse` lists them in without a query.

    Sorting 100,000 items takes tens of milliseconds, so a caller serving many
    requests sorts once per loaded vault and passes the result to :func:`browse`.
    """
    return sorted(items, key=lambda item: item.id)


def browse(
    filters: BrowseFilters,
    *,
    items: list[Item],
    by_id: Mapping[str, Item],
    decks: list[Any],
    facets: dict[str, list[str]],
    compiled: Path | None,
    limit: int,
    offset: int = 0,
    note: str | None = None,
    unindexed: Sequence[Item] = (),
) -> BrowseResult:
    """Filter the vault's items and, with a query, rank them by full-text relevance.

    Args:
        filters: The filters in force.
        items: Every item of the vault, sorted by id (:func:`in_id_order`).
        by_id: The same items by id.
        decks: The vault's decks.
        facets: The topic and deck choices (:func:`browse_facets`, kept per vault).
        compiled: The compiled vault (searched when ``filters.q`` is set); None when it
            cannot be built, and then every word of the query must appear in the item.
        limit: Most hits returned (one page).
        offset: Matches skipped before the first hit returned (the earlier pages).
        note: Why ``compiled`` is None, shown with the results.
        unindexed: Items of ``items`` the compiled vault does not hold (a learner's
            personal decks): a query matches them by their words, after the ranked hits.
    """
    from sysdrill.storage.vault_query import search_items

    members = _deck_members(decks, items, filters.deck) if filters.deck else None
    snippets: dict[str, str] = {}
    total: int | None = None
    if filters.q and compiled is not None and filters.in_search_index():
        # Every filter is a column of the index: let it rank and count, stop at the limit.
        from sysdrill.app.search import search_vault

        found = search_vault(
            compiled,
            filters.q,
            tracks=[filters.track.value] if filters.track else [],
            levels=[filters.level.value] if filters.level else [],
            topics=[filters.topic] if filters.topic else [],
            # Ranking stops at the end of the page asked for; earlier pages are cut below.
            limit=offset + limit,
            count_all=True,
            # The hits below are named from the items themselves.
            name_untitled=False,
        )
        chosen = [by_id[hit.id] for hit in found.hits if hit.id in by_id]
        snippets = {hit.id: hit.snippet for hit in found.hits}
        total = found.total
    elif filters.q and compiled is not None:
        kept: dict[str, Item] = {item.id: item for item in items if filters.keeps(item, members)}
        ranked = []
        for hit in search_items(compiled, filters.q, limit=max(len(items), 1)):
            if hit.id in kept:
                ranked.append(kept[hit.id])
                snippets[hit.id] = hit.snippet
        chosen = ranked
    elif filters.q:
        words = _query_words(filters.q)
        chosen = [i for i in items if filters.keeps(i, members) and _words_match(i, words)]
    elif filters.narrows():
        chosen = [item for item in items if filters.keeps(item, members)]
    else:
        chosen = items
    if filters.q and compiled is not None and unindexed:
        words = _query_words(filters.q)
        more = sorted(
            (i for i in unindexed if filters.keeps(i, members) and _words_match(i, words)),
            key=lambda i: i.id,
        )
        chosen = [*chosen, *more]
        total = None if total is None else total + len(more)
    hits = [
        {
            "id": item.id,
            "title": item.title or untitled_heading(item),
            "kind": item.kind.value,
            "track": item.track,
            "level": item.level,
            "zone": item.zone,
            "area": item.competency_area,
            "topic": item.topic,
            "deck": item.deck,
            "section": item.section,
            "difficulty": difficulty_stars(item.difficulty),
            "status": item.status,
            "snippet": snippets.get(item.id, ""),
        }
        for item in chosen[offset : offset + limit]
    ]
    shown_total = len(chosen) if total is None else total
    return BrowseResult(total=shown_total, hits=hits, facets=facets, note=note, offset=offset)

"""Plans of the non-timed sessions: practice, quiz, chain and daily."""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from datetime import datetime
from typing import Protocol

from sysdrill.content.collections import Chain, Deck
from sysdrill.content.models import Item
from sysdrill.study.card_state import CardRecord
from sysdrill.study.clock import utc_day
from sysdrill.study.filters import ItemFilter
from sysdrill.study.sessions.chains import ChainIndex, chain_items
from sysdrill.study.sessions.new_items import (
    ChainNewLimit,
    NewItemAllowance,
    chain_new_limit,
    hold_back_new,
)
from sysdrill.study.sessions.pools import memo_for_list
from sysdrill.study.sessions.selection import daily_items, deck_items, filter_items, studyable
from sysdrill.study.sessions.state_machine import SessionKind, SessionLineup

__all__ = [
    "DEFAULT_PRACTICE_LIMIT",
    "EMPTY_MESSAGES",
    "HELD_OUT_KEY",
    "MATCHING_KEY",
    "NEW_HELD_KEY",
    "ItemChooser",
    "chain_plan",
    "daily_listing",
    "daily_plan",
    "filter_meta",
    "practice_plan",
    "quiz_plan",
]

DEFAULT_PRACTICE_LIMIT = 20
"""Items in a practice session unless ``--limit`` says otherwise."""

EMPTY_MESSAGES: dict[SessionKind, str] = {
    SessionKind.PRACTICE: (
        "Nothing to practise now: no item is due and today's new items are done "
        "(or no item matches the filters). Come back later or widen the filters."
    ),
    SessionKind.QUIZ: "The deck has no items to ask.",
    SessionKind.GAUNTLET: "No questions for a gauntlet.",
    SessionKind.CHAIN: "The chain has no items in this vault.",
    SessionKind.DAILY: "Today's daily items are done. Come back tomorrow.",
}
"""What to say when a plan has no items, by session kind."""

NEW_HELD_KEY = "new_held"
"""Key of a plan's meta counting the new items left out by the new-item limits."""

MATCHING_KEY = "matching"
"""Key of a daily plan's meta counting the items its filters match."""

HELD_OUT_KEY = "held_out"
"""Key of a daily plan's meta counting matching items left out as suspended or buried."""


class ItemChooser(Protocol):
    """The part of the study service plans need (``StudyService`` provides it)."""

    def next_items(
        self,
        items: Sequence[Item],
        *,
        now: datetime,
        filters: ItemFilter | None = None,
        limit: int = 20,
    ) -> list[Item]:
        """Due items first, then new ones within the daily limits."""
        ...

    def card_state(self, item_id: str) -> CardRecord:
        """The item's card (a never-seen card when it was never reviewed)."""
        ...

    def is_new(self, item_id: str) -> bool:
        """Whether the item was never reviewed (new to the learner)."""
        ...


def filter_meta(item_filter: ItemFilter) -> dict[str, str]:
    """The filter's criteria that are set, as strings (stored with the session)."""
    values = {
        "deck": item_filter.deck,
        "track": item_filter.track,
        "level": item_filter.level,
        "zone": item_filter.zone,
        "topic": item_filter.topic,
        "competency_area": item_filter.competency_area,
        "tag": item_filter.tag,
    }
    return {key: str(value) for key, value in values.items() if value is not None}


def _without_held(items: Sequence[Item], held: Collection[str]) -> Sequence[Item]:
    """``items`` less those the learner suspended or buried (the same list when none are)."""
    if not held:
        return items
    return tuple(item for item in items if item.id not in held)


def _new_checker(study: ItemChooser) -> Callable[[Item], bool]:
    return lambda item: study.is_new(item.id)


def _chain_limit(
    study: ItemChooser,
    chains: ChainIndex | None,
    new_items: NewItemAllowance | None,
    planned: Sequence[Item],
    planned_new: int,
    held_ids: Collection[str],
) -> ChainNewLimit | None:
    """What "next in chain" offers may add: within the new-item limits, nothing held back.

    None: no limits.
    """
    if chains is None or new_items is None:
        return None
    return chain_new_limit(
        chains.reachable_from(item.id for item in planned),
        is_new=study.is_new,
        allowance=new_items,
        planned_new=planned_new,
        held_ids=held_ids,
    )


def practice_plan(
    study: ItemChooser,
    items: Sequence[Item],
    decks: Sequence[Deck],
    *,
    item_filter: ItemFilter,
    now: datetime,
    limit: int = DEFAULT_PRACTICE_LIMIT,
    new_items: NewItemAllowance | None = None,
    chains: ChainIndex | None = None,
    held_ids: Collection[str] = frozenset(),
) -> SessionLineup:
    """Due reviews first, then new items within the daily limits, up to ``limit``.

    Items rated Again come back once at the end of the session, and after a
    chain member the next item of its chain is offered. New items come in the
    order of ``items``; ``new_items`` caps them (the session's ``--new``) and
    puts the new items left today in the title. With ``chains`` too, a chain's
    next item that is new is offered only while the allowance has room for it.
    Items in ``held_ids`` (suspended or buried) are left out.

    Raises:
        DeckNotFound: If the filter names an unknown deck.
    """
    pool = memo_for_list(
        items,
        ("practice pool", item_filter),
        lambda: tuple(filter_items(items, decks, item_filter)),
        pins=(decks,),
    )
    chosen = study.next_items(_without_held(pool, held_ids), now=now, limit=limit)
    # Asked once per item: the limits and the title both need which items are new.
    new_ids = {item.id for item in chosen if study.is_new(item.id)}
    meta = filter_meta(item_filter)
    left = ""
    if new_items is not None:
        chosen, held = hold_back_new(
            chosen, is_new=lambda item: item.id in new_ids, allowed=new_items.for_session
        )
        meta[NEW_HELD_KEY] = str(held)
    new = sum(1 for item in chosen if item.id in new_ids)
    if new_items is not None:
        left = f"; {new_items.left_after(new)} more new today"
    return SessionLineup(
        kind=SessionKind.PRACTICE,
        title=f"Practice: {len(chosen)} items ({len(chosen) - new} due, {new} new{left})",
        items=tuple(chosen),
        offer_chain=True,
        chain_new_limit=_chain_limit(study, chains, new_items, chosen, new, held_ids),
        repeat_again=True,
        meta=meta,
    )


def quiz_plan(
    items: Sequence[Item],
    decks: Sequence[Deck],
    deck: str,
    *,
    study: ItemChooser | None = None,
    new_items: NewItemAllowance | None = None,
    held_ids: Collection[str] = frozenset(),
) -> SessionLineup:
    """Every item of a deck, in the deck's order, scored at the end.

    A quiz is an explicit request to be asked a deck, so the day's new-item limit
    (``new_per_day``) does not thin it: a deck imported after the day's new items
    are used up is still asked whole. Only the session's own cap
    (``new_items.session_cap``, the ``--new`` option) leaves new items out, even
    past what the day has left; their count is the meta's :data:`NEW_HELD_KEY`.
    Items already seen always stay. The new items a quiz introduces still count
    among the day's, so practice introduces fewer afterwards. Items in
    ``held_ids`` (suspended or buried) are left out.

    Raises:
        DeckNotFound: If no deck has that name.
    """
    chosen = [item for item in deck_items(studyable(items), decks, deck) if item.id not in held_ids]
    meta = {"deck": deck}
    if study is not None and new_items is not None and new_items.session_cap is not None:
        chosen, held = hold_back_new(
            chosen, is_new=_new_checker(study), allowed=max(0, new_items.session_cap)
        )
        meta[NEW_HELD_KEY] = str(held)
    listed = next((d for d in decks if d.name == deck), None)
    title = listed.title if listed is not None and listed.title else deck
    return SessionLineup(
        kind=SessionKind.QUIZ,
        title=f"Quiz: {title} ({len(chosen)} items)",
        items=tuple(chosen),
        meta=meta,
    )


def chain_plan(
    chains: Sequence[Chain],
    items: Sequence[Item],
    chain_id: str,
    *,
    held_ids: Collection[str] = frozenset(),
) -> SessionLineup:
    """The items of one chain in order, from recall to architecture.

    Items in ``held_ids`` (suspended or buried) are left out, as practice leaves them.

    Raises:
        ChainNotFound: If no chain has that id.
    """
    pool = studyable(items)
    chain = ChainIndex(chains, pool).get(chain_id)
    chosen = [item for item in chain_items(chain, pool) if item.id not in held_ids]
    return SessionLineup(
        kind=SessionKind.CHAIN,
        title=f"Chain: {chain.title or chain.id} ({len(chosen)} items)",
        items=tuple(chosen),
        meta={"chain": chain.id},
    )


def daily_plan(
    study: ItemChooser,
    items: Sequence[Item],
    decks: Sequence[Deck],
    *,
    item_filter: ItemFilter,
    now: datetime,
    done_ids: Collection[str] = frozenset(),
    new_items: NewItemAllowance | None = None,
    chains: ChainIndex | None = None,
    held_ids: Collection[str] = frozenset(),
) -> tuple[SessionLineup, list[Item]]:
    """Today's three items, less those already done in a daily session today.

    The set is the day's challenge whatever else was studied: an item reviewed
    today in practice or a quiz is still asked, and the ``new_per_day`` setting
    does not thin it (three items cannot flood a day). Only the session's own cap
    (``new_items.session_cap``, the ``--new`` option) leaves new items out, counted
    in the meta's :data:`NEW_HELD_KEY`. With ``chains`` too, a chain's next item
    that is new is offered only while the day's allowance has room.

    Args:
        study: What tells new items apart.
        items: The vault's items.
        decks: The vault's decks.
        item_filter: Which items the set is drawn from.
        now: Current time (UTC): its UTC day picks the set.
        done_ids: Items of the set answered in a daily session today.
        new_items: The day's new-item allowance and the session's cap.
        chains: The vault's chains (for "next in chain" offers).
        held_ids: Items the learner suspended or buried: the set is drawn without them.

    Returns:
        The plan of the items still to do, and the whole daily set (to show
        what is done).

    Raises:
        DeckNotFound: If the filter names an unknown deck.
    """
    today = utc_day(now)
    matching = filter_items(items, decks, item_filter)
    pool = _without_held(matching, held_ids)
    daily = daily_items(pool, item_filter=item_filter, day=today)
    todo = [item for item in daily if item.id not in done_ids]
    meta = {"day": today.isoformat(), **filter_meta(item_filter)}
    meta[MATCHING_KEY] = str(len(matching))
    meta[HELD_OUT_KEY] = str(len(matching) - len(pool))
    is_new = _new_checker(study)
    if new_items is not None and new_items.session_cap is not None:
        todo, held = hold_back_new(todo, is_new=is_new, allowed=max(0, new_items.session_cap))
        meta[NEW_HELD_KEY] = str(held)
    plan = SessionLineup(
        kind=SessionKind.DAILY,
        # The session's name only: a count in the title would be stale after the first
        # answer; where the learner stands is the session's live position.
        title=f"Daily {today.isoformat()}",
        items=tuple(todo),
        offer_chain=True,
        chain_new_limit=_chain_limit(
            study, chains, new_items, todo, sum(map(is_new, todo)), held_ids
        ),
        meta=meta,
    )
    return plan, daily


def daily_listing(daily: Sequence[Item], done_ids: Collection[str]) -> str:
    """Today's daily items by title, those done marked so (what the learner is told)."""
    return ", ".join(
        f"{item.title or item.id}{' (done)' if item.id in done_ids else ''}" for item in daily
    )

"""The part of a vault a practice or daily session can ask, without loading every item.

Practice shows at most ``limit`` items: due cards first, in the order the study
store gives them, then new items in vault order; daily shows the day's three.
Loading and validating every item of a vault of 100,000 takes seconds, so both
open from the vault's catalogue (:mod:`sysdrill.app.catalogue`: one small row
per valid item, with the fields filters read). From it they pick a superset of
what the session can choose, load only those files, and hand the usual session
code a :class:`~sysdrill.app.study_vault.StudyVault` of just those items, in
vault order, so the session it plans is the one the whole vault would give.

What it loads: the due cards of the filtered pool that
:meth:`~sysdrill.study.service.StudyService.next_items` takes (walked the same
way, in due order, a review card counting while the day's review limit lasts),
then, if they leave room, the first never-studied items of the pool in its
order within the day's new-item limit, and every item of a chain any of them
belongs to (practice offers the next item of a chain). Anything this does not
cover loads the whole vault as before: an active study plan, deadline mode, a
missing or stale catalogue (which the whole load then writes), an unknown deck,
or a chosen file that no longer loads.

Daily loads the day's three of the filtered pool (their rank depends on the
day, the filter and each id only) and every item of a chain any of them belongs
to; a stale catalogue is brought up to date first (it costs a stat of each file
and a parse of the changed ones). An unknown deck, or an empty pool, loads the
whole vault, so the session explains.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import cast

from sysdrill.app.catalogue import (
    Catalogue,
    CatalogueRow,
    load_items,
    open_catalogue,
    read_fresh_catalogue,
    save_catalogue,
    vault_signature,
)
from sysdrill.app.plans import active_plan
from sysdrill.app.study_vault import StudyVault
from sysdrill.content.collections import Chain, Deck
from sysdrill.content.gc_pause import collector_paused
from sysdrill.content.ignore_marks import without_ignore_marks
from sysdrill.content.loader import Vault, check_vault_root, load_shared_files, load_vault
from sysdrill.content.models import Item
from sysdrill.content.plans import load_prerequisites
from sysdrill.content.vault_identity import read_vault_identity
from sysdrill.study.card_state import CardState
from sysdrill.study.clock import utc_day
from sysdrill.study.filters import ItemFilter
from sysdrill.study.plans import teaching_rank
from sysdrill.study.service import StudyService
from sysdrill.study.sessions.chains import ChainIndex
from sysdrill.study.sessions.selection import daily_items, studyable

__all__ = ["open_daily_vault", "open_practice_vault"]

_RETIRED = frozenset({"archived", "deleted"})
"""Statuses never studied (as :func:`~sysdrill.study.sessions.selection.studyable`)."""

_PAGE_CARDS = 512
"""Due cards read from the store at a time while looking for pool members."""


def _matches(item_filter: ItemFilter, row: CatalogueRow) -> bool:
    """:meth:`ItemFilter.matches` on a catalogue row (the deck criterion excepted)."""
    return (
        (item_filter.track is None or row.track == str(item_filter.track))
        and (item_filter.level is None or row.level == str(item_filter.level))
        and (item_filter.zone is None or row.zone == str(item_filter.zone))
        and (item_filter.topic is None or row.topic == item_filter.topic)
        and (
            item_filter.competency_area is None
            or row.competency_area == str(item_filter.competency_area)
        )
        and (item_filter.tag is None or item_filter.tag in row.tags)
    )


def _pool(
    rows: Sequence[CatalogueRow], decks: Sequence[Deck], item_filter: ItemFilter
) -> list[CatalogueRow] | None:
    """The rows :func:`~sysdrill.study.sessions.selection.filter_items` keeps, in its order.

    None when the filter names a deck that does not exist (the whole load explains it).
    """
    pool = [row for row in rows if row.status not in _RETIRED]
    if item_filter.deck is not None:
        by_id = {row.id: row for row in pool}
        listed = next((deck for deck in decks if deck.name == item_filter.deck), None)
        # The deck's own list first, then the items naming it, each once.
        order: list[str] = [i for i in (listed.items if listed else ()) if i in by_id]
        order += [row.id for row in pool if row.deck == item_filter.deck]
        chosen = [by_id[item_id] for item_id in dict.fromkeys(order)]
        if listed is None and not chosen:
            return None
        pool = chosen
    if item_filter.is_empty or item_filter == ItemFilter(deck=item_filter.deck):
        return pool
    return [row for row in pool if _matches(item_filter, row)]


def _candidates(
    study: StudyService,
    pool: list[CatalogueRow],
    *,
    limit: int,
    now: datetime,
    new_order: Callable[[CatalogueRow], tuple[int, int, int]],
) -> set[str]:
    """Ids of the pool items practice chooses (see the module docstring).

    The due cards are walked as :meth:`StudyService.next_items` walks them (a
    review card counts only while the day's review limit lasts), and new items
    are looked for only when the due ones leave room.
    """
    pool_ids = {row.id for row in pool}
    settings = study.settings
    new_done, reviews_done = study.store.count_reviews_on(study.scope, utc_day(now))
    reviews_left = max(0, settings.reviews_per_day - reviews_done)
    chosen: list[str] = []
    offset = 0
    while len(chosen) < limit:
        cards = study.store.due_cards(study.scope, due_by=now, offset=offset, limit=_PAGE_CARDS)
        for card in cards:
            if card.item_id not in pool_ids:
                continue
            if card.state is CardState.REVIEW:
                if reviews_left <= 0:
                    continue
                reviews_left -= 1
            chosen.append(card.item_id)
            if len(chosen) >= limit:
                break
        if len(cards) < _PAGE_CARDS:
            break
        offset += _PAGE_CARDS
    new_left = max(0, settings.new_per_day - new_done)
    if len(chosen) < limit and new_left > 0:
        studied = study.store.studied_item_ids(study.scope)
        wanted = min(limit - len(chosen), new_left)
        # New items in the order practice takes them, so the ones loaded are the
        # ones the whole vault would put first.
        for row in sorted(pool, key=new_order):
            if wanted <= 0:
                break
            if row.id not in studied:
                chosen.append(row.id)
                wanted -= 1
    return set(chosen)


def _with_chains(chosen: set[str], chains: Sequence[Chain]) -> set[str]:
    """``chosen`` and every item of a chain that holds one of them."""
    result = set(chosen)
    for chain in chains:
        members = list(chain.items)
        if any(member in chosen for member in members):
            result.update(members)
    return result


def _subset(catalogue: Catalogue, shared: Vault, chosen: set[str]) -> StudyVault | None:
    """A study vault of the chosen items alone, in vault order; None if a file changed."""
    loaded = load_items(catalogue, (row for row in catalogue.rows if row.id in chosen))
    if loaded is None:
        return None
    # What learners read: an author's ``# sysdrill: ignore[...]`` marker is check's.
    items = [without_ignore_marks(item, raw=file.raw) for file, item in loaded]
    return StudyVault(
        root=catalogue.root,
        identity=read_vault_identity(catalogue.root),
        items=items,
        decks=list(shared.decks),
        chains=list(shared.chains),
        broken_files=catalogue.broken_files,
        by_id={item.id: item for item in items},
        chain_index=ChainIndex(shared.chains, studyable(items)),
        files={item.id: file.path for file, item in loaded},
    )


def _shared(root: Path) -> Vault:
    shared = Vault(root=root)
    load_shared_files(shared)
    return shared


def open_practice_vault(
    study: StudyService,
    root: Path,
    *,
    item_filter: ItemFilter,
    limit: int,
    now: datetime,
    cache_dir: Path,
) -> StudyVault:
    """The vault a practice session of at most ``limit`` items needs.

    Args:
        study: The learner's study service (its store orders the due cards).
        root: The vault folder.
        item_filter: The session's filters.
        limit: Items in the session at most.
        now: Current time (UTC), the due cut-off.
        cache_dir: The user cache folder (the catalogue lives below it).

    Returns:
        Only the items practice can choose (and their chains) when the catalogue
        allows it, else the whole vault, loaded as :func:`open_study_vault` does.

    Raises:
        VaultNotFound: If the folder does not exist.
    """
    check_vault_root(root)
    catalogue = read_fresh_catalogue(root, cache_dir=cache_dir, now=now)
    everything = active_plan(study) is not None or study.settings.deadline is not None
    if catalogue is None or everything:
        return _load_all(root, cache_dir=cache_dir, now=now)
    rows = catalogue.rows
    shared = _shared(root)
    pool = _pool(rows, shared.decks, item_filter)
    if pool is None:
        return _load_all(root, cache_dir=cache_dir, now=now)
    # New items as practice takes them from the whole vault: a deck's own list
    # first, in its order; then teaching order (study/plans.py), then vault order.
    rank = teaching_rank(load_prerequisites(root))
    position = {row.id: n for n, row in enumerate(rows)}
    listed = next((deck.items for deck in shared.decks if deck.name == item_filter.deck), [])
    listed_at = {str(item_id): n for n, item_id in enumerate(listed)}

    def new_order(row: CatalogueRow) -> tuple[int, int, int]:
        at = listed_at.get(row.id)
        if at is not None:
            return 0, at, 0
        return 1, rank(row.topic, row.level), position[row.id]

    candidates = _candidates(study, pool, limit=limit, now=now, new_order=new_order)
    chosen = _with_chains(candidates, shared.chains)
    if not chosen:
        # Nothing to ask: the whole vault lets the session say why (the day's limits,
        # or a deck named only by its items' ``deck`` fields).
        return _load_all(root, cache_dir=cache_dir, now=now)
    subset = _subset(catalogue, shared, chosen)
    return subset if subset is not None else _load_all(root, cache_dir=cache_dir, now=now)


def open_daily_vault(
    root: Path, *, item_filter: ItemFilter, now: datetime, cache_dir: Path
) -> StudyVault:
    """The vault a daily session needs: the day's items of the pool and their chains.

    Args:
        root: The vault folder.
        item_filter: The session's filters.
        now: Current time (UTC): its day chooses the items.
        cache_dir: The user cache folder (the catalogue lives below it).

    Returns:
        Only the day's items (and their chains) when the catalogue can tell them,
        else the whole vault.

    Raises:
        VaultNotFound: If the folder does not exist.
    """
    catalogue = open_catalogue(root, cache_dir=cache_dir, now=now)
    shared = _shared(root)
    pool = _pool(catalogue.rows, shared.decks, item_filter)
    if not pool:
        return _load_all(root, cache_dir=cache_dir, now=now)
    # The day's rank reads only each candidate's id, so the rows stand in for
    # the items (a test holds the choice equal to the whole vault's).
    day = utc_day(now)
    chosen = daily_items(cast("list[Item]", pool), item_filter=item_filter, day=day)
    subset = _subset(catalogue, shared, _with_chains({row.id for row in chosen}, shared.chains))
    return subset if subset is not None else _load_all(root, cache_dir=cache_dir, now=now)


def _load_all(root: Path, *, cache_dir: Path, now: datetime) -> StudyVault:
    """The whole vault, as :func:`~sysdrill.app.study_vault.open_study_vault` loads it.

    Its catalogue is saved on the way, for the next start, with the vault's
    signature taken before loading (a change made meanwhile makes it stale).
    """
    signature = vault_signature(root)
    recorded_at_ns = time.time_ns()
    with collector_paused():
        vault = load_vault(root)
    save_catalogue(
        root,
        vault.files,
        signature=signature,
        recorded_at_ns=recorded_at_ns,
        cache_dir=cache_dir,
        now=now,
    )
    return StudyVault.of(vault)

"""The part of a vault a practice session can ask, without loading every item.

Practice shows at most ``limit`` items: due cards first, in the order the study
store gives them, then new items in vault order. Loading and validating every
item of a vault of 100,000 takes seconds, so practice opens from a
*catalogue*: one small row per valid item (its file, id, status and the fields
filters read), kept in the user cache folder and trusted while
:func:`~sysdrill.app.study_vault.vault_signature` is unchanged (the rule the web
app's vault cache follows). From the catalogue it picks a superset of what
practice can choose, loads only those files, and hands the usual session code
a :class:`~sysdrill.app.study_vault.StudyVault` of just those items, in vault
order, so the session it plans is the one the whole vault would give.

What it loads: the due cards of the filtered pool that
:meth:`~sysdrill.study.service.StudyService.next_items` takes (walked the same
way, in due order, a review card counting while the day's review limit lasts),
then, if they leave room, the first never-studied items of the pool in its
order within the day's new-item limit, and every item of a chain any of them
belongs to (practice offers the next item of a chain). Anything this does not
cover loads the whole vault as before: an active study plan, deadline mode, a
missing or stale catalogue (which the whole load then writes), an unknown deck,
or a chosen file that no longer loads.

The catalogue is written with :mod:`marshal` (plain data, no code runs on load),
atomically; a catalogue from another version of sysdrill is ignored.
"""

from __future__ import annotations

import hashlib
import marshal
import os
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, Final, NamedTuple

from sysdrill import __version__
from sysdrill.app.plans import active_plan
from sysdrill.app.study_vault import StudyVault, vault_signature
from sysdrill.content.collections import Chain, Deck
from sysdrill.content.ignore_marks import without_ignore_marks
from sysdrill.content.loader import (
    Vault,
    check_vault_root,
    load_shared_files,
    load_vault,
    read_item_file,
)
from sysdrill.content.models import Item
from sysdrill.content.plans import load_prerequisites
from sysdrill.content.vault_identity import read_vault_identity
from sysdrill.study.card_state import CardState
from sysdrill.study.clock import utc_day
from sysdrill.study.filters import ItemFilter
from sysdrill.study.plans import teaching_rank
from sysdrill.study.service import StudyService
from sysdrill.study.sessions.chains import ChainIndex
from sysdrill.study.sessions.selection import studyable

__all__ = ["CATALOGUE_FORMAT", "CatalogueRow", "open_practice_vault"]

CATALOGUE_FORMAT = 1
"""Bumped whenever the layout of a catalogue file changes."""

_RETIRED = frozenset({"archived", "deleted"})
"""Statuses never studied (as :func:`~sysdrill.study.sessions.selection.studyable`)."""

_PAGE_CARDS = 512
"""Due cards read from the store at a time while looking for pool members."""


class CatalogueRow(NamedTuple):
    """What practice needs to know of an item before loading it (saved as a plain tuple)."""

    rel: str
    """The item file, relative to the vault, with forward slashes."""
    id: str
    status: str
    deck: str | None
    track: str | None
    level: str | None
    zone: str | None
    topic: str | None
    competency_area: str | None
    tags: tuple[str, ...]


Signature = tuple[tuple[str, int], ...]
"""Folders and top-level files of a vault with their mtimes (ns), as ``vault_signature``."""


def _value(value: Any) -> str | None:
    return None if value is None else str(value)


def _row(rel: str, item: Item) -> CatalogueRow:
    return CatalogueRow(
        rel,
        item.id,
        str(item.status),
        item.deck,
        _value(item.track),
        _value(item.level),
        _value(item.zone),
        item.topic,
        _value(item.competency_area),
        tuple(item.tags),
    )


def _catalogue_path(cache_dir: Path, root: Path) -> Path:
    key = hashlib.sha256(str(root.resolve()).encode("utf-8")).hexdigest()[:24]
    return cache_dir / "practice" / f"{key}.marshal"


def _unchanged(signature: Signature) -> bool:
    """Whether the folders and files a signature lists still have its mtimes.

    Adding, removing or renaming anything in a folder changes that folder's
    mtime, a new folder changes its parent's: a dozen stats stand in for
    listing every file (as the web app's vault cache does).
    """
    try:
        return all(os.stat(path).st_mtime_ns == mtime for path, mtime in signature)
    except OSError:
        return False


def _read_catalogue(path: Path) -> tuple[list[CatalogueRow], int] | None:
    """The rows and broken-file count saved for the vault as it still is, or None.

    Rows stay the plain tuples :mod:`marshal` gives (typed as rows): building
    100,000 named tuples would cost more than reading them.
    """
    try:
        data = marshal.loads(path.read_bytes())
    except (OSError, EOFError, ValueError, TypeError):
        return None
    if not isinstance(data, dict) or data.get("format") != CATALOGUE_FORMAT:
        return None
    if data.get("version") != __version__ or not _unchanged(data.get("signature", ((".", -1),))):
        return None
    rows: list[CatalogueRow] = data["rows"]
    return rows, int(data["broken"])


def _write_catalogue(path: Path, signature: Signature, vault: Vault, broken: int) -> None:
    rows = [tuple(_row(f.rel, f.item)) for f in vault.files if f.item is not None]
    blob = marshal.dumps(
        {
            "format": CATALOGUE_FORMAT,
            "version": __version__,
            "signature": signature,
            "rows": rows,
            "broken": broken,
        }
    )
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        scratch = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        scratch.write_bytes(blob)
        os.replace(scratch, path)
    except OSError:
        return  # a cache that cannot be written only costs the next start its speed


# Positions of the fields in a saved row (those of CatalogueRow).
_REL: Final = 0
_ID: Final = 1
_STATUS: Final = 2
_DECK: Final = 3
_TRACK: Final = 4
_LEVEL: Final = 5
_ZONE: Final = 6
_TOPIC: Final = 7
_AREA: Final = 8
_TAGS: Final = 9


def _matches(item_filter: ItemFilter, row: CatalogueRow) -> bool:
    """:meth:`ItemFilter.matches` on a catalogue row (the deck criterion excepted)."""
    return (
        (item_filter.track is None or row[_TRACK] == str(item_filter.track))
        and (item_filter.level is None or row[_LEVEL] == str(item_filter.level))
        and (item_filter.zone is None or row[_ZONE] == str(item_filter.zone))
        and (item_filter.topic is None or row[_TOPIC] == item_filter.topic)
        and (item_filter.competency_area is None or row[_AREA] == str(item_filter.competency_area))
        and (item_filter.tag is None or item_filter.tag in row[_TAGS])
    )


def _pool(
    rows: Sequence[CatalogueRow], decks: Sequence[Deck], item_filter: ItemFilter
) -> list[CatalogueRow] | None:
    """The rows :func:`~sysdrill.study.sessions.selection.filter_items` keeps, in its order.

    None when the filter names a deck that does not exist (the whole load explains it).
    """
    pool = [row for row in rows if row[_STATUS] not in _RETIRED]
    if item_filter.deck is not None:
        by_id = {row[_ID]: row for row in pool}
        listed = next((deck for deck in decks if deck.name == item_filter.deck), None)
        # The deck's own list first, then the items naming it, each once.
        order: list[str] = [i for i in (listed.items if listed else ()) if i in by_id]
        order += [row[_ID] for row in pool if row[_DECK] == item_filter.deck]
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
    pool_ids = {row[_ID] for row in pool}
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
            if row[_ID] not in studied:
                chosen.append(row[_ID])
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
    path = _catalogue_path(cache_dir, root)
    saved = _read_catalogue(path)
    everything = active_plan(study) is not None or study.settings.deadline is not None
    if saved is None or everything:
        return _load_all(root, path)
    rows, broken = saved
    shared = Vault(root=root)
    load_shared_files(shared)
    pool = _pool(rows, shared.decks, item_filter)
    if pool is None:
        return _load_all(root, path)
    # New items as practice takes them from the whole vault: a deck's own list
    # first, in its order; then teaching order (study/plans.py), then vault order.
    rank = teaching_rank(load_prerequisites(root))
    position = {row[_ID]: n for n, row in enumerate(rows)}
    listed = next((deck.items for deck in shared.decks if deck.name == item_filter.deck), [])
    listed_at = {str(item_id): n for n, item_id in enumerate(listed)}

    def new_order(row: CatalogueRow) -> tuple[int, int, int]:
        at = listed_at.get(row[_ID])
        if at is not None:
            return 0, at, 0
        return 1, rank(row[_TOPIC], row[_LEVEL]), position[row[_ID]]

    candidates = _candidates(study, pool, limit=limit, now=now, new_order=new_order)
    chosen = _with_chains(candidates, shared.chains)
    if not chosen:
        # Nothing to ask: the whole vault lets the session say why (the day's limits,
        # or a deck named only by its items' ``deck`` fields).
        return _load_all(root, path)
    items: list[Item] = []
    files: dict[str, Path] = {}
    for row in rows:
        if row[_ID] in chosen:
            rel = row[_REL]
            loaded = read_item_file(root / rel, rel)
            if loaded.item is None or loaded.item.id != row[_ID]:
                return _load_all(root, path)  # changed in place since
            # What learners read: an author's ``# sysdrill: ignore[...]`` marker is check's.
            items.append(without_ignore_marks(loaded.item, raw=loaded.raw))
            files[loaded.item.id] = loaded.path
    return StudyVault(
        root=root,
        identity=read_vault_identity(root),
        items=items,
        decks=list(shared.decks),
        chains=list(shared.chains),
        broken_files=broken,
        by_id={item.id: item for item in items},
        chain_index=ChainIndex(shared.chains, studyable(items)),
        files=files,
    )


def _load_all(root: Path, path: Path) -> StudyVault:
    """The whole vault, as :func:`~sysdrill.app.study_vault.open_study_vault` loads it.

    Its catalogue is saved on the way, for the next start, with the vault's
    signature taken before loading (a change made meanwhile makes it stale).
    """
    signature = vault_signature(root)
    vault = load_vault(root)
    loaded = StudyVault.of(vault)
    _write_catalogue(path, signature, vault, loaded.broken_files)
    return loaded

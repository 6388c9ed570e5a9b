"""What a learner studies on a multi-user server: the shared vault plus their personal decks.

A learner without personal decks studies the shared :class:`StudyVault` object
itself: the only cost is one indexed read of their deck version. A learner with
decks gets a merged vault (the shared items, then theirs), built once and kept
in a :class:`PersonalVaultCache` under their deck version, so it is built again
only when they import or delete a deck, through any worker (the version is
read from the database), or when the shared vault is reloaded.

The cache bounds a worker's memory: it keeps at most :data:`PERSONAL_CACHE_ITEMS`
personal items, each learner counting for at least a share of
``PERSONAL_CACHE_ITEMS / PERSONAL_CACHE_LEARNERS`` (a merge copies the shared
vault's index), and drops the least recently used learner first. A learner whose
decks alone pass the bound is merged for each request and never kept.

The merged vault keeps the shared vault's identity, so the study state of a
personal item is kept as any other: by (user, vault, item). A personal item
whose id the shared vault has gained since its import is left out (the shared
item wins); importing the deck again renames it.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass

from cachetools import LRUCache

from sysdrill.app.study_vault import StudyVault
from sysdrill.content.collections import Deck
from sysdrill.content.ignore_marks import without_ignore_marks
from sysdrill.content.models import Item, validate_item
from sysdrill.storage.location import study_database_url
from sysdrill.storage.personal_store import PersonalDeckRow, PersonalDeckStore, PersonalItemRow

__all__ = [
    "PERSONAL_CACHE_ITEMS",
    "PERSONAL_CACHE_LEARNERS",
    "PersonalVaultCache",
    "merge_personal",
]

PERSONAL_CACHE_LEARNERS = 64
"""Learners whose merged vault one worker keeps at most (the least recently used is dropped)."""
PERSONAL_CACHE_ITEMS = 20_000
"""Personal items one worker keeps in merged vaults at most (a few tens of MiB)."""


def merge_personal(
    shared: StudyVault, decks: list[PersonalDeckRow], items: list[PersonalItemRow]
) -> StudyVault:
    """The shared vault with the personal ``decks`` and ``items`` added after its own.

    Returns ``shared`` itself when there is nothing to add. Never changes ``shared``.
    """
    added: list[Item] = []
    members: dict[str, list[str]] = {}
    for row in items:
        if row.item_id in shared.by_id:
            continue
        raw = json.loads(row.item_json)
        added.append(without_ignore_marks(validate_item(raw), raw=raw))
        members.setdefault(row.deck, []).append(row.item_id)
    if not added and not decks:
        return shared
    by_id = dict(shared.by_id)
    by_id.update((item.id, item) for item in added)
    personal_decks = [
        Deck(name=deck.name, title=deck.title, items=members.get(deck.name, [])) for deck in decks
    ]
    return StudyVault(
        root=shared.root,
        identity=shared.identity,
        items=[*shared.items, *added],
        decks=[*shared.decks, *personal_decks],
        # Personal decks bring no chains: the shared chain index serves as is.
        chains=shared.chains,
        broken_files=shared.broken_files,
        by_id=by_id,
        chain_index=shared.chain_index,
        files=shared.files,
    )


@dataclass(frozen=True, slots=True)
class _Entry:
    version: int
    shared: StudyVault
    merged: StudyVault
    deck_names: tuple[str, ...]
    personal_items: int


class PersonalVaultCache:
    """Each learner's merged vault, kept by one app instance (bounded, thread-safe)."""

    def __init__(
        self,
        *,
        max_learners: int = PERSONAL_CACHE_LEARNERS,
        max_items: int = PERSONAL_CACHE_ITEMS,
    ) -> None:
        """Keep at most ``max_learners`` merged vaults holding ``max_items`` personal items."""
        floor = max(1, max_items // max(1, max_learners))

        def weight(entry: _Entry) -> int:
            # Each learner costs at least a share: a merge copies the shared index.
            return max(entry.personal_items, floor)

        self._entries: LRUCache[str, _Entry] = LRUCache(
            maxsize=max(max_items, floor), getsizeof=weight
        )
        self._shared: StudyVault | None = None
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._entries)

    def studied_vault(
        self,
        shared: StudyVault,
        *,
        db_url: str | None,
        user: str,
        version: int | None = None,
    ) -> StudyVault:
        """What ``user`` studies: ``shared`` itself, or it merged with their decks.

        Args:
            shared: The vault every learner shares.
            db_url: The study database.
            user: The learner.
            version: Their deck version when the caller read it already (with the
                login); read here otherwise.

        Raises:
            StorageError: If the database cannot be read.
        """
        if version == 0:
            return shared
        if version is not None:
            held = self._held(user, version, shared)
            if held is not None:
                return held.merged
        url = study_database_url(db_url)
        with PersonalDeckStore(url) as store:
            if version is None:
                version = store.deck_version(user)
            if version == 0:
                return shared
            held = self._held(user, version, shared)
            if held is not None:
                return held.merged
            # Built outside the lock: another learner's request need not wait for it.
            version, decks, items = store.load_items(user)
        entry = _Entry(
            version=version,
            shared=shared,
            merged=merge_personal(shared, decks, items),
            deck_names=tuple(deck.name for deck in decks),
            personal_items=len(items),
        )
        with self._lock:
            if shared is not self._shared:
                return entry.merged  # reloaded meanwhile: serve it, keep nothing old
            self._entries.pop(user, None)
            if self._entries.getsizeof(entry) <= self._entries.maxsize:
                # Evicts the least recently used learners until it fits.
                self._entries[user] = entry
        return entry.merged

    def personal_deck_names(self, user: str, vault: StudyVault) -> tuple[str, ...]:
        """The names of ``user``'s personal decks in ``vault`` (from :meth:`studied_vault`)."""
        with self._lock:
            entry = self._entries.get(user)
            shared = self._shared
        if entry is not None and entry.merged is vault:
            return entry.deck_names
        if shared is None or vault is shared or vault.chains is not shared.chains:
            return ()
        # A merge too large to keep: its decks after the shared ones are the learner's.
        return tuple(deck.name for deck in vault.decks[len(shared.decks) :])

    def _held(self, user: str, version: int, shared: StudyVault) -> _Entry | None:
        with self._lock:
            if shared is not self._shared:
                # The shared vault was reloaded: drop every merge of the old one at
                # once, rather than keep old vaults alive until each learner returns.
                self._entries.clear()
                self._shared = shared
            # A lookup counts as a use: the learner moves to the back of the line.
            entry = self._entries.get(user)
            if entry is None or entry.version != version or entry.shared is not shared:
                return None
            return entry

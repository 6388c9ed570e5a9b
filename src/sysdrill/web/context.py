"""What every request of one app instance shares: the vault, the databases, the clock.

State that outlives a request belongs to the app instance (``app.state.sysdrill``),
never to a module, so two apps in one process (tests) do not see each other: all
that a worker keeps between requests is the context's one
:class:`~sysdrill.app.worker_memory.WorkerMemory`.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Annotated

from fastapi import Depends, Request

from sysdrill.app.personal_vault import PersonalVaultCache
from sysdrill.app.study_vault import StudyVault
from sysdrill.app.vault import VaultCache
from sysdrill.app.worker_memory import WorkerMemory

__all__ = ["SETTLE_HEAP_MIN_ITEMS", "Context", "WebContext", "web_context"]

SETTLE_HEAP_MIN_ITEMS = 2_000
"""Vaults from this many items up are moved out of the garbage collector's sight once loaded."""


@dataclass(frozen=True, slots=True)
class WebContext:
    """Settings of one running app.

    Attributes:
        vault: The vault folder the pages read.
        db_url: The study database URL; None for the default database.
        cache_dir: Where the compiled copy of the vault is kept.
        data_dir: Where user files such as imports into a bundled vault are kept.
        clock: Returns the current time, timezone-aware UTC (injected for tests).
        multi_user: Whether learners log in (each sees only their own study data);
            otherwise every request is the single ``local`` learner.
        memory: What the worker keeps between requests: the loaded and compiled
            vault, learners' merged vaults and settings, sessions' machines (safe
            under threads; each confirmed by the database or the files before use).
    """

    vault: Path
    db_url: str | None
    cache_dir: Path
    data_dir: Path
    clock: Callable[[], datetime]
    multi_user: bool = False
    memory: WorkerMemory = field(init=False, repr=False)
    _settled: list[StudyVault | None] = field(init=False, repr=False)
    _settle_lock: threading.Lock = field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "memory", WorkerMemory(cache_dir=self.cache_dir))
        object.__setattr__(self, "_settled", [None])
        object.__setattr__(self, "_settle_lock", threading.Lock())

    def now(self) -> datetime:
        """The current time (UTC)."""
        return self.clock()

    @property
    def vaults(self) -> VaultCache:
        """The loaded and compiled vault, kept until its files change (``memory.vaults``)."""
        return self.memory.vaults

    @property
    def personal(self) -> PersonalVaultCache:
        """Learners' merged vaults with their personal decks (``memory.personal``)."""
        return self.memory.personal

    @contextmanager
    def database_held(self) -> Iterator[None]:
        """Keep the study database's engine open while the app runs.

        Every request opens a store and closes it; without a holder the last
        close disposes of the engine, so the next request would connect again,
        check the schema again and compile its statements again.
        """
        from sysdrill.storage.engine import acquire_engine, release_engine
        from sysdrill.storage.location import study_database_url

        url = study_database_url(self.db_url)
        engine = acquire_engine(url)
        try:
            yield
        finally:
            release_engine(url, engine)

    def compiled_vault(self) -> Path:
        """The vault's compiled copy, rebuilt when the vault's files changed."""
        return self.vaults.compiled(self.vault, now=self.now())

    def import_vault(self) -> Path:
        """Where an admin's imports go: the served vault, unless it is a bundled vault.

        The bundled vaults ship inside the package and are never written; a
        multi-user server's imports then go to ``vault`` in the data folder (serve
        it with ``--vault``). In single-user mode they become the learner's
        personal decks instead (:attr:`imports_to_personal_decks`).
        """
        from sysdrill.content.sample import is_bundled_vault

        if is_bundled_vault(self.vault):
            return self.data_dir / "vault"
        return self.vault

    @property
    def imports_to_personal_decks(self) -> bool:
        """Whether the import page makes personal decks rather than writing the vault.

        In single-user mode over a bundled vault (the starter vault, the default),
        which is never written: an import becomes a personal deck of the one
        learner, studied with the vault at once, as a learner's import on a
        multi-user server does. Over the learner's own vault, imports are written
        into it (it is served, so they are studied at once too).
        """
        from sysdrill.content.sample import is_bundled_vault

        return not self.multi_user and is_bundled_vault(self.vault)

    def load_vault(self) -> StudyVault:
        """The vault's items, decks and chains, loaded once until its files change."""
        loaded = self.vaults.get(self.vault)
        if loaded is not self._settled[0]:
            with self._settle_lock:
                if loaded is not self._settled[0]:
                    if len(loaded.items) >= SETTLE_HEAP_MIN_ITEMS:
                        _settle_heap()
                    self._settled[0] = loaded
        return loaded


def _settle_heap() -> None:
    """Keep the long-lived objects (a just-loaded vault) out of full garbage collections.

    A loaded vault of ten thousand items is millions of objects that live until
    the vault changes; every full collection walked them all, pausing a request
    for half a second now and then. Frozen objects are skipped. The previous
    vault's leftovers are collected first (unfreeze, collect), so a reload does
    not keep them for ever.
    """
    gc.unfreeze()
    gc.collect()
    gc.freeze()


def web_context(request: Request) -> WebContext:
    """The context of the app serving ``request``."""
    context: WebContext = request.app.state.sysdrill
    return context


async def _context_of(request: Request) -> WebContext:
    # A coroutine: FastAPI runs a plain function dependency in its thread pool,
    # a hand-off per request for what is one attribute read.
    return web_context(request)


Context = Annotated[WebContext, Depends(_context_of)]
"""A route's parameter type for the app's context (``context: Context``)."""

"""What one worker keeps between requests, in one object the app instance owns.

A web worker keeps four things so that a request need not rebuild them, each
confirmed by the database or the vault's files before it is used:

- the served vault, loaded and compiled (:class:`~sysdrill.app.vault.VaultCache`,
  reloaded when the vault's files change);
- learners' merged vaults with their personal decks
  (:class:`~sysdrill.app.personal_vault.PersonalVaultCache`, under the deck version
  the login lookup reads);
- learners' settings, under the settings version the login lookup reads;
- sessions' machines, used only when the database still holds the session at the
  revision and start time the machine was kept at (:meth:`WorkerMemory.take_session`
  returns it; the caller asks the database).

Nothing here is module state: two apps in one process (tests) keep apart. The
bounded maps are ``cachetools`` LRU caches behind one lock.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from cachetools import LRUCache

from sysdrill.app.personal_vault import PersonalVaultCache
from sysdrill.app.vault import VaultCache

if TYPE_CHECKING:
    from sysdrill.app.live_session import LiveSession
    from sysdrill.app.study_vault import StudyVault
    from sysdrill.study.service import StudyService
    from sysdrill.study.settings import StudySettings
    from sysdrill.study.user_state import StudyScope

__all__ = ["KEPT_LEARNERS", "KEPT_SESSIONS", "WorkerMemory"]

KEPT_SESSIONS = 4096
"""Sessions whose machine a worker keeps at most (a few kilobytes each)."""
KEPT_LEARNERS = 4096
"""Learners whose settings a worker keeps at most (a few hundred bytes each)."""


@dataclass(frozen=True, slots=True)
class _KeptSession:
    database: object
    """The engine the session was saved through: another database with the same ids
    must not match."""
    vault: StudyVault
    live: LiveSession


def _database(study: StudyService) -> object:
    return getattr(study.store, "engine", study.store)


class WorkerMemory:
    """The vaults, settings and session machines one worker keeps (thread-safe, bounded)."""

    def __init__(self, *, cache_dir: Path) -> None:
        """Keep nothing yet; ``cache_dir`` holds the vault's load cache and compiled copy."""
        self.vaults = VaultCache(cache_dir=cache_dir)
        self.personal = PersonalVaultCache()
        self._sessions: LRUCache[tuple[StudyScope, int], _KeptSession] = LRUCache(KEPT_SESSIONS)
        self._settings: LRUCache[tuple[object, int], tuple[int, StudySettings]] = LRUCache(
            KEPT_LEARNERS
        )
        self._lock = threading.Lock()

    def take_session(
        self, study: StudyService, vault: StudyVault, session_id: int
    ) -> LiveSession | None:
        """The machine kept of the session for this database and vault, taken out; else None.

        Taken out, so two requests never share one. The caller uses it only when
        the database still holds the session at ``live.saved.revision`` and
        ``live.saved.started_at``, and keeps it again once its move is stored.
        """
        with self._lock:
            kept = self._sessions.pop((study.scope, int(session_id)), None)
        if kept is None or kept.vault is not vault or kept.database is not _database(study):
            return None
        return kept.live

    def keep_session(self, study: StudyService, vault: StudyVault, live: LiveSession) -> None:
        """Keep ``live`` (its last move stored) for the session's next move."""
        with self._lock:
            self._sessions[(study.scope, int(live.session_id))] = _KeptSession(
                _database(study), vault, live
            )

    def settings(self, database: object, user_id: int, version: int) -> StudySettings | None:
        """The settings kept for the learner at ``version`` (read with their login), else None."""
        with self._lock:
            found = self._settings.get((database, user_id))
        return None if found is None or found[0] != version else found[1]

    def keep_settings(
        self, database: object, user_id: int, version: int, settings: StudySettings
    ) -> None:
        """Keep ``settings``, read after ``version`` was: they are at least that recent."""
        with self._lock:
            self._settings[(database, user_id)] = (version, settings)

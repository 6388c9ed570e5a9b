"""One served vault, kept loaded and compiled between requests.

A web app answers every page from the same vault; loading ten thousand item
files, or scanning them to bring the compiled search database up to date, on
each request would dominate its time. A :class:`VaultCache` belongs to one
app instance and keeps both until the vault's files change (see
:func:`~sysdrill.app.study_vault.vault_signature`).
"""

from __future__ import annotations

import threading
from datetime import datetime
from pathlib import Path

from sysdrill.app.study_vault import StudyVault, StudyVaultCache, vault_signature

__all__ = ["VaultCache"]

Signature = tuple[tuple[str, int], ...]


class VaultCache:
    """The loaded vault and its compiled database, per folder. Safe to share between threads.

    Both are rebuilt on the first call after :func:`vault_signature` changes:
    the loaded vault by :class:`StudyVaultCache`, the compiled database by
    :func:`~sysdrill.app.build.compiled_vault` (which itself reuses unchanged
    files' work).
    """

    def __init__(self, *, cache_dir: Path) -> None:
        """Start empty; ``cache_dir`` holds the load cache and compiled databases."""
        self._cache_dir = cache_dir
        self._loaded = StudyVaultCache(cache_dir=cache_dir)
        self._lock = threading.Lock()
        self._compiled: dict[Path, tuple[Signature, Path]] = {}

    def get(self, root: Path) -> StudyVault:
        """The vault at ``root``, loaded again if its files changed since the last call.

        Raises:
            VaultNotFound: If the folder does not exist.
        """
        return self._loaded.get(root)

    def compiled(self, root: Path, *, now: datetime) -> Path:
        """The compiled database of the vault at ``root``, rebuilt if its files changed.

        Args:
            root: The vault folder.
            now: Build time (UTC) recorded when a rebuild is needed.

        Raises:
            VaultNotFound: If the folder does not exist.
            ContentInvalid: If the vault has error findings (nothing is kept, so
                the next call tries again).
        """
        from sysdrill.app.build import compiled_vault

        key = root.resolve()
        signature = vault_signature(key)
        with self._lock:
            held = self._compiled.get(key)
            if held is not None and held[0] == signature and held[1].is_file():
                return held[1]
            out = compiled_vault(key, now=now, cache_dir=self._cache_dir)
            self._compiled[key] = (signature, out)
            return out

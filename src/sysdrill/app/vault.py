"""One served vault, kept loaded and compiled between requests.

A web app answers every page from the same vault; loading ten thousand item
files, or scanning them to bring the compiled search database up to date, on
each request would dominate its time. A :class:`VaultCache` belongs to one
app instance and keeps both, and whatever pages derive from the loaded vault,
until the vault's files change (see
:func:`~sysdrill.app.study_vault.vault_signature`).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

from sysdrill.app.study_vault import StudyVault, open_study_vault, vault_signature

__all__ = ["VaultCache"]

Signature = tuple[tuple[str, int], ...]
T = TypeVar("T")


def _restat(signature: Signature) -> Signature | None:
    """The same folders and files stat'ed again; None if one has gone."""
    try:
        return tuple((path, os.stat(path).st_mtime_ns) for path, _ in signature)
    except FileNotFoundError:
        return None


class VaultCache:
    """The loaded vault, its compiled database and values derived from it, per folder.

    Checking for changes stats the folders and top-level files the last
    :func:`vault_signature` listed (a dozen calls for a vault of any size) and
    lists the folders again only when one of them changed. Everything is
    rebuilt on the first call after a change: the loaded vault by
    :func:`~sysdrill.app.study_vault.open_study_vault`, the compiled database
    by :func:`~sysdrill.app.build.compiled_vault` (which itself reuses unchanged
    files' work), derived values by their builders. Safe to share between threads.
    """

    def __init__(self, *, cache_dir: Path) -> None:
        """Start empty; ``cache_dir`` holds the load cache and compiled databases."""
        self._cache_dir = cache_dir
        self._watch_lock = threading.Lock()
        self._load_lock = threading.Lock()
        self._compile_lock = threading.Lock()
        self._signatures: dict[Path, Signature] = {}
        self._loaded: dict[Path, tuple[Signature, StudyVault]] = {}
        self._compiled: dict[Path, tuple[Signature, Path]] = {}
        self._derived: dict[tuple[Path, str], tuple[StudyVault, Any]] = {}

    def _signature(self, root: Path) -> tuple[Path, Signature]:
        key = root.resolve()
        with self._watch_lock:
            known = self._signatures.get(key)
            if known is None or _restat(known) != known:
                known = vault_signature(key)
                self._signatures[key] = known
            return key, known

    def get(self, root: Path) -> StudyVault:
        """The vault at ``root``, loaded again if its files changed since the last call.

        Raises:
            VaultNotFound: If the folder does not exist.
        """
        key, signature = self._signature(root)
        with self._load_lock:
            held = self._loaded.get(key)
            if held is not None and held[0] == signature:
                return held[1]
            loaded = open_study_vault(key, cache_dir=self._cache_dir)
            self._loaded[key] = (signature, loaded)
            return loaded

    def derived(self, root: Path, name: str, build: Callable[[StudyVault], T]) -> T:
        """``build(vault)`` for the vault at ``root``, kept until the vault is reloaded.

        Args:
            root: The vault folder.
            name: Names the value (one per page's need, such as ``"explore"``).
            build: Computes it from the loaded vault; must not change the vault.
        """
        vault = self.get(root)
        slot = (root.resolve(), name)
        with self._load_lock:
            held = self._derived.get(slot)
            if held is not None and held[0] is vault:
                found: T = held[1]
                return found
        value = build(vault)
        with self._load_lock:
            self._derived[slot] = (vault, value)
        return value

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

        key, signature = self._signature(root)
        with self._compile_lock:
            held = self._compiled.get(key)
            if held is not None and held[0] == signature and held[1].is_file():
                return held[1]
            out = compiled_vault(key, now=now, cache_dir=self._cache_dir)
            self._compiled[key] = (signature, out)
            return out

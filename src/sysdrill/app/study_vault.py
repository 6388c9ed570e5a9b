"""The vault a learner studies, loaded once and indexed for sessions.

Sessions look items up by id, offer the next item of a chain and hand the
same item list to the study service again and again (it reuses its index
only for the same list), so the loaded vault is wrapped once here. A process
keeps one per vault folder (:func:`open_study_vault`), shared by threads.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path

from sysdrill.content.collections import Chain, Deck
from sysdrill.content.loader import Vault, load_vault
from sysdrill.content.models import Item
from sysdrill.study.sessions.chains import ChainIndex
from sysdrill.study.sessions.selection import studyable

__all__ = ["StudyVault", "forget_study_vaults", "open_study_vault"]


@dataclass(frozen=True, slots=True)
class StudyVault:
    """A loaded vault with the indexes sessions need. Build with :meth:`of`."""

    root: Path
    items: list[Item]
    """Every item that loaded, in vault order (one list, never changed)."""
    decks: list[Deck]
    chains: list[Chain]
    broken_files: int
    """Item files that did not load (left out; ``sysdrill check`` says why)."""
    by_id: dict[str, Item] = field(repr=False)
    chain_index: ChainIndex = field(repr=False)

    @classmethod
    def of(cls, vault: Vault) -> StudyVault:
        """Index a loaded vault."""
        items = vault.items
        return cls(
            root=vault.root,
            items=items,
            decks=list(vault.decks),
            chains=list(vault.chains),
            broken_files=sum(1 for f in vault.files if f.item is None),
            by_id={item.id: item for item in items},
            chain_index=ChainIndex(vault.chains, studyable(items)),
        )


_LOCK = threading.Lock()
_OPEN: dict[Path, StudyVault] = {}


def open_study_vault(root: Path | None = None, *, reload: bool = False) -> StudyVault:
    """Load the vault at ``root`` (the bundled sample vault when None), once per process.

    Args:
        root: Vault folder.
        reload: Load it again (after the vault's files changed).

    Raises:
        VaultNotFound: If the folder does not exist.
    """
    from sysdrill.content.sample import sample_vault_path

    key = (root or sample_vault_path()).resolve()
    with _LOCK:
        found = _OPEN.get(key)
        if found is None or reload:
            found = _OPEN[key] = StudyVault.of(load_vault(key))
        return found


def forget_study_vaults() -> None:
    """Drop every vault loaded by :func:`open_study_vault` (tests; after edits)."""
    with _LOCK:
        _OPEN.clear()

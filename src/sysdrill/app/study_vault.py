"""The vault a learner studies, loaded once and indexed for sessions.

Sessions look items up by id, offer the next item of a chain and hand the
same item list to the study service again and again (it reuses its index
only for the same list), so the loaded vault is wrapped once here. A web app
keeps its vaults in a :class:`StudyVaultCache` it owns, reloaded when the
vault's files change.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from sysdrill.app.catalogue import vault_signature  # kept here too: the web app reads it here
from sysdrill.content.collections import Chain, Deck
from sysdrill.content.gc_pause import collector_paused
from sysdrill.content.ignore_marks import without_ignore_marks
from sysdrill.content.loader import Vault, load_vault
from sysdrill.content.models import Item
from sysdrill.content.vault_identity import VaultIdentity, read_vault_identity
from sysdrill.study.sessions.chains import ChainIndex
from sysdrill.study.sessions.selection import studyable
from sysdrill.study.user_state import VaultId

__all__ = ["StudyVault", "open_study_vault", "vault_signature"]


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
    identity: VaultIdentity
    """Whom the study state belongs to (``content/vault_identity.py`` has the rule)."""
    files: dict[str, Path] = field(default_factory=dict, repr=False)
    """The file of each item read from the vault, by id (personal deck items have none)."""

    @property
    def vault_id(self) -> VaultId:
        """The identity the vault's study state is kept under."""
        return VaultId(self.identity.vault_id)

    @classmethod
    def of(cls, vault: Vault) -> StudyVault:
        """Index a loaded vault.

        Raises:
            ContentInvalid: If the vault's ``vault.yaml`` is unreadable or its id invalid.
        """
        # What learners read: an author's ``# sysdrill: ignore[...]`` marker is check's.
        items = [without_ignore_marks(f.item, raw=f.raw) for f in vault.files if f.item is not None]
        return cls(
            root=vault.root,
            identity=read_vault_identity(vault.root),
            items=items,
            decks=list(vault.decks),
            chains=list(vault.chains),
            broken_files=sum(1 for f in vault.files if f.item is None),
            by_id={item.id: item for item in items},
            chain_index=ChainIndex(vault.chains, studyable(items)),
            files={f.item.id: f.path for f in vault.files if f.item is not None},
        )


def open_study_vault(root: Path | None = None, *, cache_dir: Path | None = None) -> StudyVault:
    """Load and index the vault at ``root`` (the bundled starter vault when None).

    Args:
        root: Vault folder.
        cache_dir: The load cache's folder (the default user cache folder when None).

    Raises:
        VaultNotFound: If the folder does not exist.
    """
    from sysdrill.content.sample import default_vault_path

    # Its objects all stay: collections during the load would walk them for nothing.
    with collector_paused():
        return StudyVault.of(load_vault(root or default_vault_path(), cache_dir=cache_dir))

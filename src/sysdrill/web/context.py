"""What every request of one app instance shares: the vault, the databases, the clock.

State that outlives a request belongs to the app instance (``app.state.sysdrill``),
never to a module, so two apps in one process (tests) do not see each other.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from fastapi import Request

from sysdrill.content.loader import Vault

__all__ = ["WebContext", "web_context"]


@dataclass(frozen=True, slots=True)
class WebContext:
    """Settings of one running app.

    Attributes:
        vault: The vault folder the pages read.
        db_url: The study database URL; None for the default database.
        cache_dir: Where the compiled copy of the vault is kept.
        data_dir: Where user files such as problem reports are kept.
        clock: Returns the current time, timezone-aware UTC (injected for tests).
    """

    vault: Path
    db_url: str | None
    cache_dir: Path
    data_dir: Path
    clock: Callable[[], datetime]

    def now(self) -> datetime:
        """The current time (UTC)."""
        return self.clock()

    def compiled_vault(self) -> Path:
        """The vault's compiled copy, brought up to date (one scan of an unchanged vault)."""
        from sysdrill.app.build import compiled_vault

        return compiled_vault(self.vault, now=self.now(), cache_dir=self.cache_dir)

    def import_vault(self) -> Path:
        """Where imports go: the served vault, unless it is a bundled vault.

        The bundled vaults ship inside the package and are never written; imports
        then go to ``vault`` in the data folder (serve it with ``--vault``).
        """
        from sysdrill.content.sample import is_bundled_vault

        if is_bundled_vault(self.vault):
            return self.data_dir / "vault"
        return self.vault

    def load_vault(self) -> Vault:
        """The vault's items and shared files (unchanged files come from the load cache)."""
        from sysdrill.content.loader import load_vault

        return load_vault(self.vault, cache_dir=self.cache_dir)


def web_context(request: Request) -> WebContext:
    """FastAPI dependency: the context of the app serving ``request``."""
    context: WebContext = request.app.state.sysdrill
    return context

"""The vaults bundled with the package.

The starter vault (distributed training, issue 15) is the default of every command that
reads a vault when none is given; the small sample vault stays as a fixture for tests
and as a compact example of the format. Both are read-only: copy them before editing.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["default_vault_path", "is_bundled_vault", "sample_vault_path", "starter_vault_path"]

_HERE = Path(__file__).resolve().parent


def sample_vault_path() -> Path:
    """Folder of the bundled sample vault: 12 items, a fixture for tests and examples."""
    return _HERE / "sample_vault"


def starter_vault_path() -> Path:
    """Folder of the bundled starter vault: the distributed-training question bank."""
    return _HERE / "starter_vault"


def default_vault_path() -> Path:
    """The vault a command reads when the user names none (the starter vault)."""
    return starter_vault_path()


def is_bundled_vault(path: Path) -> bool:
    """Whether ``path`` is one of the vaults shipped inside the package (never written)."""
    resolved = path.resolve()
    return resolved in (sample_vault_path(), starter_vault_path())

"""The small sample vault bundled with the package, used when no VAULT is given."""

from __future__ import annotations

from pathlib import Path

__all__ = ["sample_vault_path"]


def sample_vault_path() -> Path:
    """Folder of the bundled sample vault (read-only: copy it before editing)."""
    return Path(__file__).resolve().parent / "sample_vault"

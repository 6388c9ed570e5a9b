"""A vault's identity: the name its study state is kept under.

Study state (cards, reviews, sessions) is keyed by learner, vault and item, so
two vaults that hold the same item id never share a card. The identity must stay
the same when the vault moves or is cloned on another machine, so it is not the
path when the vault can say otherwise. The rule, first match wins:

1. the bundled vaults have fixed names (``starter``, ``sample``);
2. a vault with a ``vault.yaml`` at its top names itself (``id: my-vault-3f9a2c``);
   ``sysdrill init`` writes one;
3. any other vault is known by its folder: ``path:`` and a digest of the folder's
   resolved path. Moving such a vault starts its state afresh, so declare an id
   before moving it; a vault that declares an id later takes over the state kept
   under its path (``app/study.py``).

Nothing here writes a vault: reading a vault to study it never changes its files.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

from sysdrill.errors import ContentInvalid

__all__ = [
    "SAMPLE_VAULT_ID",
    "STARTER_VAULT_ID",
    "VAULT_FILE",
    "VaultIdentity",
    "new_vault_id",
    "path_vault_id",
    "read_vault_identity",
    "vault_file_text",
]

VAULT_FILE = "vault.yaml"
"""The vault's own settings file, at its top; only ``id`` is read."""
STARTER_VAULT_ID = "starter"
"""Identity of the bundled starter vault."""
SAMPLE_VAULT_ID = "sample"
"""Identity of the bundled sample vault."""

_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")
_SLUG_DROP = re.compile(r"[^a-z0-9]+")


@dataclass(frozen=True, slots=True)
class VaultIdentity:
    """Who a vault is, and how that was decided."""

    vault_id: str
    """The identity study state is kept under."""
    path_id: str
    """The identity its folder alone would give it (state kept before it declared an id)."""
    declared: bool
    """Whether the identity is a bundled vault's name or a ``vault.yaml`` id."""


def path_vault_id(root: Path) -> str:
    """The identity of a vault that declares none: a digest of its resolved folder."""
    digest = hashlib.sha256(str(root.resolve()).encode("utf-8", "surrogateescape"))
    return f"path:{digest.hexdigest()[:20]}"


def _declared_id(root: Path) -> str | None:
    import yaml

    path = root / VAULT_FILE
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise ContentInvalid(f"{path}: cannot read ({exc}). Fix or remove the file.") from exc
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ContentInvalid(f"{path}: not valid YAML. Write it as `id: my-vault`.") from exc
    value = data.get("id") if isinstance(data, dict) else None
    if value is None:
        return None
    if not isinstance(value, str) or not _ID.fullmatch(value):
        raise ContentInvalid(
            f"{path}: id {value!r} is not a vault id. Use 1-100 letters, digits, '.', '_' "
            "or '-', starting with a letter or digit (e.g. `id: my-vault`)."
        )
    return value


def read_vault_identity(root: Path) -> VaultIdentity:
    """Find the identity of the vault at ``root`` (the rule in the module docstring).

    Raises:
        ContentInvalid: If ``vault.yaml`` exists but cannot be read or its id is invalid.
    """
    from sysdrill.content.sample import sample_vault_path, starter_vault_path

    resolved = root.resolve()
    bundled = ((starter_vault_path(), STARTER_VAULT_ID), (sample_vault_path(), SAMPLE_VAULT_ID))
    for folder, name in bundled:
        if resolved == folder.resolve():
            # Their folder alone names them: there is no other identity to claim from.
            return VaultIdentity(vault_id=name, path_id=name, declared=True)
    path_id = path_vault_id(root)
    declared = _declared_id(root)
    if declared is None:
        return VaultIdentity(vault_id=path_id, path_id=path_id, declared=False)
    return VaultIdentity(vault_id=declared, path_id=path_id, declared=True)


def new_vault_id(folder_name: str, token: str) -> str:
    """A fresh id for a new vault: its folder's name made safe, and ``token`` (random hex).

    The token keeps two vaults created in folders of the same name apart.
    """
    slug = _SLUG_DROP.sub("-", folder_name.lower()).strip("-")[:60] or "vault"
    return f"{slug}-{token}"


def vault_file_text(vault_id: str) -> str:
    """The text of a new ``vault.yaml`` declaring ``vault_id``."""
    return (
        "# The vault's identity: your study progress is kept under it, so it stays\n"
        "# yours when the folder moves or is cloned elsewhere. Do not reuse it for\n"
        "# another vault.\n"
        f"id: {vault_id}\n"
    )

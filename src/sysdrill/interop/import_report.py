"""What an import found and did: :class:`ImportReport` and its per-item outcomes."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from sysdrill.interop.anki_scheduling import AnkiCardHistory
from sysdrill.interop.source import ImportNote

__all__ = ["ImportReport", "ItemAction", "ItemOutcome"]


class ItemAction(StrEnum):
    """What an import did with one item."""

    ADDED = "added"
    UPDATED = "updated"
    UNCHANGED = "unchanged"
    SKIPPED = "skipped"


@dataclass(frozen=True, slots=True)
class ItemOutcome:
    """One item of the source and what became of it."""

    action: ItemAction
    key: str
    """The item's key in the source (or the source location of a skipped part)."""
    id: str | None = None
    path: str | None = None
    """Vault-relative path of the item file."""
    reason: str = ""
    """Why it was skipped."""

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON shape {action, key, id, path, reason}."""
        return {
            "action": self.action.value,
            "key": self.key,
            "id": self.id,
            "path": self.path,
            "reason": self.reason,
        }


@dataclass(slots=True)
class ImportReport:
    """What an import found and did (or would do, in a dry run)."""

    source: str
    format: str
    vault: str
    dry_run: bool
    deck: str | None = None
    created_vault: bool = False
    outcomes: list[ItemOutcome] = field(default_factory=list)
    notes: list[ImportNote] = field(default_factory=list)
    """Remarks about the source: rebuilt structure, encodings, items without answers."""
    defects: list[str] = field(default_factory=list)
    """Problems of the source that ``sysdrill check`` will report on the imported items."""
    written: list[str] = field(default_factory=list)
    """Vault-relative paths written (empty in a dry run)."""
    field_maps: dict[str, dict[str, str]] = field(default_factory=dict)
    """Role of each note field, by note type name (Anki packages): the ``--dry-run`` preview."""
    columns: dict[str, str] = field(default_factory=dict)
    """Role of each column of a CSV file without a header row (``column 1``: ``front``)."""
    scheduling: dict[str, AnkiCardHistory] = field(default_factory=dict)
    """Anki card state and review log by item id (``with_scheduling`` only; not in JSON)."""

    def _of(self, action: ItemAction) -> list[ItemOutcome]:
        return [outcome for outcome in self.outcomes if outcome.action is action]

    @property
    def added(self) -> list[ItemOutcome]:
        """Items new to the vault."""
        return self._of(ItemAction.ADDED)

    @property
    def updated(self) -> list[ItemOutcome]:
        """Items whose source changed since the last import."""
        return self._of(ItemAction.UPDATED)

    @property
    def unchanged(self) -> list[ItemOutcome]:
        """Items the vault already holds as the source has them."""
        return self._of(ItemAction.UNCHANGED)

    @property
    def skipped(self) -> list[ItemOutcome]:
        """Parts of the source not imported, each with its reason."""
        return self._of(ItemAction.SKIPPED)

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON shape printed by ``sysdrill import --json``."""
        return {
            "source": self.source,
            "format": self.format,
            "vault": self.vault,
            "dry_run": self.dry_run,
            "deck": self.deck,
            "created_vault": self.created_vault,
            "counts": {action.value: len(self._of(action)) for action in ItemAction},
            "items": [outcome.to_dict() for outcome in self.outcomes],
            "notes": [
                {"message": n.message, "location": n.location, "skipped": n.skipped}
                for n in self.notes
            ],
            "defects": list(self.defects),
            "written": list(self.written),
            "field_maps": {name: dict(roles) for name, roles in self.field_maps.items()},
            "columns": dict(self.columns),
        }

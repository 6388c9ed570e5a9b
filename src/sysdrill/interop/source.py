"""What every importer returns: parsed items plus what it had to say about them.

A parser reads one source and returns a :class:`ParsedSource`; it never writes.
The import service allocates ids, compares with the vault, and writes every
file or none.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sysdrill.interop.anki_scheduling import AnkiCardHistory

__all__ = ["ImportNote", "ParsedItem", "ParsedSource"]


@dataclass(frozen=True, slots=True)
class ImportNote:
    """A warning or remark about the source (a rebuilt structure, a skipped card)."""

    message: str
    location: str = ""
    """Where in the source, such as ``quiz.txt:412`` or ``card 17``."""
    skipped: bool = False
    """True when the note explains an item that was not imported."""


@dataclass(frozen=True, slots=True)
class ParsedItem:
    """One item read from a source, as a raw vault mapping without an ``id`` yet.

    ``key`` identifies the item within the source stably across re-imports
    (for example the question number, an Anki note GUID, or a StaffML id).
    """

    key: str
    data: dict[str, Any]
    preferred_id: str | None = None
    """Id to keep when the source has one (StaffML), else None to allocate."""
    notes: tuple[ImportNote, ...] = ()
    group: str | None = None
    """Key shared by items read from one source note (cloze blanks, reverse cards):
    they get one note id, and each item's id is ``<note id>-<card>``."""
    anki: dict[str, Any] | None = None
    """Anki packages: the note, note type and card the item came from, kept as its
    ``source.anki`` (see :class:`~sysdrill.content.models.AnkiNote`)."""
    card: tuple[str, str] | None = None
    """Sysdrill's own card exports: the front and back as the file holds them
    (Markdown), compared with the vault's item of the same id on re-import."""
    card_html: tuple[str, str] | None = None
    """The same front and back as HTML when the file holds HTML (Anki text)."""


@dataclass(slots=True)
class ParsedSource:
    """Everything one parser read from one source."""

    format: str
    """Format name, such as ``quiz-text``, ``apkg`` or ``staffml-yaml``."""
    path: str
    items: list[ParsedItem] = field(default_factory=list)
    notes: list[ImportNote] = field(default_factory=list)
    deck: str | None = None
    """Deck the source implies (a chapter title, an Anki deck name)."""
    shared_files: dict[str, str] = field(default_factory=dict)
    """Taxonomy and chain files of a source vault (path relative to its root, with
    ``/``) and their text, to bring into the target vault as written."""
    field_maps: dict[str, dict[str, str]] = field(default_factory=dict)
    """Role of each field, by note type name, as the reader mapped them (Anki packages)."""
    media_files: dict[str, bytes] = field(default_factory=dict)
    """Checked media files to write to the vault's ``media/`` folder, by file name."""
    scheduling: dict[str, AnkiCardHistory] = field(default_factory=dict)
    """Anki card state and review log by item key (``--with-scheduling`` only)."""
    skip_napkin_check: bool = False
    """A flashcard app's deck (Anki, Quizlet), whose numbers are not napkin math: the
    decks the import adds to ``decks.yaml`` say ``skip_napkin_check: true``."""
    own_export: bool = False
    """The source is one of sysdrill's exports: an item id it carries (or the Anki
    GUID made from one) names that item in the vault, which is updated in place."""
    columns: dict[str, str] = field(default_factory=dict)
    """Role of each column of a file without a header row (``column 1``: ``front``...),
    as the reader guessed them: the report's preview."""

r"""Write the text exports: Anki text, CSV, StaffML ``corpus.json`` and Markdown.

Each writer takes the chosen items, writes one file at the given (temporary)
path and returns the deck names it wrote; :func:`export_vault` makes the
write atomic. Every file is UTF-8 with ``\n`` line endings.
"""

from __future__ import annotations

import csv
import json
import re
from datetime import date, datetime
from pathlib import Path
from typing import Any

from sysdrill.interop.export.anki_media import flatten_media
from sysdrill.interop.export.apkg import note_guid
from sysdrill.interop.export.cards import (
    ExportedItem,
    FieldRenderer,
    ItemsWritten,
    anki_deck_name,
    anki_tags,
    back_markdown,
    demote_headings,
    front_markdown,
)

__all__ = [
    "ANKI_TEXT_COLUMNS",
    "CSV_COLUMNS",
    "guard_markers",
    "write_anki_text",
    "write_csv",
    "write_markdown",
    "write_staffml_json",
]

ANKI_TEXT_COLUMNS: tuple[str, ...] = ("GUID", "Deck", "Tags", "Front", "Back")
"""Columns of the Anki text export; Front and Back fill Anki's Basic note type."""

CSV_COLUMNS: tuple[str, ...] = (
    "id",
    "front",
    "back",
    "deck",
    "tags",
    "format",
    "track",
    "level",
    "topic",
    "status",
    "zone",
    "item",
)
"""Columns of the CSV export (``front``/``back`` are Markdown).

``item`` is the item's mapping as its file holds it, as JSON: ``sysdrill import``
rebuilds the item whole from it, with any edit of the other columns applied.
"""

_MARKER_LINE = re.compile(r"^(\s*)((?:\*\*|__)?(?:Q|A|Question|Answer)\s*[:.])", re.I | re.M)


def _vault_decks(items: list[ExportedItem]) -> list[str]:
    return sorted({e.deck for e in items if e.deck})


def write_anki_text(
    items: list[ExportedItem],
    path: Path,
    now: datetime,
    *,
    used_media: set[str] | None = None,
    progress: ItemsWritten | None = None,
    guid_scope: str | None = None,
) -> list[str]:
    """Write Anki "Notes in Plain Text" (tab-separated, HTML fields, GUID column).

    Importing it into Anki fills the built-in Basic note type; the GUID column
    is the same as in the ``.apkg`` export, so a re-import updates notes. Rows
    are grouped by deck, each parent deck before its subdecks. Media
    references become Anki's flat names (``<img src="x.png">``,
    ``[sound:x.mp3]``), as in a collection's media folder.

    Args:
        items: The items to write.
        path: The file to write.
        now: Unused (the format has no timestamps).
        used_media: Collects the names of the vault's media files the fields
            refer to, for the caller to copy beside the file.
        progress: Called with the number of rows written so far.
        guid_scope: The vault's declared id, as the package's GUIDs use it
            (:func:`~sysdrill.interop.export.apkg.guid_scope`).
    """
    del now  # the format has no timestamps
    render = FieldRenderer()
    used = used_media if used_media is not None else set()
    decks: set[str] = set()
    with path.open("w", encoding="utf-8", newline="") as sink:
        sink.write("#separator:tab\n#html:true\n#notetype:Basic\n")
        sink.write("#guid column:1\n#deck column:2\n#tags column:3\n")
        sink.write("#columns:" + "\t".join(ANKI_TEXT_COLUMNS) + "\n")
        writer = csv.writer(sink, delimiter="\t", lineterminator="\n")
        named = [(anki_deck_name(e.item, deck=e.deck_title), e) for e in items]
        # Parents before their subdecks: Anki creates a deck for a row's deck as it
        # reads it, and a subdeck met first makes it create the tree again and again.
        # The sort is stable, so items keep their order within a deck.
        named.sort(key=lambda pair: pair[0].split("::"))
        for done, (deck, exported) in enumerate(named, start=1):
            item = exported.item
            decks.add(deck)
            writer.writerow(
                [
                    note_guid(item.id, guid_scope),
                    deck,
                    " ".join(anki_tags(item)),
                    flatten_media(render(front_markdown(item)), used),
                    flatten_media(render(back_markdown(item)), used),
                ]
            )
            if progress is not None:
                progress(done)
    return sorted(decks)


def write_csv(
    items: list[ExportedItem], path: Path, now: datetime, *, progress: ItemsWritten | None = None
) -> list[str]:
    """Write a CSV with :data:`CSV_COLUMNS`; ``sysdrill import`` reads it back.

    ``progress`` is called with the number of rows written so far.
    """
    del now
    with path.open("w", encoding="utf-8", newline="") as sink:
        writer = csv.writer(sink, lineterminator="\n")
        writer.writerow(CSV_COLUMNS)
        for done, exported in enumerate(items, start=1):
            item = exported.item
            writer.writerow(
                [
                    item.id,
                    front_markdown(item),
                    back_markdown(item, placeholder=False),
                    exported.deck or "",
                    "; ".join(item.tags),
                    item.kind.value,
                    item.track.value if item.track else "",
                    item.level.value if item.level else "",
                    item.topic or "",
                    item.status.value,
                    item.zone.value if item.zone else "",
                    json.dumps(
                        exported.raw, ensure_ascii=False, sort_keys=False, default=_json_value
                    ),
                ]
            )
            if progress is not None:
                progress(done)
    return _vault_decks(items)


def _json_value(value: Any) -> Any:
    # YAML reads unquoted dates as date objects; the item model keeps str(value).
    if isinstance(value, datetime | date):
        return str(value)
    raise TypeError(f"cannot write {type(value).__name__} to JSON")


def write_staffml_json(
    items: list[ExportedItem], path: Path, now: datetime, *, progress: ItemsWritten | None = None
) -> list[str]:
    """Write a ``corpus.json`` array: each item's mapping exactly as its YAML file holds it.

    The array is written in one call, so ``progress`` hears only its end.
    """
    del now
    with path.open("w", encoding="utf-8", newline="\n") as sink:
        json.dump(
            [exported.raw for exported in items],
            sink,
            ensure_ascii=False,
            indent=2,
            default=_json_value,
        )
        sink.write("\n")
    if progress is not None:
        progress(len(items))
    return _vault_decks(items)


def guard_markers(text: str) -> str:
    """A field as the Markdown export writes it: headings bold, ``Q:``-like lines escaped."""
    # A body line that looks like "Q:" would start a new card on re-import.
    return _MARKER_LINE.sub(lambda m: f"{m.group(1)}\\{m.group(2)}", demote_headings(text))


def write_markdown(
    items: list[ExportedItem], path: Path, now: datetime, *, progress: ItemsWritten | None = None
) -> list[str]:
    """Write Markdown ``Q:``/``A:`` pairs grouped under deck (or track and level) headings.

    Each question is preceded by an ``<!-- id: ... -->`` comment, so importing
    the file again keeps the ids. ``progress`` is called with the items written so far.
    """
    del now
    groups: dict[str, list[ExportedItem]] = {}
    for exported in items:
        item = exported.item
        group = exported.deck_title or " ".join(
            part
            for part in (item.track and item.track.value, item.level and item.level.value)
            if part
        )
        groups.setdefault(group or "Other", []).append(exported)
    single = len(groups) == 1
    done = 0
    with path.open("w", encoding="utf-8", newline="\n") as sink:
        for name, members in sorted(groups.items()):
            sink.write(f"# {name}\n\n" if single else f"## {name}\n\n")
            for exported in members:
                item = exported.item
                sink.write(f"<!-- id: {item.id} -->\n")
                sink.write(f"Q: {guard_markers(front_markdown(item))}\n\n")
                sink.write(f"A: {guard_markers(back_markdown(item, placeholder=False))}\n\n")
                done += 1
                if progress is not None:
                    progress(done)
    return _vault_decks(items)

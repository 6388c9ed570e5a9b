"""Export a vault: load it, pick items by filters, write one file atomically.

Every format writes to a temporary file beside ``out`` and moves it into
place with :func:`os.replace` only when the whole file is written, so an
error (or Ctrl-C) never leaves a half-written export, and a previous export
at ``out`` survives a failed one.
"""

from __future__ import annotations

import dataclasses
import functools
import os
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from pathlib import Path

from sysdrill.content.enums import Level, Status, Track
from sysdrill.content.ignore_marks import strip_ignore_marks_in, without_ignore_marks
from sysdrill.content.models import Item
from sysdrill.errors import ExportFailed, NothingToExport
from sysdrill.files import replace_atomically
from sysdrill.interop.anki_scheduling import AnkiCardHistory
from sysdrill.interop.export.cards import ExportedItem, ItemsWritten

__all__ = [
    "READING",
    "WRITING",
    "ExportFilters",
    "ExportFormat",
    "ExportReport",
    "check_writable",
    "export_vault",
    "write_atomically",
]

READING = "Reading items"
"""The stage an export reports while it loads the vault, one step per item file."""
WRITING = "Writing the export"
"""The stage an export reports while it writes the file, one step per exported item."""


class ExportFormat(StrEnum):
    """File formats ``sysdrill export`` writes."""

    APKG = "apkg"
    """Anki package, built with genanki: one note type per kind of item."""
    ANKI_TEXT = "anki-text"
    """Anki "Notes in Plain Text" with headers, for Anki's File > Import."""
    CSV = "csv"
    """CSV with a header row: id, front, back, deck, tags and classification."""
    STAFFML_JSON = "staffml-json"
    """A ``corpus.json`` array of items exactly as the vault holds them."""
    MARKDOWN = "markdown"
    """Markdown with ``Q:``/``A:`` pairs, readable and importable again."""


@dataclass(frozen=True, slots=True)
class ExportFilters:
    """Which items to export; an empty tuple lets everything through.

    Within one filter any value matches; all given filters must match. Without
    ``statuses``, items with status ``deleted`` are left out.
    """

    tracks: tuple[Track, ...] = ()
    levels: tuple[Level, ...] = ()
    decks: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    statuses: tuple[Status, ...] = ()

    def matches(self, item: Item, *, decks: tuple[str, ...] = ()) -> bool:
        """Whether the item passes every given filter.

        Args:
            item: The item.
            decks: Names and titles of the decks the item belongs to (its
                ``deck`` field and the decks of ``decks.yaml`` listing it).
        """
        if self.tracks and item.track not in self.tracks:
            return False
        if self.levels and item.level not in self.levels:
            return False
        if self.decks and not any(_deck_matches(deck, self.decks) for deck in decks):
            return False
        if self.tags and not {t.casefold() for t in item.tags} & {t.casefold() for t in self.tags}:
            return False
        if self.statuses:
            return item.status in self.statuses
        return item.status != Status.DELETED

    def describe(self) -> str:
        """The filters as command-line options, for messages."""
        given = [
            *(f"--track {t.value}" for t in self.tracks),
            *(f"--level {lv.value}" for lv in self.levels),
            *(f"--deck {d}" for d in self.decks),
            *(f"--tag {t}" for t in self.tags),
            *(f"--status {s.value}" for s in self.statuses),
        ]
        return " ".join(given)


def _deck_matches(deck: str, wanted: tuple[str, ...]) -> bool:
    # A parent deck selects its subdecks, as in Anki.
    name = deck.casefold()
    return any(name == w.casefold() or name.startswith(w.casefold() + "::") for w in wanted)


@dataclass(slots=True)
class ExportReport:
    """What an export wrote."""

    format: ExportFormat
    out: Path
    items: int = 0
    """Items written (notes, rows or array entries)."""
    by_kind: dict[str, int] = field(default_factory=dict)
    decks: list[str] = field(default_factory=list)
    """Decks written (Anki deck names for ``apkg``, vault decks otherwise)."""
    skipped: list[str] = field(default_factory=list)
    """Vault files left out because they do not validate, as ``file: reason``."""
    filtered_out: int = 0
    """Valid items the filters left out."""
    size_bytes: int = 0
    """Size of the written file, in bytes."""
    media_folder: Path | None = None
    """``anki-text``: the folder beside the file that the media files were copied to."""
    media_files: list[str] = field(default_factory=list)
    """``anki-text``: the media files copied there (for Anki's collection media folder)."""


Writer = Callable[[list[ExportedItem], Path, datetime], list[str]]
"""Writes the items to a path and returns the deck names it wrote."""


def _writer(
    fmt: ExportFormat,
    vault: Path,
    scheduling: Mapping[str, AnkiCardHistory] | None,
    used_media: set[str],
    progress: ItemsWritten,
) -> Writer:
    if fmt == ExportFormat.APKG:
        from sysdrill.interop.export.apkg import write_apkg

        return functools.partial(write_apkg, vault=vault, scheduling=scheduling, progress=progress)
    from sysdrill.interop.export import text_formats

    if fmt == ExportFormat.ANKI_TEXT:
        from sysdrill.interop.export.apkg import guid_scope

        return functools.partial(
            text_formats.write_anki_text,
            used_media=used_media,
            progress=progress,
            guid_scope=guid_scope(vault),
        )
    writers: dict[ExportFormat, Writer] = {
        ExportFormat.CSV: functools.partial(text_formats.write_csv, progress=progress),
        ExportFormat.STAFFML_JSON: functools.partial(
            text_formats.write_staffml_json, progress=progress
        ),
        ExportFormat.MARKDOWN: functools.partial(text_formats.write_markdown, progress=progress),
    }
    return writers[fmt]


def write_atomically(out: Path, write: Callable[[Path], None]) -> None:
    """Call ``write`` on a temporary path beside ``out``, then move it into place.

    Raises:
        ExportFailed: If the folder is missing or the file cannot be written;
            the temporary file is removed and ``out`` is left as it was.
    """
    check_writable(out)
    try:
        replace_atomically(out, write)
    except OSError as exc:
        raise ExportFailed(
            f"cannot write '{out}': {exc.strerror or exc}; check the space and permissions"
        ) from exc


def check_writable(out: Path) -> None:
    """Fail early if ``out`` names a folder, or a file in a folder that is missing or read-only.

    Raises:
        ExportFailed: Naming the problem and the fix.
    """
    folder = out.parent
    if not folder.is_dir():
        raise ExportFailed(
            f"folder '{folder}' does not exist; create it first or choose another --out"
        )
    if out.is_dir():
        raise ExportFailed(f"'{out}' is a folder; give a file name, such as '{out / 'deck'}'")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise ExportFailed(
            f"cannot write in '{folder}': Permission denied; choose a folder you can write to"
        )


def _no_progress(stage: str, done: int, total: int) -> None:
    """The progress callback of a caller that shows none."""


def _check_now(now: datetime) -> None:
    if now.tzinfo is None or now.utcoffset() != timedelta(0):
        raise ValueError("now must be a timezone-aware UTC datetime")


def export_vault(
    vault: Path,
    *,
    format: ExportFormat | str,
    out: Path,
    filters: ExportFilters | None = None,
    now: datetime,
    cache_dir: Path | None = None,
    scheduling: Mapping[str, AnkiCardHistory] | None = None,
    present: Callable[[Item], Item] | None = None,
    progress: Callable[[str, int, int], None] | None = None,
    extra: Sequence[ExportedItem] = (),
) -> ExportReport:
    """Export the vault's valid items that pass the filters into one file.

    Args:
        vault: The vault folder.
        format: One of :class:`ExportFormat` (or its value).
        out: The file to write; replaced atomically if it exists.
        filters: Which items to export; all but deleted ones when None.
        now: Current time (UTC), stamped on Anki notes as their modification time.
        cache_dir: Load cache folder (see ``load_vault``); files unchanged since
            the last load are not parsed again. None parses every file.
        scheduling: ``apkg`` only: study history by item id to write into the
            cards and review log (``sysdrill export --with-scheduling``).
        present: How an item reads on a card (the app shows a parametric item with
            one draw of its numbers); formats that keep the mapping (JSON) write the
            file as it is.
        progress: Called as ``progress(stage, done, total)`` while the vault is
            read (:data:`READING`, per item file) and the file written
            (:data:`WRITING`, per exported item).
        extra: Items kept outside the vault folder (a learner's personal decks,
            stored in the study database), exported with the vault's when they pass
            the filters; an id the vault has too is the vault's item.

    Returns:
        What was written, with the files skipped because they do not validate.

    Raises:
        VaultNotFound: If the vault folder does not exist.
        ExportFailed: If no item matches, or the file cannot be written.
        ValueError: If ``now`` is naive or not UTC, or the format is unknown.
    """
    from sysdrill.content.loader import load_vault

    _check_now(now)
    fmt = ExportFormat(format)
    filters = filters or ExportFilters()
    # A wrong --out fails before a large vault is read, not after.
    check_writable(out)
    report_progress = progress or _no_progress
    loaded = load_vault(
        vault,
        cache_dir=cache_dir,
        progress=lambda done, total: report_progress(READING, done, total),
    )
    report = ExportReport(format=fmt, out=out)
    titles = {deck.name: deck.title or deck.name for deck in loaded.decks}
    listed_in: dict[str, str] = {}
    for deck in loaded.decks:
        for item_id in deck.items:
            listed_in.setdefault(item_id, deck.name)
    chosen: list[ExportedItem] = []
    for file in loaded.files:
        item = file.item
        if item is None:
            reason = file.findings[0].message if file.findings else "does not validate"
            report.skipped.append(f"{file.rel}: {reason}")
            continue
        deck_name = item.deck or listed_in.get(item.id)
        deck_title = titles.get(deck_name, deck_name) if deck_name else None
        names = tuple(n for n in (deck_name, deck_title) if n)
        if not filters.matches(item, decks=names):
            report.filtered_out += 1
            continue
        # An author's ``# sysdrill: ignore[...]`` marker is for check; no export carries it.
        item = without_ignore_marks(item)
        shown = item if present is None else present(item)
        raw = strip_ignore_marks_in(dict(file.raw))
        chosen.append(ExportedItem(shown, raw, file.rel, deck_name, deck_title))
    held = {exported.item.id for exported in chosen} | {f.item.id for f in loaded.files if f.item}
    for exported in extra:
        names = tuple(n for n in (exported.deck, exported.deck_title) if n)
        if exported.item.id in held or not filters.matches(exported.item, decks=names):
            report.filtered_out += 1
            continue
        shown = exported.item if present is None else present(exported.item)
        chosen.append(dataclasses.replace(exported, item=shown))
    if not chosen:
        if report.filtered_out:
            raise NothingToExport(
                f"no item in '{vault}' matches {filters.describe() or 'the filters'}; "
                "loosen the filters"
            )
        raise ExportFailed(
            f"vault '{vault}' holds no valid items to export; "
            f"run `sysdrill check {vault}` to see why"
        )
    chosen.sort(key=lambda exported: exported.item.id)
    decks: list[str] = []
    used_media: set[str] = set()

    def written(done: int) -> None:
        report_progress(WRITING, done, len(chosen))

    def write(path: Path) -> None:
        written(0)
        writer = _writer(fmt, vault, scheduling, used_media, written)
        decks.extend(writer(chosen, path, now.astimezone(UTC)))

    write_atomically(out, write)
    if used_media:
        from sysdrill.interop.export.anki_media import copy_media, media_folder_beside

        folder = media_folder_beside(out)
        report.media_files = copy_media(vault, used_media, folder)
        report.media_folder = folder if report.media_files else None
    report.items = len(chosen)
    report.by_kind = dict(sorted(Counter(e.item.kind.value for e in chosen).items()))
    report.decks = decks
    report.size_bytes = out.stat().st_size
    return report

"""Read CSV or TSV card lists with a header row (front, back, deck, tags), or without one.

The delimiter is sniffed from the header line (comma, tab, semicolon or
pipe). Header names are matched case-insensitively, with the synonyms in
:data:`COLUMN_NAMES`; ``front`` and ``back`` are required, ``deck``, ``tags``
and ``id`` are optional, other columns are ignored with a note. A file
sysdrill exported also has :data:`EXPORT_COLUMNS`: each row's ``item`` cell
holds the whole item, so it comes back with every field, edits of the other
cells applied (:func:`~sysdrill.interop.formats.exported_card.exported_row`). Rows are
streamed, so memory stays bounded, and a file with more than
:data:`MAX_ROWS` rows is refused before more of it is read.

A first row that names no column is no header: the file is a table of
columns whose roles are guessed, or a Quizlet export of term/definition
rows with its separators detected or given (``--sep``, ``--row-sep``); see
:mod:`sysdrill.interop.formats.term_lines`.
"""

from __future__ import annotations

import csv
from pathlib import Path

from sysdrill.errors import HostileInput, ImportFailed
from sysdrill.interop.formats._common import (
    card_item,
    decode_text_file,
    split_tags,
    text_key,
)
from sysdrill.interop.formats.exported_card import exported_row
from sysdrill.interop.formats.term_lines import (
    Separators,
    detect_separators,
    read_columns,
    read_term_lines,
)
from sysdrill.interop.source import ImportNote, ParsedItem, ParsedSource

__all__ = ["COLUMN_NAMES", "EXPORT_COLUMNS", "MAX_FIELD_CHARS", "MAX_ROWS", "read_csv"]

MAX_ROWS = 100_000
"""Most data rows one CSV file may hold; split larger files."""

MAX_FIELD_CHARS = 1_000_000
"""Longest cell, in characters."""

COLUMN_NAMES: dict[str, tuple[str, ...]] = {
    "front": ("front", "question", "q", "term", "prompt"),
    "back": ("back", "answer", "a", "definition", "response"),
    "deck": ("deck", "deck name"),
    "tags": ("tags", "tag"),
    "id": ("id",),
}
"""Accepted header names for each column, lower case."""

EXPORT_COLUMNS = ("format", "track", "level", "zone", "topic", "status", "item")
"""Columns sysdrill's CSV export adds (:data:`~sysdrill.interop.export.text_formats.CSV_COLUMNS`):
read when the header has ``item``, which holds the whole item as JSON."""

_DELIMITERS = ",\t;|"


def _sniff_delimiter(header: str) -> str:
    try:
        return csv.Sniffer().sniff(header, delimiters=_DELIMITERS).delimiter
    except csv.Error:
        counts = {d: header.count(d) for d in _DELIMITERS}
        best = max(counts, key=lambda d: counts[d])
        return best if counts[best] else ","


def _columns(header: list[str], name: str) -> tuple[dict[str, int], list[str]]:
    lowered = [cell.strip().strip("\ufeff").casefold() for cell in header]
    found: dict[str, int] = {}
    for column, synonyms in COLUMN_NAMES.items():
        for index, cell in enumerate(lowered):
            if cell in synonyms and column not in found:
                found[column] = index
    if "item" in lowered and "id" in found:
        for column in EXPORT_COLUMNS:
            if column in lowered:
                found[column] = lowered.index(column)
    missing = [c for c in ("front", "back") if c not in found]
    if missing:
        raise ImportFailed(
            f"'{name}': the header row has no {' and no '.join(missing)} column "
            f"(found: {', '.join(header) or 'nothing'}); "
            "start the file with a header row such as front,back,deck,tags"
        )
    ignored = [header[i] for i in range(len(header)) if i not in found.values() and header[i]]
    return found, ignored


def _names_a_column(header: list[str]) -> bool:
    """Whether the first row is a header: a cell names a known column.

    ``q`` and ``a`` count only together: single letters are common card text.
    """
    cells = {cell.strip().strip("\ufeff").casefold() for cell in header}
    names = {name for synonyms in COLUMN_NAMES.values() for name in synonyms if len(name) > 1}
    return bool(cells & names) or {"q", "a"} <= cells


def _whole_text(path: Path, encoding: str) -> str:
    with path.open(encoding=encoding, newline=None) as stream:
        return stream.read().lstrip("\ufeff")


def _headerless(
    path: Path, header: list[str], encoding: str, notes: list[ImportNote]
) -> ParsedSource:
    """A file whose first row is a card: a table of columns, or term/definition rows."""
    text = _whole_text(path, encoding)
    # A tab table first (Quizlet's default, Anki's notes as text); then ` - ` rows,
    # which may hold commas; then tables of commas (quoted as CSV may be), semicolons
    # or pipes; then rows of those separators, cut at the first one.
    table = read_columns(path, text, notes=notes, delimiters=("\t",))
    if table is not None:
        return table
    separators = detect_separators(text)
    if separators is not None and separators.term == " - ":
        return read_term_lines(path, text, separators, notes=notes)
    table = read_columns(path, text, notes=notes, delimiters=(",", ";", "|"))
    if table is not None:
        return table
    if separators is None:
        raise ImportFailed(
            f"'{path.name}': the header row has no front and no back column "
            f"(found: {', '.join(header) or 'nothing'}); start the file with a header row "
            "such as front,back,deck,tags, or give --sep and --row-sep for a file without one"
        )
    return read_term_lines(path, text, separators, notes=notes)


def read_csv(path: Path, *, separators: Separators | None = None) -> ParsedSource:
    """Read a CSV or TSV file into flashcard items.

    Each row becomes a ``flashcard`` keyed by a hash of its front (or by its
    ``id`` cell, which is also kept as the preferred id). Rows with an empty
    front, and repeats of an earlier front, are skipped with a note; a row
    without a back becomes a ``quiz`` item.

    Args:
        path: The ``.csv``/``.tsv`` file (UTF-8, UTF-16 with a BOM, or Latin-1), or a
            Quizlet text export.
        separators: Quizlet's separators (``--sep``, ``--row-sep``): the file is read
            as term/definition rows, a separator not given detected.

    Returns:
        The parsed rows.

    Raises:
        ImportFailed: If the file is not text, has no header and no separators
            that fit, or has a broken row.
        HostileInput: If it is too large or has more than :data:`MAX_ROWS` rows.
    """
    decoded = decode_text_file(path, kind="CSV file")
    if separators:
        text = _whole_text(path, decoded.encoding)
        return read_term_lines(path, text, separators, notes=list(decoded.notes))
    source = ParsedSource(format="csv", path=str(path), notes=list(decoded.notes))
    with path.open(encoding=decoded.encoding, newline="") as stream:
        header_line = stream.readline(MAX_FIELD_CHARS)
        if not header_line.strip():
            raise ImportFailed(
                f"'{path.name}' is empty or starts with a blank line; "
                "start it with a header row such as front,back,deck,tags"
            )
        delimiter = _sniff_delimiter(header_line)
        header = next(csv.reader([header_line], delimiter=delimiter))
        if not _names_a_column(header):
            stream.close()
            return _headerless(path, header, decoded.encoding, list(decoded.notes))
        columns, ignored = _columns(header, path.name)
        if ignored:
            source.notes.append(ImportNote(f"columns ignored: {', '.join(ignored)}"))
        reader = csv.reader(stream, delimiter=delimiter, strict=False)
        seen: dict[str, int] = {}
        decks: set[str | None] = set()
        limit = csv.field_size_limit()
        csv.field_size_limit(MAX_FIELD_CHARS)
        rows = 0
        try:
            for row in reader:
                line = reader.line_num + 1
                rows += 1
                if rows > MAX_ROWS:
                    raise HostileInput(
                        f"'{path.name}' has more than {MAX_ROWS:,} rows; "
                        "split it into smaller files"
                    )
                if not any(cell.strip() for cell in row):
                    continue
                item = _row_item(row, columns, (path.name, line), seen, source)
                if item is not None:
                    decks.add(item.data.get("deck"))
                    source.items.append(item)
        except csv.Error as exc:
            raise ImportFailed(
                f"{path.name}:{reader.line_num + 1}: {exc}; fix the quoting of this row"
            ) from exc
        finally:
            csv.field_size_limit(limit)
    if len(decks) == 1:
        source.deck = decks.pop()
    return source


def _row_item(
    row: list[str],
    columns: dict[str, int],
    position: tuple[str, int],
    seen: dict[str, int],
    source: ParsedSource,
) -> ParsedItem | None:
    where = f"{position[0]}:{position[1]}"

    def cell(column: str) -> str:
        index = columns.get(column)
        return row[index].strip() if index is not None and index < len(row) else ""

    front = cell("front")
    if not front:
        source.notes.append(ImportNote("row has an empty front", where, skipped=True))
        return None
    given_id = cell("id") or None
    key = f"id:{given_id}" if given_id else text_key("front", front)
    if key in seen:
        source.notes.append(
            ImportNote(
                f"repeats the card of line {seen[key]}; keep one of them", where, skipped=True
            )
        )
        return None
    seen[key] = position[1]
    if given_id and cell("item"):
        exported = exported_row(given_id, cell)
        if exported is not None:
            source.own_export = True
            data, note = exported
            data.pop("id", None)
            kept = () if note is None else (ImportNote(note, where),)
            return ParsedItem(key=key, data=data, preferred_id=given_id, notes=kept)
        source.notes.append(
            ImportNote("the item column is not this row's item as JSON; read as a card", where)
        )
    data, notes = card_item(
        front=front,
        back=cell("back"),
        deck=cell("deck") or None,
        tags=split_tags(cell("tags")),
        where=where,
    )
    return ParsedItem(key=key, data=data, preferred_id=given_id, notes=notes)

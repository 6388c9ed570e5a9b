r"""Card lists without a header row: Quizlet's term/definition text, and columns.

Quizlet exports a set as text with a separator between term and definition
(a tab, a comma or any text, such as `` - ``) and one between rows (a new
line, a semicolon or any text, such as ``;;``). The separators are given
(``--sep``, ``--row-sep``) or detected: the rows are cut at ``;;``, at new
lines or at blank lines, and the first of tab, `` - ``, ``;`` and ``,`` that
every row holds (with text on both sides) separates term from definition.
A row is cut at the first separator only, so a definition may hold it again.

A file of three or more columns (the same count on every row, for one of
tab, comma, semicolon or pipe, quoted as CSV may be) is read with a role for
each column: the first is the front, the second the back, a column of short
words the tags, a column of few repeated names (or ``A::B`` names) the deck,
any other the back's extra lines. The roles go into the report (the preview
``sysdrill import --dry-run`` shows); a header row chooses others.

Items are keyed like the CSV reader's (a hash of the front), so a Quizlet
export and the same cards as CSV are one source to re-imports.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass
from pathlib import Path

from sysdrill.errors import HostileInput, ImportFailed, UsageError
from sysdrill.interop.formats._common import card_item, split_tags, text_key
from sysdrill.interop.source import ImportNote, ParsedItem, ParsedSource

__all__ = [
    "MAX_ROWS",
    "SEPARATOR_NAMES",
    "Separators",
    "detect_separators",
    "parse_separator",
    "read_columns",
    "read_term_lines",
]

MAX_ROWS = 100_000
"""Most rows one file may hold; split larger files."""

SEPARATOR_NAMES: dict[str, str] = {
    "tab": "\t",
    "comma": ",",
    "semicolon": ";",
    "dash": " - ",
    "newline": "\n",
    "blank-line": "\n\n",
}
"""Names ``--sep`` and ``--row-sep`` accept for the common separators."""

_TERM_SEPARATORS = ("\t", " - ", ";", ",")
"""Term/definition separators tried, in order."""
_ROW_SEPARATORS = (";;", "\n", "\n\n")
"""Row separators tried, in order."""
_COLUMN_DELIMITERS = ("\t", ",", ";", "|")
_SNIFF_CHARS = 65536
_BLANK_LINES = re.compile(r"\n[ \t]*\n\s*")
_TAG_WORDS = re.compile(r"[\w:./#+-]+(?:[ ,;]+[\w:./#+-]+){0,7}")


@dataclass(frozen=True, slots=True)
class Separators:
    """What separates term from definition and one row from the next (None: detect)."""

    term: str | None = None
    row: str | None = None

    def __bool__(self) -> bool:
        return self.term is not None or self.row is not None


def parse_separator(value: str, *, option: str) -> str:
    r"""The separator an option names: a name of :data:`SEPARATOR_NAMES` or the text.

    ``\t`` and ``\n`` in the text stand for a tab and a new line.

    Raises:
        UsageError: If the value is empty.
    """
    named = SEPARATOR_NAMES.get(value.strip().casefold())
    if named is not None:
        return named
    text = value.replace("\\t", "\t").replace("\\n", "\n")
    if not text:
        raise UsageError(
            f"{option} needs a separator: tab, comma, semicolon, dash, newline, blank-line "
            "or the text itself (such as ';;')"
        )
    return text


def _rows(text: str, row: str) -> list[tuple[int, str]]:
    """The non-empty rows of a text and the line each starts on."""
    rows: list[tuple[int, str]] = []
    pieces: list[tuple[int, str]]
    if row == "\n":
        pieces = [(m.start(), m.group()) for m in re.finditer(r"[^\n]+", text)]
    elif row == "\n\n":
        pieces, start = [], 0
        for gap in _BLANK_LINES.finditer(text):
            pieces.append((start, text[start : gap.start()]))
            start = gap.end()
        pieces.append((start, text[start:]))
    else:
        pieces, start = [], 0
        for piece in text.split(row):
            pieces.append((start, piece))
            start += len(piece) + len(row)
    line, position = 1, 0
    for offset, piece in pieces:
        if piece.strip():
            start = offset + len(piece) - len(piece.lstrip())
            line += text.count("\n", position, start)
            position = start
            rows.append((line, piece.strip()))
    return rows


def _splits(row: str, term: str) -> bool:
    before, found, after = row.partition(term)
    return bool(found) and bool(before.strip()) and bool(after.strip())


def detect_separators(
    text: str, *, term: str | None = None, row: str | None = None
) -> Separators | None:
    """The separators of a Quizlet-style export, or None when none fits every row.

    Args:
        text: The decoded text (its first 64 KiB are looked at).
        term: The term/definition separator when given; detected when None.
        row: The row separator when given; detected when None.

    Returns:
        The first separators (of :data:`_ROW_SEPARATORS` and
        :data:`_TERM_SEPARATORS`, in order) that every row fits, two rows at
        least when the row separator is detected; the last row of a text cut at
        the window is not held to the rule.
    """
    head = text[:_SNIFF_CHARS]
    for row_sep in (row,) if row is not None else _ROW_SEPARATORS:
        if row_sep not in head and row is None and row_sep == ";;":
            continue
        rows = [piece for _, piece in _rows(head, row_sep)]
        if len(text) > _SNIFF_CHARS:
            rows = rows[:-1]
        if not rows or (row is None and len(rows) < 2):
            continue
        for term_sep in (term,) if term is not None else _TERM_SEPARATORS:
            if term_sep in row_sep:
                continue
            if all(_splits(piece, term_sep) for piece in rows):
                return Separators(term_sep, row_sep)
    return None


def _check_rows(count: int, name: str) -> None:
    if count > MAX_ROWS:
        raise HostileInput(f"'{name}' has more than {MAX_ROWS:,} rows; split it into smaller files")


def _card(
    front: str,
    back: str,
    *,
    where: str,
    line: int,
    seen: dict[str, int],
    source: ParsedSource,
    deck: str | None = None,
    tags: list[str] | None = None,
) -> None:
    """Add one card to the source, keyed as the CSV reader keys it."""
    if not front:
        source.notes.append(ImportNote("row has an empty front", where, skipped=True))
        return
    key = text_key("front", front)
    if key in seen:
        source.notes.append(
            ImportNote(
                f"repeats the card of line {seen[key]}; keep one of them", where, skipped=True
            )
        )
        return
    seen[key] = line
    data, notes = card_item(front=front, back=back, deck=deck, tags=tags or (), where=where)
    source.items.append(ParsedItem(key=key, data=data, notes=notes))


def _shown(separator: str) -> str:
    names = {value: name for name, value in SEPARATOR_NAMES.items()}
    return names.get(separator, repr(separator))


def read_term_lines(
    path: Path, text: str, separators: Separators, *, notes: list[ImportNote]
) -> ParsedSource:
    """Read term/definition rows; a separator not given is detected.

    Args:
        path: The source file (for names in notes).
        text: Its decoded text.
        separators: The separators given (``--sep``, ``--row-sep``); None parts are
            detected.
        notes: Notes about the file so far (its encoding).

    Returns:
        One ``flashcard`` per row (a ``quiz`` item when the definition is empty).

    Raises:
        ImportFailed: If a separator cannot be detected.
        HostileInput: If the file has more than :data:`MAX_ROWS` rows.
    """
    term, row = separators.term, separators.row
    if term is None or row is None:
        found = detect_separators(text, term=term, row=row)
        if found is None:
            raise ImportFailed(
                f"'{path.name}': cannot tell what separates "
                + ("term from definition" if term is None else "one card from the next")
                + " on every row; give --sep (tab, comma, semicolon, dash or the text) "
                "and --row-sep (newline, semicolon, blank-line or the text)"
            )
        term, row = found.term, found.row
    assert term is not None and row is not None
    source = ParsedSource(
        format="csv",
        path=str(path),
        notes=list(notes),
        # A Quizlet set is one deck, named after its file; being a flashcard app's,
        # its numbers are not napkin math.
        deck=path.stem,
        skip_napkin_check=True,
    )
    source.notes.append(
        ImportNote(
            f"no header row: read as term/definition rows, {_shown(term)} between term and "
            f"definition, {_shown(row)} between rows"
        )
    )
    seen: dict[str, int] = {}
    rows = _rows(text, row)
    _check_rows(len(rows), path.name)
    for line, piece in rows:
        front, cut, back = piece.partition(term)
        where = f"{path.name}:{line}"
        if not cut:
            source.notes.append(
                ImportNote(f"row has no {_shown(term)} between term and definition", where)
            )
        _card(front.strip(), back.strip(), where=where, line=line, seen=seen, source=source)
    return source


# --- several columns -------------------------------------------------------------------


def _table(
    text: str, name: str, delimiters: tuple[str, ...]
) -> tuple[str, list[tuple[int, list[str]]]] | None:
    """The delimiter and rows of a headerless table of two or more columns, or None.

    Every row must hold the same number of cells (quoted as CSV may be); a
    delimiter that gives rows of different lengths (a comma inside a Quizlet
    definition) is not the table's.
    """
    for delimiter in delimiters:
        if delimiter not in text:
            continue
        reader = csv.reader(io.StringIO(text), delimiter=delimiter, strict=False)
        rows: list[tuple[int, list[str]]] = []
        widths: set[int] = set()
        try:
            for cells in reader:
                if any(cell.strip() for cell in cells):
                    rows.append((reader.line_num, cells))
                    widths.add(len(cells))
                    if len(widths) > 1:
                        break
                    _check_rows(len(rows), name)
        except csv.Error:
            continue
        if len(rows) >= 2 and len(widths) == 1 and widths.pop() >= 2:
            return delimiter, rows
    return None


def _column_role(values: list[str]) -> str:
    """``tags``, ``deck`` or ``extra`` for a column past the first two, by its values."""
    filled = [value.strip() for value in values if value.strip()]
    if not filled:
        return "extra"
    short = all(len(value) <= 64 and "\n" not in value for value in filled)
    if short and all("::" in value for value in filled):
        return "deck"
    distinct = set(filled)
    if short and len(filled) >= 4 and len(distinct) <= max(1, len(filled) // 4):
        if all(" " not in value or len(value.split()) <= 4 for value in distinct):
            return "deck"
    if short and all(_TAG_WORDS.fullmatch(value) for value in filled):
        words = [word for value in filled for word in re.split(r"[ ,;]+", value)]
        if len(set(words)) < len(words) or all(" " not in value for value in filled):
            return "tags"
    return "extra"


def read_columns(
    path: Path,
    text: str,
    *,
    notes: list[ImportNote],
    delimiters: tuple[str, ...] = _COLUMN_DELIMITERS,
) -> ParsedSource | None:
    """Read a headerless table of two or more columns, or None when the file is not one.

    Args:
        path: The source file.
        text: Its decoded text.
        notes: Notes about the file so far.
        delimiters: The cell delimiters to try, in order.

    Returns:
        One ``flashcard`` per row, with :attr:`ParsedSource.columns` naming each
        column's role; None when the rows do not all hold the same two or more
        cells.

    Raises:
        HostileInput: If the file has more than :data:`MAX_ROWS` rows.
    """
    table = _table(text, path.name, delimiters)
    if table is None:
        return None
    delimiter, rows = table
    width = len(rows[0][1])
    roles = ["front", "back"] + [
        _column_role([cells[index] for _, cells in rows]) for index in range(2, width)
    ]
    if roles.count("deck") > 1:
        # One deck column; the others are the back's extra lines.
        first = roles.index("deck")
        roles = [r if r != "deck" or i == first else "extra" for i, r in enumerate(roles)]
    source = ParsedSource(
        format="csv",
        path=str(path),
        notes=list(notes),
        # A Quizlet set is one deck, named after its file; being a flashcard app's,
        # its numbers are not napkin math.
        deck=path.stem,
        skip_napkin_check=True,
    )
    source.columns = {f"column {index + 1}": role for index, role in enumerate(roles)}
    source.notes.append(
        ImportNote(
            f"no header row: {width} columns separated by {_shown(delimiter)}, "
            "each given the role the column roles show"
        )
    )
    seen: dict[str, int] = {}
    for line, cells in rows:
        by_role: dict[str, list[str]] = {}
        for role, cell in zip(roles, cells, strict=True):
            if cell.strip():
                by_role.setdefault(role, []).append(cell.strip())
        back = "\n\n".join(by_role.get("back", []) + by_role.get("extra", []))
        _card(
            " ".join(by_role.get("front", [])),
            back,
            where=f"{path.name}:{line}",
            line=line,
            seen=seen,
            source=source,
            deck=next(iter(by_role.get("deck", [])), None),
            tags=[tag for value in by_role.get("tags", []) for tag in split_tags(value)],
        )
    decks = {item.data.get("deck") for item in source.items}
    if len(decks) == 1:
        source.deck = decks.pop() or source.deck
    return source

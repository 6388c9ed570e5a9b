"""Tell which import format a source is in.

Text is decoded by :mod:`sysdrill.interop.text`, the policy every importer
shares. Detection looks at, in order: a folder (a CrowdAnki export when it
holds ``deck.json``, Markdown notes when it holds Markdown files and no
YAML or JSON, else a StaffML tree), the zip signature (a Mochi export when
it holds ``data.edn`` or ``data.json``, else an Anki package), the SQLite
signature (a bare Anki collection such as ``collection.anki2``), the file
extension, and then the text itself.
"""

from __future__ import annotations

import os
import re
import zipfile
from pathlib import Path

from sysdrill.errors import ImportFailed
from sysdrill.interop.text import read_source_text

__all__ = ["detect_format", "sniff_text_format"]

_SNIFF_CHARS = 65536
"""How much of a text source is looked at to tell its format."""
_ZIP_MAGIC = b"PK\x03\x04"
_EMPTY_ZIP_MAGIC = b"PK\x05\x06"
_SQLITE_MAGIC = b"SQLite format 3\x00"
_ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"

_EXTENSIONS: dict[str, str] = {
    ".apkg": "apkg",
    ".colpkg": "apkg",
    ".csv": "csv",
    ".tsv": "csv",
    ".md": "markdown",
    ".markdown": "markdown",
    ".mochi": "mochi",
    ".json": "staffml",
    ".yaml": "staffml",
    ".yml": "staffml",
}


_STAFFML_KEY = re.compile(r"^(?:schema_version|id):[ \t]*\S", re.MULTILINE)
_STAFFML_BODY = re.compile(r"^(?:question|scenario|track|details):", re.MULTILINE)
_ANKI_HEADER = re.compile(r"\A(?:#[a-z ]+:[^\n]*\n)*#(?:separator|html|deck|tags|notetype)")
_EXERCISE = re.compile(r"^Exercise \d+(?:\.\d+)?\s*\(\*{1,4}\)", re.MULTILINE)
_QUIZ_QUESTION = re.compile(r"^Question[ \t]+\d+\b", re.MULTILINE)
_QUIZ_ANSWER = re.compile(r"^Answer\b", re.MULTILINE)
_FLASHCARD = re.compile(
    r"How well did you know this\?|^\(\d+ cards?\)[ \t]*$|^Q[ \t]*\n(?:.*\n)*?A[ \t]*$",
    re.MULTILINE,
)
_MARKDOWN_QA = re.compile(
    r"^(?:#{1,6}[ \t]+\S|\*{0,2}(?:Q|Question)\s*[:.]\*{0,2}\s)", re.MULTILINE
)
_OBSIDIAN_CARD = re.compile(
    r"\A---\n|^[ \t]*\?{1,2}[ \t]*$|^(?![ \t]*#)[^`\n:]*[^`\s:]:{2,3}[^:\n]*\S[ \t]*$",
    re.MULTILINE,
)
"""Front matter, a ``?``/``??`` line, or a ``question::answer`` line."""
_OWN_MARKDOWN = re.compile(r"^<!--\s*id:", re.MULTILINE)
_FOLDER_SCAN_FILES = 2000
"""Files looked at to tell a folder of Markdown notes from a StaffML tree."""
_CSV_HEADER = re.compile(
    r"\A[^\n]*\b(?:front|question)\b[^\n]*[,\t;][^\n]*\b(?:back|answer)\b", re.I
)


def _looks_like_term_lines(head: str) -> bool:
    """Quizlet's export without a header: term and definition on every row.

    The separators are those :func:`~sysdrill.interop.formats.term_lines.detect_separators`
    finds (tab, `` - ``, ``;`` or ``,`` between term and definition; a new line,
    ``;;`` or a blank line between rows). A tab-separated row must hold exactly
    one tab: more is a table or prose, not a term list.
    """
    from sysdrill.interop.formats.term_lines import detect_separators

    found = detect_separators(head)
    if found is None:
        return False
    if found.term == "\t" and found.row == "\n":
        lines = [line for line in head.split("\n") if line.strip()]
        if len(head) >= _SNIFF_CHARS:
            lines = lines[:-1]
        return all(line.count("\t") == 1 for line in lines)
    return True


def sniff_text_format(text: str) -> str | None:
    """Name the import format a text looks like, or None when nothing fits.

    Args:
        text: The decoded source text.

    Returns:
        A format name (``staffml-web``, ``anki-text``, ``exercises-text``,
        ``quiz-text``, ``flashcards-text``, ``csv`` or ``markdown``) or None.
    """
    head = text[:_SNIFF_CHARS]
    if _ANKI_HEADER.match(head):
        return "anki-text"
    if _STAFFML_KEY.search(head) and _STAFFML_BODY.search(head):
        return "staffml-web"
    if _EXERCISE.search(head):
        return "exercises-text"
    if _QUIZ_QUESTION.search(head) and _QUIZ_ANSWER.search(head):
        return "quiz-text"
    if _FLASHCARD.search(head):
        return "flashcards-text"
    if _CSV_HEADER.match(head) or _looks_like_term_lines(head):
        return "csv"
    if _MARKDOWN_QA.search(head):
        return "markdown"
    return None


def _looks_like_staffml_yaml(path: Path) -> bool:
    """Whether a .yaml file is plain YAML (True) or a web copy with page chrome (False)."""
    try:
        with path.open("rb") as handle:
            head = handle.read(4096).decode("utf-8", "replace")
    except OSError:
        return True
    for line in head.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("#") or stripped == "---":
            continue
        return bool(re.match(r"^[A-Za-z_][\w-]*:(?:\s|$)|^-\s|^\[|^\{", stripped))
    return True


def _folder_format(path: Path) -> str:
    """A folder's format: CrowdAnki, Markdown notes, or (by default) a StaffML tree."""
    if (path / "deck.json").is_file():
        return "crowdanki"
    if (path / "questions").is_dir():
        return "staffml"
    seen = 0
    markdown = False
    for _, dirs, files in os.walk(path):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for name in files:
            suffix = os.path.splitext(name)[1].lower()
            if suffix in (".yaml", ".yml", ".json"):
                return "staffml"
            markdown = markdown or suffix in (".md", ".markdown")
            seen += 1
        if seen > _FOLDER_SCAN_FILES:
            break
    return "obsidian" if markdown else "staffml"


def _zip_format(path: Path) -> str:
    """A zip's format: a Mochi export when it holds Mochi's data file, else an Anki package."""
    if path.suffix.lower() == ".mochi":
        return "mochi"
    try:
        with zipfile.ZipFile(path) as archive:
            names = set(archive.namelist())
    except (zipfile.BadZipFile, OSError, EOFError, ValueError):
        return "apkg"  # the Anki reader explains what is wrong with the archive
    if {"data.edn", "data.json"} & names and not any(n.startswith("collection.") for n in names):
        return "mochi"
    return "apkg"


def _markdown_format(path: Path) -> str:
    """``obsidian`` for notes with front matter or ``::``/``?`` cards, else ``markdown``."""
    head = read_source_text(path, kind="Markdown file").text[:_SNIFF_CHARS]
    if _OWN_MARKDOWN.search(head) or not _OBSIDIAN_CARD.search(head):
        return "markdown"
    return "obsidian"


def _json_format(path: Path) -> str:
    """``crowdanki`` for a CrowdAnki ``deck.json``, else a StaffML corpus."""
    try:
        with path.open("rb") as handle:
            head = handle.read(4096).decode("utf-8", "replace")
    except OSError:
        return "staffml"
    return "crowdanki" if re.search(r'"__type__"\s*:\s*"Deck"', head) else "staffml"


def detect_format(path: Path) -> str:
    """Tell which import format a source is in.

    Args:
        path: A file or a folder.

    Returns:
        A format name from :data:`sysdrill.interop.formats.FORMATS`.

    Raises:
        ImportFailed: If the source does not exist, is empty, or matches no format.
    """
    if path.is_dir():
        return _folder_format(path)
    if not path.exists():
        raise ImportFailed(f"source '{path}' does not exist; check the path")
    if not path.is_file():
        raise ImportFailed(f"source '{path}' is not a file or folder; pass a file or a folder")
    if path.stat().st_size == 0:
        raise ImportFailed(f"'{path.name}' is empty; nothing to import")
    try:
        with path.open("rb") as handle:
            head = handle.read(len(_SQLITE_MAGIC))
    except OSError as exc:
        raise ImportFailed(
            f"cannot read '{path}': {exc.strerror}; check the path and its permissions"
        ) from exc
    magic = head[:4]
    if magic in (_ZIP_MAGIC, _EMPTY_ZIP_MAGIC):
        return _zip_format(path)
    if head == _SQLITE_MAGIC or (magic == _ZSTD_MAGIC and path.suffix.lower() == ".anki21b"):
        # A bare Anki collection, such as collection.anki2 from a profile folder.
        return "apkg"
    suffix = path.suffix.lower()
    by_extension = _EXTENSIONS.get(suffix)
    if by_extension == "staffml" and suffix in (".yaml", ".yml"):
        return "staffml" if _looks_like_staffml_yaml(path) else "staffml-web"
    if by_extension == "staffml":
        return _json_format(path)
    if by_extension == "markdown":
        return _markdown_format(path)
    if by_extension is not None:
        return by_extension
    sniffed = sniff_text_format(read_source_text(path).text)
    if sniffed is None:
        raise ImportFailed(
            f"'{path.name}' matches no import format; pass --format with one of the names "
            "in `sysdrill import --help`"
        )
    return sniffed

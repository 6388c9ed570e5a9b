"""Tell which import format a source is in.

Text is decoded by :mod:`sysdrill.interop.text`, the policy every importer
shares. Detection looks at, in order: a folder (a StaffML tree), the zip signature
(an Anki package), the file extension, and then the text itself.
"""

from __future__ import annotations

import re
from pathlib import Path

from sysdrill.errors import ImportFailed
from sysdrill.interop.text import read_source_text

__all__ = ["detect_format", "sniff_text_format"]

_SNIFF_CHARS = 65536
"""How much of a text source is looked at to tell its format."""
_ZIP_MAGIC = b"PK\x03\x04"
_EMPTY_ZIP_MAGIC = b"PK\x05\x06"

_EXTENSIONS: dict[str, str] = {
    ".apkg": "apkg",
    ".colpkg": "apkg",
    ".csv": "csv",
    ".tsv": "csv",
    ".md": "markdown",
    ".markdown": "markdown",
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
_CSV_HEADER = re.compile(
    r"\A[^\n]*\b(?:front|question)\b[^\n]*[,\t;][^\n]*\b(?:back|answer)\b", re.I
)


def _looks_like_term_lines(head: str) -> bool:
    """Quizlet's export without a header: ``term<TAB>definition``, one card a line.

    Two lines at least, and every non-blank line holds exactly one tab with
    text on both sides (the last line may be cut by the sniffing window).
    """
    lines = head.split("\n")
    if len(head) >= _SNIFF_CHARS:
        lines = lines[:-1]
    lines = [line for line in lines if line.strip()]
    return len(lines) >= 2 and all(
        line.count("\t") == 1 and all(part.strip() for part in line.split("\t")) for line in lines
    )


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
        return "staffml"
    if not path.exists():
        raise ImportFailed(f"source '{path}' does not exist; check the path")
    if not path.is_file():
        raise ImportFailed(f"source '{path}' is not a file or folder; pass a file or a folder")
    if path.stat().st_size == 0:
        raise ImportFailed(f"'{path.name}' is empty; nothing to import")
    try:
        with path.open("rb") as handle:
            magic = handle.read(4)
    except OSError as exc:
        raise ImportFailed(
            f"cannot read '{path}': {exc.strerror}; check the path and its permissions"
        ) from exc
    if magic in (_ZIP_MAGIC, _EMPTY_ZIP_MAGIC):
        return "apkg"
    suffix = path.suffix.lower()
    by_extension = _EXTENSIONS.get(suffix)
    if by_extension == "staffml" and suffix in (".yaml", ".yml"):
        return "staffml" if _looks_like_staffml_yaml(path) else "staffml-web"
    if by_extension is not None:
        return by_extension
    sniffed = sniff_text_format(read_source_text(path).text)
    if sniffed is None:
        raise ImportFailed(
            f"'{path.name}' matches no import format; pass --format with one of the names "
            "in `sysdrill import --help`"
        )
    return sniffed

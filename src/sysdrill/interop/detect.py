"""Read a source's text safely and tell which import format it is.

Text sources are decoded from UTF-8 (with or without a byte-order mark),
UTF-16 or UTF-32 with a byte-order mark, or Latin-1 (Windows-1252 where that
reads better); anything else is refused. Sources above :data:`MAX_TEXT_BYTES`
are refused before they are read, so memory stays bounded.

Detection looks at, in order: a folder (a StaffML tree), the zip signature
(an Anki package), the file extension, and then the text itself.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from sysdrill.errors import HostileInput, ImportFailed

__all__ = [
    "MAX_TEXT_BYTES",
    "SourceText",
    "detect_format",
    "read_source_text",
    "sniff_text_format",
]

MAX_TEXT_BYTES = 16 * 1024 * 1024
"""Largest text source read, in bytes (16 MiB); a chapter or a deck is far smaller."""

_ZIP_MAGIC = b"PK\x03\x04"
_EMPTY_ZIP_MAGIC = b"PK\x05\x06"

_BOMS: tuple[tuple[bytes, str], ...] = (
    (b"\xef\xbb\xbf", "utf-8-sig"),
    (b"\xff\xfe\x00\x00", "utf-32-le"),
    (b"\x00\x00\xfe\xff", "utf-32-be"),
    (b"\xff\xfe", "utf-16-le"),
    (b"\xfe\xff", "utf-16-be"),
)

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


@dataclass(frozen=True, slots=True)
class SourceText:
    """A text source decoded into a string."""

    text: str
    """The text, with line endings normalised to ``\\n`` and any byte-order mark removed."""
    encoding: str
    """Encoding it was read as: ``utf-8``, ``utf-16``, ``utf-32``, ``latin-1`` or ``cp1252``."""

    @property
    def note(self) -> str | None:
        """A remark for the import report when the text was not plain UTF-8."""
        if self.encoding == "utf-8":
            return None
        return f"read as {self.encoding} text (not UTF-8); the vault files are written as UTF-8"


def _check_size(path: Path, limit_bytes: int) -> int:
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise ImportFailed(
            f"cannot read '{path}': {exc.strerror}; check the path and its permissions"
        ) from exc
    if size > limit_bytes:
        raise HostileInput(
            f"'{path.name}' is {size / 1048576:.1f} MiB, over the {limit_bytes // 1048576} MiB "
            "limit for one text source; split it into smaller files"
        )
    return size


def _decode(data: bytes, name: str) -> tuple[str, str]:
    for bom, codec in _BOMS:
        if data.startswith(bom):
            try:
                text = data.decode(codec)
            except UnicodeDecodeError as exc:
                raise ImportFailed(
                    f"'{name}' starts with a {codec.upper()} byte-order mark but byte "
                    f"{exc.start} is not valid {codec.upper()}; re-save the file as UTF-8"
                ) from exc
            family = "utf-8" if codec == "utf-8-sig" else codec[:6]
            return text.lstrip("\ufeff"), family
    if b"\x00" in data:
        raise ImportFailed(
            f"'{name}' is binary, not text (it holds NUL bytes and no UTF-16 byte-order mark); "
            "pass a text file, or --format apkg for an Anki package"
        )
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        pass
    # Not UTF-8: an 8-bit Western file. Windows-1252 is a superset of Latin-1 for
    # printable text (curly quotes, dashes), so prefer it when it decodes.
    try:
        return data.decode("cp1252"), "cp1252"
    except UnicodeDecodeError:
        return data.decode("latin-1"), "latin-1"


def read_source_text(path: Path, *, limit_bytes: int | None = None) -> SourceText:
    """Read a text source, refusing what is too big, empty, binary or undecodable.

    Args:
        path: The file to read.
        limit_bytes: Largest size accepted, in bytes (default :data:`MAX_TEXT_BYTES`).

    Returns:
        The decoded text and the encoding it was read as.

    Raises:
        HostileInput: If the file is larger than ``limit_bytes``.
        ImportFailed: If it cannot be read, is empty, or is not text.
    """
    _check_size(path, MAX_TEXT_BYTES if limit_bytes is None else limit_bytes)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ImportFailed(
            f"cannot read '{path}': {exc.strerror}; check the path and its permissions"
        ) from exc
    text, encoding = _decode(data, path.name)
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if not text.strip():
        raise ImportFailed(f"'{path.name}' is empty; nothing to import")
    controls = len(_CONTROL.findall(text))
    if controls > max(8, len(text) // 100):
        raise ImportFailed(
            f"'{path.name}' does not look like text ({controls} control characters); "
            "pass a UTF-8, UTF-16 or Latin-1 text file"
        )
    return SourceText(text=text, encoding=encoding)


_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1f\x7f]")
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


def sniff_text_format(text: str) -> str | None:
    """Name the import format a text looks like, or None when nothing fits.

    Args:
        text: The decoded source text.

    Returns:
        A format name (``staffml-web``, ``anki-text``, ``exercises-text``,
        ``quiz-text``, ``flashcards-text``, ``csv`` or ``markdown``) or None.
    """
    head = text[:65536]
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
    if _CSV_HEADER.match(head):
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

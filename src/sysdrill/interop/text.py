"""How every importer decodes a text source: one policy, its limits and its messages.

A byte order mark decides (UTF-8, UTF-16, UTF-32); otherwise UTF-8 is tried,
then Windows-1252, then Latin-1, which decodes any byte, so the 8-bit exports of
older tools still import, with a note. A file whose first 8 KiB hold a NUL byte
and no UTF-16 or UTF-32 mark is binary and refused. Files are validated in 1 MiB
chunks, so memory stays bounded, and refused above a size limit before they are
read: :data:`WHOLE_TEXT_MAX_BYTES` for formats parsed from one string,
:data:`STREAMED_TEXT_MAX_BYTES` for those read line by line (CSV, Anki text,
Markdown).

charset-normalizer was measured as the detector and not adopted: on the
hostile-input cases it reads short Latin-1 text as Windows-1250 (``crème``
becomes ``crčme``) and accepts NUL-laced garbage as UTF-8
(``bench/charset_detection_bench.py`` prints the comparison).
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass
from pathlib import Path

from sysdrill.errors import HostileInput, ImportFailed

__all__ = [
    "STREAMED_TEXT_MAX_BYTES",
    "WHOLE_TEXT_MAX_BYTES",
    "SourceText",
    "TextEncoding",
    "read_source_text",
    "text_encoding",
]

WHOLE_TEXT_MAX_BYTES = 16 * 1024 * 1024
"""Largest source parsed as one string, in bytes (16 MiB); a chapter or a deck is far smaller."""
STREAMED_TEXT_MAX_BYTES = 64 * 1024 * 1024
"""Largest source read line by line (CSV, Anki text, Markdown), in bytes (64 MiB)."""

_MIB = 1024 * 1024
_HEAD_BYTES = 8192
_CHUNK_BYTES = _MIB

_BOMS: tuple[tuple[bytes, str, str, str], ...] = (
    # UTF-32 first: its little-endian mark starts with UTF-16's.
    (codecs.BOM_UTF32_LE, "utf-32", "utf-32", "UTF-32"),
    (codecs.BOM_UTF32_BE, "utf-32", "utf-32", "UTF-32"),
    (codecs.BOM_UTF8, "utf-8-sig", "utf-8", "UTF-8"),
    (codecs.BOM_UTF16_LE, "utf-16", "utf-16", "UTF-16"),
    (codecs.BOM_UTF16_BE, "utf-16", "utf-16", "UTF-16"),
)
_EIGHT_BIT: tuple[tuple[str, str], ...] = (("cp1252", "Windows-1252"), ("latin-1", "Latin-1"))
_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1f\x7f]")


@dataclass(frozen=True, slots=True)
class TextEncoding:
    """The encoding a text source is read with."""

    codec: str
    """Python codec to open the file with (``utf-8-sig`` and ``utf-16`` drop the mark)."""
    name: str
    """The family: ``utf-8``, ``utf-16``, ``utf-32``, ``cp1252`` or ``latin-1``."""
    label: str
    """Its name for people: ``UTF-16``, ``Windows-1252``."""

    @property
    def note(self) -> str | None:
        """A remark for the import report when the text was not UTF-8."""
        if self.name == "utf-8":
            return None
        if self.name.startswith("utf-"):
            return f"read as {self.label}"
        return f"not UTF-8; read as {self.label} (save the file as UTF-8 to be sure of accents)"


@dataclass(frozen=True, slots=True)
class SourceText:
    """A text source decoded into a string."""

    text: str
    """The text, with line endings normalised to ``\\n`` and any byte order mark removed."""
    encoding: str
    """Family it was read as: ``utf-8``, ``utf-16``, ``utf-32``, ``cp1252`` or ``latin-1``."""
    note: str | None = None
    """A remark for the import report when the text was not UTF-8."""


def _valid_in(path: Path, codec: str) -> bool:
    """Whether the whole file decodes with ``codec``, read in bounded chunks."""
    decoder = codecs.getincrementaldecoder(codec)()
    try:
        with path.open("rb") as stream:
            while chunk := stream.read(_CHUNK_BYTES):
                decoder.decode(chunk)
            decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        return False
    return True


def text_encoding(path: Path, *, kind: str, limit_bytes: int) -> TextEncoding:
    """Work out how to decode a text source, refusing what is too big or not text.

    Args:
        path: The source file.
        kind: What the file should be, for messages (``CSV file``).
        limit_bytes: Largest size accepted, in bytes.

    Returns:
        The encoding to open the file with.

    Raises:
        ImportFailed: If the file is missing, unreadable, binary, or starts
            with a byte order mark its bytes do not follow.
        HostileInput: If the file is larger than ``limit_bytes``.
    """
    try:
        size = path.stat().st_size
        with path.open("rb") as stream:
            head = stream.read(_HEAD_BYTES)
    except FileNotFoundError as exc:
        raise ImportFailed(f"'{path}' does not exist; check the path") from exc
    except OSError as exc:
        raise ImportFailed(
            f"cannot read '{path}': {exc.strerror}; check the path and its permissions"
        ) from exc
    if size > limit_bytes:
        raise HostileInput(
            f"'{path.name}' is {size / _MIB:.1f} MiB, over the {limit_bytes // _MIB} MiB "
            f"limit for one {kind}; split it into smaller files"
        )
    for bom, codec, name, label in _BOMS:
        if head.startswith(bom):
            if not _valid_in(path, codec):
                raise ImportFailed(
                    f"'{path.name}' starts with a {label} byte order mark but is not valid "
                    f"{label}; save it again as UTF-8"
                )
            return TextEncoding(codec, name, label)
    if b"\x00" in head:
        raise ImportFailed(
            f"'{path.name}' is a binary file, not a {kind}; pass a text file saved as UTF-8"
        )
    if _valid_in(path, "utf-8"):
        return TextEncoding("utf-8", "utf-8", "UTF-8")
    for codec, label in _EIGHT_BIT:
        if _valid_in(path, codec):
            return TextEncoding(codec, codec, label)
    raise AssertionError("latin-1 decodes every byte")  # pragma: no cover


def read_source_text(
    path: Path, *, kind: str = "text source", limit_bytes: int | None = None
) -> SourceText:
    r"""Read a whole text source as one string, refusing what is empty or not text.

    Args:
        path: The file to read.
        kind: What the file should be, for messages.
        limit_bytes: Largest size accepted, in bytes (default :data:`WHOLE_TEXT_MAX_BYTES`).

    Returns:
        The decoded text, line endings made ``\n``, and the encoding it was read as.

    Raises:
        HostileInput: If the file is larger than ``limit_bytes``.
        ImportFailed: As :func:`text_encoding`; also if the file is empty or
            is mostly control characters.
    """
    limit = WHOLE_TEXT_MAX_BYTES if limit_bytes is None else limit_bytes
    encoding = text_encoding(path, kind=kind, limit_bytes=limit)
    try:
        with path.open(encoding=encoding.codec, newline=None) as stream:
            text = stream.read()
    except OSError as exc:
        raise ImportFailed(
            f"cannot read '{path}': {exc.strerror}; check the path and its permissions"
        ) from exc
    if not text.strip():
        raise ImportFailed(f"'{path.name}' is empty; nothing to import")
    controls = len(_CONTROL.findall(text))
    if controls > max(8, len(text) // 100):
        raise ImportFailed(
            f"'{path.name}' does not look like text ({controls} control characters); "
            "pass a text file saved as UTF-8"
        )
    return SourceText(text=text, encoding=encoding.name, note=encoding.note)

"""Media files of an Anki package, checked before they come into a vault.

A package stores its media as numbered zip members and a ``media`` member that
names them: JSON ``{"0": "diagram.png"}`` in the legacy format, a
zstd-compressed protobuf list (with each file zstd-compressed too) in the
format of Anki 2.1.50 and later. Every file is untrusted: it is kept only
when its first bytes say it is one of the accepted image or sound types
(:data:`sysdrill.content.media.MEDIA_TYPES`), it holds at most
:data:`MAX_MEDIA_FILE_BYTES`, and all files together stay under
:data:`MAX_MEDIA_TOTAL_BYTES`. Refused files are named in a note, never fatal.
Kept files are renamed by content (:func:`~sysdrill.content.media.content_name`),
so the package's own names never become paths.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from sysdrill.content.media import content_name, sniff_media_type
from sysdrill.errors import HostileInput, ImportFailed
from sysdrill.interop.safe_zip import SafeZip
from sysdrill.interop.source import ImportNote

__all__ = [
    "MAX_MEDIA_FILE_BYTES",
    "MAX_MEDIA_TOTAL_BYTES",
    "MediaIntake",
    "PackageMedia",
    "protobuf_fields",
    "read_folder_media",
    "read_package_media",
    "read_zip_media",
]

MAX_MEDIA_FILE_BYTES = 16 * 1024 * 1024
"""Largest media file kept, in bytes (16 MiB)."""

MAX_MEDIA_TOTAL_BYTES = 128 * 1024 * 1024
"""Most media bytes one import keeps, in bytes (128 MiB)."""

_INDEX_LIMIT_BYTES = 16 * 1024 * 1024
_ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"


@dataclass(slots=True)
class PackageMedia:
    """The media files of a package that passed the checks."""

    names: dict[str, str] = field(default_factory=dict)
    """Vault file name (in ``media/``) by the file's name in the package."""
    files: dict[str, bytes] = field(default_factory=dict)
    """Bytes of each kept file, by vault file name."""
    notes: list[ImportNote] = field(default_factory=list)


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        if pos >= len(data) or shift > 63:
            raise ValueError("truncated varint")
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, pos
        shift += 7


def protobuf_fields(data: bytes) -> list[tuple[int, int | bytes]]:
    """Protobuf fields of one message: (number, varint or bytes), unknown wire types refused."""
    found: list[tuple[int, int | bytes]] = []
    pos = 0
    while pos < len(data):
        key, pos = _varint(data, pos)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = _varint(data, pos)
            found.append((number, value))
        elif wire == 2:
            length, pos = _varint(data, pos)
            if pos + length > len(data):
                raise ValueError("truncated field")
            found.append((number, data[pos : pos + length]))
            pos += length
        else:
            raise ValueError(f"unexpected wire type {wire}")
    return found


def _protobuf_index(data: bytes) -> dict[str, str]:
    """Anki's ``MediaEntries``: entry N (name = 1, legacy_zip_filename = 255) is member N."""
    index: dict[str, str] = {}
    entries = [value for number, value in protobuf_fields(data) if number == 1]
    for position, entry in enumerate(entries):
        if not isinstance(entry, bytes):
            continue
        name, member = "", str(position)
        for number, value in protobuf_fields(entry):
            if number == 1 and isinstance(value, bytes):
                name = value.decode("utf-8", "replace")
            elif number == 255 and isinstance(value, int):
                member = str(value)
        if name:
            index[member] = name
    return index


def _unzstd(data: bytes, *, limit_bytes: int) -> bytes:
    import zstandard

    with zstandard.ZstdDecompressor().stream_reader(data) as reader:
        out = reader.read(limit_bytes + 1)
    return bytes(out)


def _media_index(archive: SafeZip) -> dict[str, str]:
    raw = archive.read_small("media", limit_bytes=_INDEX_LIMIT_BYTES)
    try:
        if raw.startswith(_ZSTD_MAGIC):
            return _protobuf_index(_unzstd(raw, limit_bytes=_INDEX_LIMIT_BYTES))
        parsed = json.loads(raw.decode("utf-8") or "{}")
    except Exception as exc:  # any malformed index is the same problem to the user
        raise ImportFailed(
            f"'{archive.path.name}' has a media index that cannot be read ({exc}); "
            "export the deck again from Anki"
        ) from exc
    if not isinstance(parsed, dict):
        return {}
    return {str(key): str(value) for key, value in parsed.items() if isinstance(value, str)}


def _read_member(archive: SafeZip, member: str) -> bytes | None:
    """The member's bytes (decompressed when zstd), or None when over the per-file cap."""
    if archive.declared_size(member) > MAX_MEDIA_FILE_BYTES + 64:
        return None
    try:
        data = archive.read_small(member, limit_bytes=MAX_MEDIA_FILE_BYTES)
    except HostileInput:
        return None
    if data.startswith(_ZSTD_MAGIC):
        try:
            data = _unzstd(data, limit_bytes=MAX_MEDIA_FILE_BYTES)
        except Exception:  # damaged compression: the file is refused, not the package
            return b""
    return None if len(data) > MAX_MEDIA_FILE_BYTES else data


class MediaIntake:
    """Checks untrusted media files one by one, within the per-file and total caps.

    Every reader that brings media along (Anki and Mochi packages, CrowdAnki
    and Markdown folders) hands each file to :meth:`add`; what passes lands in
    :attr:`media`, renamed by content, and what does not is named in a note.
    """

    def __init__(self) -> None:
        self.media = PackageMedia()
        self._total_bytes = 0

    def refuse_oversized(self, original: str) -> None:
        """Note a file refused for its size before it was read."""
        self.media.notes.append(
            ImportNote(
                f"media file '{original}' is larger than "
                f"{MAX_MEDIA_FILE_BYTES // 1_048_576} MiB; not imported"
            )
        )

    def add(self, original: str, data: bytes | None) -> str | None:
        """Check one file and keep it when it passes.

        Args:
            original: The file's name in the source, as its cards refer to it.
            data: Its bytes, or None when it was over the per-file cap.

        Returns:
            Its vault file name (in ``media/``), or None when refused (noted).
        """
        if data is None or len(data) > MAX_MEDIA_FILE_BYTES:
            self.refuse_oversized(original)
            return None
        content_type = sniff_media_type(data[:32])
        if content_type is None:
            self.media.notes.append(
                ImportNote(
                    f"media file '{original}' is not an accepted image or sound "
                    "(PNG, JPEG, GIF, WebP, MP3, Ogg, WAV, FLAC, M4A); not imported"
                )
            )
            return None
        name = content_name(data, content_type=content_type, original=original)
        if name not in self.media.files:
            if self._total_bytes + len(data) > MAX_MEDIA_TOTAL_BYTES:
                self.media.notes.append(
                    ImportNote(
                        f"media file '{original}' would take the media past "
                        f"{MAX_MEDIA_TOTAL_BYTES // 1_048_576} MiB; not imported"
                    )
                )
                return None
            self._total_bytes += len(data)
            self.media.files[name] = data
        self.media.names[original] = name
        return name


def read_zip_media(archive: SafeZip, member: str) -> bytes | None:
    """A media member's bytes (decompressed when zstd), or None when over the per-file cap."""
    return _read_member(archive, member)


def read_package_media(archive: SafeZip, *, members: list[str]) -> PackageMedia:
    """Read and check the media files of an opened package.

    Args:
        archive: The package, opened by :func:`~sysdrill.interop.safe_zip.open_safe_zip`.
        members: Its member names.

    Returns:
        The kept files and their names, with a note for each refused file.

    Raises:
        ImportFailed: If the media index is present but unreadable.
        HostileInput: If reading would spend the archive's expansion budget.
    """
    intake = MediaIntake()
    if "media" not in members:
        return intake.media
    present = set(members)
    for member, original in sorted(_media_index(archive).items(), key=lambda kv: kv[1]):
        if member not in present:
            intake.media.notes.append(
                ImportNote(f"media file '{original}' is missing from the package")
            )
            continue
        intake.add(original, _read_member(archive, member))
    return intake.media


def read_folder_media(root: Path, name: str, *, intake: MediaIntake) -> str | None:
    """Check and keep one media file of a source folder (CrowdAnki, Markdown notes).

    The name comes from the source, so it is untrusted: an absolute name, a
    ``..`` component or a link leading out of ``root`` is refused with a note,
    and a file over the per-file cap is refused before it is read.

    Args:
        root: The folder the file must stay inside.
        name: The file's name relative to ``root``, as the source wrote it.
        intake: Where kept files and notes go.

    Returns:
        Its vault file name (in ``media/``), or None when missing or refused.
    """
    known = intake.media.names.get(name)
    if known is not None:
        return known
    relative = PurePosixPath(name.replace("\\", "/"))
    if relative.is_absolute() or ".." in relative.parts or "\x00" in name:
        intake.media.notes.append(
            ImportNote(f"media file '{name}' points outside the source folder; not imported")
        )
        return None
    candidate = root / relative
    try:
        resolved = candidate.resolve()
        inside = resolved.is_relative_to(root.resolve())
        size = resolved.stat().st_size if resolved.is_file() else -1
    except (OSError, RuntimeError):
        inside, size = True, -1
    if not inside:
        intake.media.notes.append(
            ImportNote(f"media file '{name}' links outside the source folder; not imported")
        )
        return None
    if size < 0:
        return None
    if size > MAX_MEDIA_FILE_BYTES:
        intake.refuse_oversized(name)
        return None
    try:
        data = resolved.read_bytes()
    except OSError:
        return None
    return intake.add(name, data)

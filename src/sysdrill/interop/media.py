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

from sysdrill.content.media import content_name, sniff_media_type
from sysdrill.errors import HostileInput, ImportFailed
from sysdrill.interop.safe_zip import SafeZip
from sysdrill.interop.source import ImportNote

__all__ = ["MAX_MEDIA_FILE_BYTES", "MAX_MEDIA_TOTAL_BYTES", "PackageMedia", "read_package_media"]

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


def _fields(data: bytes) -> list[tuple[int, int | bytes]]:
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
    entries = [value for number, value in _fields(data) if number == 1]
    for position, entry in enumerate(entries):
        if not isinstance(entry, bytes):
            continue
        name, member = "", str(position)
        for number, value in _fields(entry):
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
    media = PackageMedia()
    if "media" not in members:
        return media
    present = set(members)
    total_bytes = 0
    for member, original in sorted(_media_index(archive).items(), key=lambda kv: kv[1]):
        if member not in present:
            media.notes.append(ImportNote(f"media file '{original}' is missing from the package"))
            continue
        data = _read_member(archive, member)
        if data is None:
            media.notes.append(
                ImportNote(
                    f"media file '{original}' is larger than "
                    f"{MAX_MEDIA_FILE_BYTES // 1_048_576} MiB; not imported"
                )
            )
            continue
        content_type = sniff_media_type(data[:32])
        if content_type is None:
            media.notes.append(
                ImportNote(
                    f"media file '{original}' is not an accepted image or sound "
                    "(PNG, JPEG, GIF, WebP, MP3, Ogg, WAV, FLAC, M4A); not imported"
                )
            )
            continue
        if total_bytes + len(data) > MAX_MEDIA_TOTAL_BYTES:
            media.notes.append(
                ImportNote(
                    f"media file '{original}' would take the media past "
                    f"{MAX_MEDIA_TOTAL_BYTES // 1_048_576} MiB; not imported"
                )
            )
            continue
        name = content_name(data, content_type=content_type, original=original)
        if name not in media.files:
            total_bytes += len(data)
            media.files[name] = data
        media.names[original] = name
    return media

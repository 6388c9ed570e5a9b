r"""Media files of a vault: images and sounds kept in ``media/`` beside ``questions/``.

Item text refers to a media file in one of two forms, both relative to the
vault root:

- an image as Markdown, ``![alt](media/<name>)``;
- a sound as Anki writes it, ``[sound:media/<name>]``.

Files brought in from untrusted packages are named by content
(:func:`content_name`: the first 16 hex digits of their SHA-256 and an
extension), and only the types of :data:`MEDIA_TYPES` are accepted, recognised
by their first bytes (:func:`sniff_media_type`), never by their name. SVG is
left out on purpose: it can carry scripts.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from dataclasses import dataclass
from enum import StrEnum

__all__ = [
    "MEDIA_FOLDER",
    "IMAGE_REF",
    "MEDIA_TYPES",
    "MediaKind",
    "MediaRef",
    "SOUND_REF",
    "content_name",
    "is_safe_media_name",
    "media_refs",
    "media_type_of_name",
    "name_media",
    "sniff_media_type",
]

MEDIA_FOLDER = "media"
"""Folder of media files, relative to the vault root."""


class MediaKind(StrEnum):
    """What a media file is shown as."""

    IMAGE = "image"
    AUDIO = "audio"


@dataclass(frozen=True, slots=True)
class _MediaType:
    content_type: str
    kind: MediaKind
    extensions: tuple[str, ...]
    """Extensions this type is saved with, the canonical one first."""


MEDIA_TYPES: tuple[_MediaType, ...] = (
    _MediaType("image/png", MediaKind.IMAGE, (".png",)),
    _MediaType("image/jpeg", MediaKind.IMAGE, (".jpg", ".jpeg")),
    _MediaType("image/gif", MediaKind.IMAGE, (".gif",)),
    _MediaType("image/webp", MediaKind.IMAGE, (".webp",)),
    _MediaType("audio/mpeg", MediaKind.AUDIO, (".mp3",)),
    _MediaType("audio/ogg", MediaKind.AUDIO, (".ogg", ".oga", ".opus")),
    _MediaType("audio/wav", MediaKind.AUDIO, (".wav",)),
    _MediaType("audio/flac", MediaKind.AUDIO, (".flac",)),
    _MediaType("audio/mp4", MediaKind.AUDIO, (".m4a",)),
)
"""The media types a vault accepts (images and sounds browsers play)."""

_BY_CONTENT_TYPE = {media.content_type: media for media in MEDIA_TYPES}
_BY_EXTENSION = {ext: media for media in MEDIA_TYPES for ext in media.extensions}
_SAFE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")

IMAGE_REF = re.compile(r"!\[(?P<alt>[^\]\n]*)\]\(media/(?P<name>[^)\s]+)\)")
SOUND_REF = re.compile(r"\[sound:media/(?P<name>[^\]\s]+)\]")


def sniff_media_type(head: bytes) -> str | None:
    """The content type of a file from its first bytes (at least 16), or None.

    Only the types of :data:`MEDIA_TYPES` are recognised.
    """
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if head.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if head.startswith((b"GIF87a", b"GIF89a")):
        return "image/gif"
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    if head[:4] == b"RIFF" and head[8:12] == b"WAVE":
        return "audio/wav"
    if head.startswith(b"ID3") or (len(head) > 1 and head[0] == 0xFF and head[1] & 0xE0 == 0xE0):
        return "audio/mpeg"
    if head.startswith(b"OggS"):
        return "audio/ogg"
    if head.startswith(b"fLaC"):
        return "audio/flac"
    if head[4:8] == b"ftyp" and head[8:11] in (b"M4A", b"mp4", b"iso", b"M4B"):
        return "audio/mp4"
    return None


def content_name(data: bytes, *, content_type: str, original: str = "") -> str:
    """The content-addressed file name of a media file.

    Args:
        data: The file's bytes.
        content_type: Its sniffed type, one of :data:`MEDIA_TYPES`.
        original: Its name in the source; its extension is kept when it fits the type.

    Returns:
        ``<first 16 hex digits of SHA-256><extension>``, such as ``3f0c9a1b2c3d4e5f.png``.
    """
    media = _BY_CONTENT_TYPE[content_type]
    suffix = "." + original.rsplit(".", 1)[-1].lower() if "." in original else ""
    extension = suffix if suffix in media.extensions else media.extensions[0]
    return hashlib.sha256(data).hexdigest()[:16] + extension


def is_safe_media_name(name: str) -> bool:
    """True when ``name`` is a plain file name of an accepted type (no folders, no tricks)."""
    return (
        bool(_SAFE_NAME.fullmatch(name))
        and ".." not in name
        and media_type_of_name(name) is not None
    )


def media_type_of_name(name: str) -> str | None:
    """The content type a file name's extension stands for, or None when not accepted."""
    suffix = "." + name.rsplit(".", 1)[-1].lower() if "." in name else ""
    media = _BY_EXTENSION.get(suffix)
    return media.content_type if media else None


@dataclass(frozen=True, slots=True)
class MediaRef:
    """One reference to a media file in item text."""

    name: str
    """File name inside ``media/``."""
    kind: MediaKind


def media_refs(text: str) -> Iterator[MediaRef]:
    """Every media reference of a Markdown text, images first, in text order."""
    for match in IMAGE_REF.finditer(text):
        yield MediaRef(match.group("name"), MediaKind.IMAGE)
    for match in SOUND_REF.finditer(text):
        yield MediaRef(match.group("name"), MediaKind.AUDIO)


def name_media(text: str) -> str:
    """Text for a terminal: ``![](media/a.png)`` is ``[image: a.png]``, a sound ``[audio: ...]``."""
    text = IMAGE_REF.sub(lambda m: f"[image: {m.group('name')}]", text)
    return SOUND_REF.sub(lambda m: f"[audio: {m.group('name')}]", text)

"""What an exported Anki note carries besides its fields: media files and a stable mod time.

Vault text refers to media as ``![](media/<name>)`` and ``[sound:media/<name>]``;
Anki keeps media flat beside the collection, so a field's ``<img src="media/x">``
becomes ``<img src="x">`` and ``[sound:media/x]`` becomes ``[sound:x]``, and
the files go into the package. A note's modification time comes from the item
(its ``updated_at``/``created_at`` and its file's modification time), never
from the moment of export, so Anki's "update if newer" leaves alone a note that
did not change in the vault and keeps the edits the learner made in Anki.
"""

from __future__ import annotations

import re
import shutil
from datetime import UTC, date, datetime
from pathlib import Path

from sysdrill.content.media import MEDIA_FOLDER, is_safe_media_name
from sysdrill.errors import ExportFailed
from sysdrill.interop.export.cards import ExportedItem

__all__ = ["copy_media", "flatten_media", "media_folder_beside", "note_mod_seconds"]

_IMG_SRC = re.compile(r'(<img\b[^>]*?\bsrc=")' + MEDIA_FOLDER + r'/([^"]+)(")')
_SOUND = re.compile(r"\[sound:" + MEDIA_FOLDER + r"/([^\]\s]+)\]")


def flatten_media(field_html: str, used: set[str]) -> str:
    """A rendered field with vault media paths made Anki's flat names; names added to ``used``.

    Args:
        field_html: One note field as HTML.
        used: Collects the media file names (inside ``media/``) the field refers to.
    """
    if MEDIA_FOLDER + "/" not in field_html:
        return field_html

    def image(match: re.Match[str]) -> str:
        name = match.group(2)
        if not is_safe_media_name(name):
            return match.group(0)
        used.add(name)
        return f"{match.group(1)}{name}{match.group(3)}"

    def sound(match: re.Match[str]) -> str:
        name = match.group(1)
        if not is_safe_media_name(name):
            return match.group(0)
        used.add(name)
        return f"[sound:{name}]"

    return _SOUND.sub(sound, _IMG_SRC.sub(image, field_html))


def _stamp_seconds(value: object) -> int | None:
    if isinstance(value, datetime):
        moment = value if value.tzinfo else value.replace(tzinfo=UTC)
        return int(moment.timestamp())
    if isinstance(value, date):
        return int(datetime(value.year, value.month, value.day, tzinfo=UTC).timestamp())
    if isinstance(value, str) and value.strip():
        try:
            parsed = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError:
            return None
        return _stamp_seconds(parsed)
    return None


def note_mod_seconds(items: list[ExportedItem], *, vault: Path | None, fallback: int) -> int:
    """A note's modification time in seconds since the epoch, stable while its items are.

    The latest of the items' ``updated_at``/``created_at`` and their files'
    modification times; ``fallback`` (the export time) only when none is known.
    """
    stamps: list[int] = []
    for exported in items:
        for key in ("updated_at", "created_at"):
            stamp = _stamp_seconds(exported.raw.get(key))
            if stamp is not None:
                stamps.append(stamp)
        if vault is not None:
            try:
                stamps.append(int((vault / exported.rel).stat().st_mtime))
            except OSError:
                pass
    return max(stamps) if stamps else fallback


def media_folder_beside(out: Path) -> Path:
    """The folder a text export's media files go to: ``deck.media`` beside ``deck.txt``."""
    return out.with_name(f"{out.stem}.media")


def copy_media(vault: Path, names: set[str], folder: Path) -> list[str]:
    """Copy the vault's media files named in ``names`` into ``folder`` (created if needed).

    Anki's text import does not read media; the files must be in the
    collection's media folder, so a text export leaves them in a folder the
    learner copies there. Files the vault lacks are left out (``sysdrill
    check`` reports them as ``media-missing``).

    Returns:
        The names copied, sorted.

    Raises:
        ExportFailed: If ``folder`` exists and is not a folder, or cannot be written.
    """
    present = sorted(n for n in names if (vault / MEDIA_FOLDER / n).is_file())
    if not present:
        return []
    if folder.exists() and not folder.is_dir():
        raise ExportFailed(
            f"'{folder}' exists and is not a folder, so the export's media cannot go there; "
            "move it away or choose another --out"
        )
    try:
        folder.mkdir(exist_ok=True)
        for name in present:
            shutil.copyfile(vault / MEDIA_FOLDER / name, folder / name)
    except OSError as exc:
        raise ExportFailed(
            f"cannot copy media into '{folder}': {exc.strerror or exc}; "
            "check the space and permissions"
        ) from exc
    return present

"""An imported item's digest (``source.digest``), and whether its file was edited since.

The import service digests each item as the source gave it, before stamping
it with an id, dates and its ``source`` block; a re-import compares digests to
tell an updated source item from an unchanged one. The Anki exporter asks the
other question: was the item's file edited since it was imported
(:func:`edited_since_import`)? Only then does a note go back to Anki as changed.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

__all__ = ["edited_since_import", "imported_digest", "item_digest"]

_STAMPED = frozenset({"id", "source", "provenance", "created_at", "updated_at", "schema_version"})
"""Keys the import adds to an Anki item after digesting it."""


def item_digest(data: Mapping[str, Any], anki: Mapping[str, Any] | None = None) -> str:
    """SHA-256 of an item as imported (its mapping, canonical JSON), with its Anki block.

    Args:
        data: The item's mapping before the import stamps it.
        anki: Its ``source.anki`` block, if any: a note moved, suspended or
            edited in Anki then updates the item on re-import too.
    """
    hashed = dict(data) if anki is None else {**data, "source": {"anki": dict(anki)}}
    canonical = json.dumps(hashed, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def imported_digest(raw: Mapping[str, Any]) -> str | None:
    """The ``source.digest`` an Anki item's file would have if it were as imported.

    What the import adds after digesting (id, provenance, the ``source`` stamp
    but its ``anki`` block, the dates, the note id of ``note_link``) is left
    out. Exact for items of readers that give none of those keys themselves
    (Anki packages); the declared provenance of other sources is put back.

    Args:
        raw: The item's mapping as its file holds it.

    Returns:
        The digest, or None when the item has no ``source`` stamp.
    """
    stamp = raw.get("source")
    if not isinstance(stamp, Mapping):
        return None
    data = {key: value for key, value in raw.items() if key not in _STAMPED}
    if stamp.get("provenance") is not None:
        data["provenance"] = stamp["provenance"]
    link = data.get("note_link")
    if isinstance(link, Mapping):
        data["note_link"] = {key: value for key, value in link.items() if key != "id"}
    anki = stamp.get("anki")
    return item_digest(data, anki if isinstance(anki, Mapping) else None)


def edited_since_import(raw: Mapping[str, Any]) -> bool:
    """Whether an imported item's file differs from what its import wrote.

    An item without a ``source`` stamp or digest counts as edited (nothing
    tells otherwise).
    """
    stamp = raw.get("source")
    digest = stamp.get("digest") if isinstance(stamp, Mapping) else None
    return not isinstance(digest, str) or imported_digest(raw) != digest

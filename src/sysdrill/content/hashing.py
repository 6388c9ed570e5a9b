r"""Content hashes of items and release hashes of vaults.

``content_hash`` changes when what an item *says* changes, and only then: it is
the SHA-256 of a canonical JSON rendering of the item's meaning-bearing fields
(:data:`HASHED_FIELDS`). Editorial stamps (status, provenance, validation and
math stamps, human review, dates, authors, tags, deck and chain membership) are
left out, so re-reviewing or re-publishing an item keeps its hash.

Canonical form, in order (docs/vault-format.md gives a by-hand recipe):

1. Take the hashed fields in their JSON shape (enums as their strings); a
   missing ``format`` counts as ``"question"``.
2. Normalise every string: Unicode NFC; ``\r\n`` and ``\r`` become ``\n``;
   trailing spaces and tabs of each line are removed; leading and trailing
   whitespace of the whole string is removed.
   Mapping keys are NFC-normalised too.
3. Drop keys whose value is ``None``, an empty string, list or mapping (at any
   depth), so ``options: []`` and a missing ``options`` hash alike.
4. Write floats that hold a whole number as integers (``128.0`` becomes ``128``),
   so YAML's ``128`` and the model's ``128.0`` agree.
5. Serialise with sorted keys, separators ``,`` and ``:``, non-ASCII kept as
   UTF-8 (``json.dumps(..., sort_keys=True, separators=(",", ":"),
   ensure_ascii=False)``), encode as UTF-8, and take the SHA-256 hex digest.

``release_hash`` is the SHA-256 of the lines ``"<id> <content_hash>\n"`` of every
published item, sorted by id (code-point order, which equals UTF-8 byte order).
"""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from collections.abc import Iterable, Mapping
from typing import Any

import orjson

from sysdrill.content.enums import ItemKind, Status
from sysdrill.content.models import Item

__all__ = [
    "HASHED_FIELDS",
    "canonical_content",
    "canonical_json",
    "content_hash",
    "release_hash",
    "release_hash_from_hashes",
]

HASHED_FIELDS: tuple[str, ...] = (
    "id",
    "format",
    "track",
    "level",
    "zone",
    "topic",
    "competency_area",
    "bloom_level",
    "phase",
    "title",
    "scenario",
    "question",
    "details",
    "requires_explanation",
    "difficulty",
    "section",
    "parts",
    "has_reference_answer",
    "answer_value",
    "answer_unit",
    "answer_tolerance",
)
"""Top-level fields whose content defines an item's meaning (``details`` whole)."""


class _ExponentFloat(float):
    """A float that Python's json writes in exponent notation (orjson refuses subclasses)."""


_TRAILING_BLANKS = re.compile(r"[ \t]+$", re.MULTILINE)


def _normalise_text(text: str) -> str:
    # The membership tests skip work that cannot change ASCII-only, LF-only text,
    # which is nearly all of a vault; hashing 10,000 items stays well under a second.
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    if not text.isascii():
        text = unicodedata.normalize("NFC", text)
    if " \n" in text or "\t\n" in text:
        text = _TRAILING_BLANKS.sub("", text)
    return text.strip()


def _normalise_key(key: Any) -> str:
    text = key if isinstance(key, str) else str(key)
    return text if text.isascii() else unicodedata.normalize("NFC", text)


def _normalise(value: Any) -> Any:
    """Normalised copy of a JSON-shaped value; None for values that count as absent."""
    kind = type(value)
    if kind is str:
        text = _normalise_text(value)
        return text or None
    if kind is dict:
        out = {}
        for key, child in value.items():
            normal = _normalise(child)
            if normal is not None:
                out[key if type(key) is str and key.isascii() else _normalise_key(key)] = normal
        return out or None
    if kind is list:
        items = [_normalise(child) for child in value]
        # Positions matter in lists (options, parts), so empty members stay as null.
        return items if any(child is not None for child in items) else None
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, float):
        if value.is_integer():
            return int(value)
        magnitude = abs(value)
        # Python writes these as 1e-07 / 1e+16 where orjson writes 1e-7 / 1e16.
        # (NaN fails both comparisons and is wrapped too.)
        return value if 1e-4 <= magnitude < 1e16 else _ExponentFloat(value)
    if isinstance(value, int):
        return value
    if isinstance(value, Mapping):
        return _normalise(dict(value))
    if isinstance(value, tuple):
        return _normalise(list(value))
    # str subclasses (enum members) and anything else count as their text.
    return _normalise(str(value))


def canonical_content(data: Mapping[str, Any]) -> dict[str, Any]:
    """The normalised, meaning-bearing part of an item mapping.

    Args:
        data: An item as a JSON-shaped mapping (a raw YAML mapping or
            ``Item.model_dump(mode="json")``).

    Returns:
        Only :data:`HASHED_FIELDS`, normalised as the module docstring describes.
    """
    picked = {key: data.get(key) for key in HASHED_FIELDS}
    if picked["format"] is None:
        picked["format"] = ItemKind.QUESTION.value
    return _normalise(picked) or {}


def canonical_json(data: Mapping[str, Any]) -> str:
    """The canonical JSON text that :func:`content_hash` digests.

    The text is exactly ``json.dumps(canonical_content(data), sort_keys=True,
    separators=(",", ":"), ensure_ascii=False)``. orjson writes the same bytes
    about five times faster, except for floats in exponent notation, which
    :func:`_normalise` wraps in :class:`_ExponentFloat` so orjson refuses them
    and the standard library writes them.
    """
    content = canonical_content(data)
    try:
        return orjson.dumps(content, option=orjson.OPT_SORT_KEYS).decode("utf-8")
    except TypeError:  # an exponent float, a lone surrogate, or a huge integer
        return json.dumps(content, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def content_hash(item: Item | Mapping[str, Any]) -> str:
    """SHA-256 hex digest of an item's canonical meaning-bearing content.

    Args:
        item: A validated item, or its JSON-shaped mapping.

    Returns:
        64 lowercase hex characters.
    """
    data = item.model_dump(mode="json") if isinstance(item, Item) else item
    return hashlib.sha256(canonical_json(data).encode("utf-8")).hexdigest()


def release_hash(items: Iterable[Item]) -> str:
    r"""SHA-256 hex digest identifying the published content of a vault.

    Args:
        items: Items of the vault; only those with status ``published`` count.

    Returns:
        The digest of ``"<id> <content_hash>\n"`` lines sorted by id.
    """
    return release_hash_from_hashes(
        (item.id, content_hash(item)) for item in items if item.status is Status.PUBLISHED
    )


def release_hash_from_hashes(pairs: Iterable[tuple[str, str]]) -> str:
    r""":func:`release_hash` from ``(id, content_hash)`` pairs of the published items.

    Args:
        pairs: One pair per published item, in any order.

    Returns:
        The digest of ``"<id> <content_hash>\n"`` lines sorted by id.
    """
    digest = hashlib.sha256()
    for item_id, item_hash in sorted(pairs):
        digest.update(f"{item_id} {item_hash}\n".encode())
    return digest.hexdigest()

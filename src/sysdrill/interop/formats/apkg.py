r"""Read Anki packages (``.apkg``): notes, fields, tags and deck names.

An ``.apkg`` is a zip holding an SQLite collection and numbered media files.
The collection comes in three shapes, newest first:

- ``collection.anki21b``: zstd-compressed SQLite with the new schema
  (``notetypes``, ``fields`` and ``decks`` tables; deck names use ``\x1f``
  between levels);
- ``collection.anki21``: plain SQLite, new or old schema;
- ``collection.anki2``: plain SQLite with the old schema (note types and decks
  as JSON in the ``col`` table).

The archive is opened through :mod:`sysdrill.interop.safe_zip` (size, name
and member-count limits) and the collection is copied to a temporary file and
opened read-only, with ``trusted_schema`` off so nothing defined in the file
can run. Only our own ``SELECT`` statements are executed. Media files are not
imported; a note says how many were skipped.
"""

from __future__ import annotations

import json
import re
import sqlite3  # noqa: TID251 - reads a foreign Anki file, not our storage
import tempfile
from collections.abc import Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass
from pathlib import Path

from sysdrill.errors import ImportFailed
from sysdrill.interop.formats._common import card_item, html_to_markdown
from sysdrill.interop.safe_zip import SafeZip, open_safe_zip
from sysdrill.interop.source import ImportNote, ParsedItem, ParsedSource

__all__ = ["COLLECTION_MEMBERS", "read_apkg"]

COLLECTION_MEMBERS: tuple[str, ...] = (
    "collection.anki21b",
    "collection.anki21",
    "collection.anki2",
)
"""Collection files looked for inside the zip, preferred first."""

_SQLITE_MAGIC = b"SQLite format 3\x00"
_MEDIA_INDEX_LIMIT_BYTES = 16 * 1024 * 1024
_FRONT_NAMES = ("front", "question", "text", "q", "expression", "word", "term")
_BACK_NAMES = ("back", "answer", "a", "meaning", "definition", "back extra", "extra")
_CLOZE = re.compile(r"\{\{c(\d+)::(.*?)(?:::(.*?))?\}\}", re.DOTALL)
_OWN_PREFIX = "sysdrill "
"""Note types our exporter writes start with this; their ``Id`` field is kept."""


@dataclass(frozen=True, slots=True)
class _NoteType:
    name: str
    fields: tuple[str, ...]


def _copy_collection(archive: SafeZip, member: str, target: Path) -> None:
    if member.endswith(".anki21b"):
        import zstandard

        decompressor = zstandard.ZstdDecompressor()
        try:
            with (
                archive.open_member(member) as raw,
                decompressor.stream_reader(raw) as stream,
                target.open("wb") as sink,
            ):
                archive.copy_stream(stream, sink)
        except zstandard.ZstdError as exc:
            raise ImportFailed(
                f"'{archive.path.name}': {member} is not valid zstd data ({exc}); "
                "export the deck again from Anki"
            ) from exc
    else:
        archive.copy_member(member, target)
    with target.open("rb") as stream:
        if stream.read(len(_SQLITE_MAGIC)) != _SQLITE_MAGIC:
            raise ImportFailed(
                f"'{archive.path.name}': {member} is not an SQLite collection; "
                "export the deck again from Anki"
            )


def _unicase(left: str, right: str) -> int:
    a, b = left.casefold(), right.casefold()
    return (a > b) - (a < b)


@contextmanager
def _open_collection(path: Path, archive_name: str) -> Iterator[sqlite3.Connection]:
    try:
        conn = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)
    except sqlite3.Error as exc:  # pragma: no cover - the file was just checked
        raise ImportFailed(f"'{archive_name}': cannot open its collection ({exc})") from exc
    with closing(conn):
        # Anki's schema names this collation; without it some reads fail.
        conn.create_collation("unicase", _unicase)
        # Views and triggers in a stranger's file must not call functions.
        conn.execute("PRAGMA trusted_schema = OFF")
        conn.execute("PRAGMA query_only = ON")
        yield conn


def _tables(conn: sqlite3.Connection) -> dict[str, str]:
    rows = conn.execute("SELECT name, type FROM sqlite_master WHERE type IN ('table', 'view')")
    return {str(name): str(kind) for name, kind in rows}


def _old_schema(conn: sqlite3.Connection) -> tuple[dict[int, _NoteType], dict[int, str]]:
    row = conn.execute("SELECT models, decks FROM col LIMIT 1").fetchone()
    if row is None:
        raise ImportFailed("has an empty col table")
    try:
        models = json.loads(row[0] or "{}")
        decks = json.loads(row[1] or "{}")
    except (TypeError, json.JSONDecodeError) as exc:
        raise ImportFailed(f"has note types or decks that are not valid JSON ({exc})") from exc
    if not isinstance(models, dict) or not isinstance(decks, dict):
        raise ImportFailed("has note types or decks that are not JSON objects")
    note_types: dict[int, _NoteType] = {}
    for key, model in models.items():
        if not isinstance(model, dict):
            continue
        fields = model.get("flds") or []
        ordered = sorted(
            (f for f in fields if isinstance(f, dict)), key=lambda f: int(f.get("ord", 0))
        )
        note_types[int(key)] = _NoteType(
            str(model.get("name", "")), tuple(str(f.get("name", "")) for f in ordered)
        )
    deck_names = {
        int(key): str(deck.get("name", "")) for key, deck in decks.items() if isinstance(deck, dict)
    }
    return note_types, deck_names


def _new_schema(conn: sqlite3.Connection) -> tuple[dict[int, _NoteType], dict[int, str]]:
    names = {int(ntid): str(name) for ntid, name in conn.execute("SELECT id, name FROM notetypes")}
    fields: dict[int, list[str]] = {}
    for ntid, name in conn.execute("SELECT ntid, name FROM fields ORDER BY ntid, ord"):
        fields.setdefault(int(ntid), []).append(str(name))
    note_types = {
        ntid: _NoteType(name, tuple(fields.get(ntid, ()))) for ntid, name in names.items()
    }
    decks = {
        int(did): str(name).replace("\x1f", "::")
        for did, name in conn.execute("SELECT id, name FROM decks")
    }
    return note_types, decks


def _pick(names: tuple[str, ...], wanted: tuple[str, ...], taken: set[int]) -> int | None:
    lowered = [name.casefold() for name in names]
    for candidate in wanted:
        if candidate in lowered and lowered.index(candidate) not in taken:
            return lowered.index(candidate)
    return None


def _reveal_cloze(text: str, *, hide: bool) -> str:
    def replace(match: re.Match[str]) -> str:
        if not hide:
            return match.group(2)
        return f"[{match.group(3)}]" if match.group(3) else "[...]"

    return _CLOZE.sub(replace, text)


def _note_item(
    *,
    guid: str,
    note_type: _NoteType,
    values: list[str],
    tags: list[str],
    deck: str | None,
    where: str,
) -> ParsedItem:
    names = note_type.fields or tuple(f"Field {n + 1}" for n in range(len(values)))
    if len(names) < len(values):
        names = names + tuple(f"Field {n + 1}" for n in range(len(names), len(values)))
    media: list[str] = []
    texts: list[str] = []
    for value in values:
        text, found = html_to_markdown(value)
        texts.append(text)
        media.extend(found)
    own = note_type.name.casefold().startswith(_OWN_PREFIX)
    preferred_id: str | None = None
    taken: set[int] = set()
    if own and "Id" in names:
        index = names.index("Id")
        taken.add(index)
        preferred_id = texts[index].strip() if index < len(texts) and texts[index] else None
    front_at = _pick(names, _FRONT_NAMES, taken)
    if front_at is None:
        front_at = next(n for n in range(len(names)) if n not in taken)
    taken.add(front_at)
    back_at = _pick(names, _BACK_NAMES, taken)
    if back_at is None:
        back_at = next((n for n in range(len(names)) if n not in taken), None)
    if back_at is not None:
        taken.add(back_at)
    front = texts[front_at] if front_at < len(texts) else ""
    back = texts[back_at] if back_at is not None and back_at < len(texts) else ""
    title = None
    if own:
        # Our note types: Title is the title, Scenario/Options/Parts belong on
        # the front, and Meta only repeats the tags.
        prompt: dict[str, list[str]] = {"scenario": [], "options": [], "parts": []}
        for n, name in enumerate(names):
            key = name.casefold()
            if n in taken or n >= len(texts):
                continue
            if key == "title":
                title = texts[n] or None
            elif key in prompt:
                prompt[key].append(texts[n])
            elif key != "meta":
                continue
            taken.add(n)
        front = "\n\n".join(
            part
            for part in (*prompt["scenario"], front, *prompt["options"], *prompt["parts"])
            if part
        )
    if _CLOZE.search(front):
        back = "\n\n".join(part for part in (_reveal_cloze(front, hide=False), back) if part)
        front = _reveal_cloze(front, hide=True)
    extras = [
        f"**{names[n]}:** {texts[n]}" if "\n" not in texts[n] else f"**{names[n]}:**\n\n{texts[n]}"
        for n in range(len(texts))
        if n not in taken and texts[n].strip()
    ]
    if extras:
        back = "\n\n".join([back, *extras] if back else extras)
    data, notes = card_item(front=front, back=back, deck=deck, tags=tags, where=where, media=media)
    if title:
        data["title"] = title
    return ParsedItem(key=guid, data=data, preferred_id=preferred_id, notes=notes)


def _read_collection(conn: sqlite3.Connection, source: ParsedSource) -> None:
    tables = _tables(conn)
    if tables.get("notes") != "table" or tables.get("cards") != "table":
        raise ImportFailed("has no notes and cards tables (not an Anki collection)")
    if tables.get("notetypes") == "table" and tables.get("fields") == "table":
        note_types, deck_names = _new_schema(conn)
    elif tables.get("col") == "table":
        note_types, deck_names = _old_schema(conn)
    else:
        raise ImportFailed("has neither note type tables nor a col table")
    first_deck: dict[int, int] = {}
    for nid, did in conn.execute("SELECT nid, did FROM cards ORDER BY nid, ord"):
        first_deck.setdefault(int(nid), int(did))
    seen: set[str] = set()
    rows = conn.execute("SELECT id, guid, mid, tags, flds FROM notes ORDER BY id")
    for number, (nid, guid, mid, tags, flds) in enumerate(rows, start=1):
        where = f"note {number}"
        guid = str(guid or f"nid:{nid}")
        if guid in seen:
            source.notes.append(ImportNote(f"repeats note GUID {guid}", where, skipped=True))
            continue
        seen.add(guid)
        note_type = note_types.get(int(mid), _NoteType("", ()))
        values = str(flds or "").split("\x1f")
        deck = deck_names.get(first_deck.get(int(nid), -1))
        item = _note_item(
            guid=guid,
            note_type=note_type,
            values=values,
            tags=str(tags or "").split(),
            deck=deck,
            where=where,
        )
        if not item.data["question"]:
            source.notes.append(ImportNote("note has an empty front", where, skipped=True))
            continue
        source.items.append(item)
    decks = {item.data.get("deck") for item in source.items}
    if len(decks) == 1:
        source.deck = decks.pop()


def read_apkg(path: Path) -> ParsedSource:
    """Read an Anki package into flashcard items, one per note.

    Each note becomes a ``flashcard`` (front and back from fields named like
    Front/Back or Question/Answer, else the first two fields; further fields
    are appended to the back with their names), keyed by its note GUID, with
    its tags and the deck of its first card. Cloze notes show ``[...]`` on the
    front and the revealed text on the back. A note without a back becomes a
    ``quiz`` item and a note says so.

    Args:
        path: The ``.apkg`` file.

    Returns:
        The parsed notes; media files are counted in a note, not imported.

    Raises:
        HostileInput: If the archive is oversized, escapes its folder, or is not a zip.
        ImportFailed: If it is truncated, holds no collection, or the collection is damaged.
    """
    source = ParsedSource(format="apkg", path=str(path))
    with open_safe_zip(path, kind="Anki package") as archive:
        names = archive.names()
        member = next((m for m in COLLECTION_MEMBERS if m in names), None)
        if member is None:
            raise ImportFailed(
                f"'{path.name}' holds no Anki collection ({' or '.join(COLLECTION_MEMBERS)}); "
                "export the deck again from Anki as a package (.apkg)"
            )
        media = [name for name in names if name.isdigit()]
        if media:
            source.notes.append(
                ImportNote(f"{len(media)} media files (images, sounds) skipped; not imported")
            )
        with tempfile.TemporaryDirectory(prefix="sysdrill-apkg-") as folder:
            copy = Path(folder) / "collection.sqlite"
            _copy_collection(archive, member, copy)
            try:
                with _open_collection(copy, path.name) as conn:
                    _read_collection(conn, source)
            except ImportFailed as exc:
                if str(exc).startswith(f"'{path.name}'"):
                    raise
                raise ImportFailed(
                    f"'{path.name}': {member} {exc}; export the deck again from Anki"
                ) from exc
            except (sqlite3.Error, ValueError, TypeError, OverflowError) as exc:
                raise ImportFailed(
                    f"'{path.name}': {member} is damaged or not an Anki collection ({exc}); "
                    "export the deck again from Anki"
                ) from exc
    if not source.items and not source.notes:
        source.notes.append(ImportNote("the collection holds no notes"))
    return source

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
can run. Only our own ``SELECT`` statements are executed. Media files that pass
the checks of :mod:`sysdrill.interop.media` come along, renamed by content, and
the fields refer to them as ``![](media/<name>)`` and ``[sound:media/<name>]``.

A bare collection file (``collection.anki2`` from an Anki profile folder, or
``collection.anki21``/``.anki21b``) is read the same way, its media from the
``collection.media`` folder beside it (only the files its notes name).

A package sysdrill exported (its note types' model ids, names and fields) is
read as its own export: each note carries its card, and its GUID finds its item
in the vault it came from (:mod:`sysdrill.interop.reimport`), as Anki text's does.
"""

from __future__ import annotations

import json
import re
import shutil
import sqlite3  # noqa: TID251 - reads a foreign Anki file, not our storage
import tempfile
import urllib.parse
from collections.abc import Callable, Iterator, Mapping
from contextlib import closing, contextmanager
from pathlib import Path

from sysdrill.errors import HostileInput, ImportFailed
from sysdrill.interop.anki_scheduling import read_scheduling
from sysdrill.interop.field_map import FieldRole
from sysdrill.interop.formats._html_markdown import html_to_markdown
from sysdrill.interop.formats.anki_note import NoteOrigin, NoteType, note_items, note_roles
from sysdrill.interop.formats.anki_template import CardTemplate
from sysdrill.interop.formats.exported_card import split_back
from sysdrill.interop.media import (
    MediaIntake,
    PackageMedia,
    protobuf_fields,
    read_folder_media,
    read_package_media,
)
from sysdrill.interop.safe_zip import SafeZip, open_safe_zip
from sysdrill.interop.source import ImportNote, ParsedSource

__all__ = ["COLLECTION_MEMBERS", "MAX_COLLECTION_BYTES", "exported_field_text", "read_apkg"]

COLLECTION_MEMBERS: tuple[str, ...] = (
    "collection.anki21b",
    "collection.anki21",
    "collection.anki2",
)
"""Collection files looked for inside the zip, preferred first."""

_SQLITE_MAGIC = b"SQLite format 3\x00"
"""The first bytes of an SQLite file (a collection, in a package or bare)."""
_ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
"""The first bytes of zstd data (``collection.anki21b``)."""
MAX_COLLECTION_BYTES = 1024 * 1024 * 1024
"""Largest bare collection file read, in bytes (1 GiB, decompressed)."""
_CHOICE_ANSWER = "**Answer: "
"""How the back of a multiple-choice card starts (the correct option)."""
_MEDIA_REFERENCE = re.compile(
    r"""<img\b[^>]*?\bsrc\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))|\[sound:([^\]]+)\]""",
    re.IGNORECASE,
)


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


def _old_schema(conn: sqlite3.Connection) -> tuple[dict[int, NoteType], dict[int, str]]:
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
    note_types: dict[int, NoteType] = {}
    for key, model in models.items():
        if not isinstance(model, dict):
            continue
        fields = model.get("flds") or []
        ordered = sorted(
            (f for f in fields if isinstance(f, dict)), key=lambda f: int(f.get("ord", 0))
        )
        templates = model.get("tmpls")
        card_templates = sorted(
            (t for t in templates or [] if isinstance(t, dict)), key=lambda t: int(t.get("ord", 0))
        )
        note_types[int(key)] = NoteType(
            str(model.get("name", "")),
            tuple(str(f.get("name", "")) for f in ordered),
            templates=len(templates) if isinstance(templates, list) else None,
            cloze=model.get("type") == 1,
            card_templates=tuple(
                CardTemplate(str(t.get("name", "")), str(t.get("qfmt", "")), str(t.get("afmt", "")))
                for t in card_templates
            ),
            id=int(key),
            mod_s=_int_or_none(model.get("mod")),
            css=str(model.get("css") or ""),
            sort_field=_int_or_none(model.get("sortf")) or 0,
        )
    deck_names = {
        int(key): str(deck.get("name", "")) for key, deck in decks.items() if isinstance(deck, dict)
    }
    return note_types, deck_names


def _int_or_none(value: object) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return None
    try:
        return int(value)
    except ValueError:
        return None


def _notetype_config(config: object) -> tuple[bool, int, str]:
    """Cloze kind, sort field and CSS of the new schema's ``NotetypeConfig`` protobuf.

    Fields: ``kind`` 1 (1 is cloze), ``sort_field_idx`` 2, ``css`` 3.
    """
    cloze, sort_field, css = False, 0, ""
    if isinstance(config, bytes):
        try:
            for number, value in protobuf_fields(config):
                if number == 1 and isinstance(value, int):
                    cloze = value == 1
                elif number == 2 and isinstance(value, int):
                    sort_field = value
                elif number == 3 and isinstance(value, bytes):
                    css = value.decode("utf-8", "replace")
        except ValueError:
            pass  # unreadable: a normal note type without CSS
    return cloze, sort_field, css


def _template(name: str, config: object) -> CardTemplate:
    """A template of the new schema.

    ``config`` is Anki's ``CardTemplateConfig`` protobuf: the front format is
    field 1, the back format field 2.
    """
    formats = {1: "", 2: ""}
    if isinstance(config, bytes):
        try:
            for number, value in protobuf_fields(config):
                if number in formats and isinstance(value, bytes):
                    formats[number] = value.decode("utf-8", "replace")
        except ValueError:
            pass  # unreadable: the cards fall back to the mapped question and answer
    return CardTemplate(name, formats[1], formats[2])


def _new_schema(
    conn: sqlite3.Connection, tables: dict[str, str]
) -> tuple[dict[int, NoteType], dict[int, str]]:
    names: dict[int, str] = {}
    details: dict[int, tuple[int | None, bool, int, str]] = {}
    for ntid, name, mtime, config in conn.execute(
        "SELECT id, name, mtime_secs, config FROM notetypes"
    ):
        names[int(ntid)] = str(name)
        details[int(ntid)] = (_int_or_none(mtime), *_notetype_config(config))
    fields: dict[int, list[str]] = {}
    for ntid, name in conn.execute("SELECT ntid, name FROM fields ORDER BY ntid, ord"):
        fields.setdefault(int(ntid), []).append(str(name))
    templates: dict[int, list[CardTemplate]] = {}
    if tables.get("templates") == "table":
        query = "SELECT ntid, name, config FROM templates ORDER BY ntid, ord"
        for ntid, name, config in conn.execute(query):
            templates.setdefault(int(ntid), []).append(_template(str(name), config))
    note_types = {
        ntid: NoteType(
            name,
            tuple(fields.get(ntid, ())),
            templates=len(templates[ntid]) if ntid in templates else None,
            cloze=details[ntid][1],
            card_templates=tuple(templates.get(ntid, ())),
            id=ntid,
            mod_s=details[ntid][0],
            css=details[ntid][3],
            sort_field=details[ntid][2],
        )
        for ntid, name in names.items()
    }
    decks = {
        int(did): str(name).replace("\x1f", "::")
        for did, name in conn.execute("SELECT id, name FROM decks")
    }
    return note_types, decks


def _card_keys(
    conn: sqlite3.Connection, keys_of: dict[int, tuple[str, set[str]]]
) -> dict[int, str]:
    """The item key of each Anki card: ``<guid>`` or ``<guid>#<card>`` (c1, t1, forward...)."""
    found: dict[int, str] = {}
    for cid, nid, ord_ in conn.execute("SELECT id, nid, ord FROM cards"):
        guid, keys = keys_of.get(int(nid), ("", set()))
        number = int(ord_ or 0)
        for key in (
            f"{guid}#c{number + 1}",
            f"{guid}#t{number + 1}",
            f"{guid}#{('forward', 'reverse')[min(number, 1)]}",
            guid,
        ):
            if key in keys:
                found[int(cid)] = key
                break
    return found


def _exported_note_types() -> set[tuple[int | None, str, tuple[str, ...]]]:
    """Model id, name and fields of each note type sysdrill's package export writes."""
    from sysdrill.interop.export.apkg import NOTE_TYPES

    return {(kind.model_id, kind.name, kind.fields) for kind in NOTE_TYPES.values()}


def _read_collection(
    conn: sqlite3.Connection,
    source: ParsedSource,
    *,
    given: Mapping[str, FieldRole],
    saved: Mapping[str, Mapping[str, FieldRole]],
    media_names: Mapping[str, str],
    with_scheduling: bool = False,
) -> int:
    """Read the collection's notes into ``source``; returns how many notes it holds."""
    tables = _tables(conn)
    if tables.get("notes") != "table" or tables.get("cards") != "table":
        raise ImportFailed("has no notes and cards tables (not an Anki collection)")
    if tables.get("notetypes") == "table" and tables.get("fields") == "table":
        note_types, deck_names = _new_schema(conn, tables)
    elif tables.get("col") == "table":
        note_types, deck_names = _old_schema(conn)
    else:
        raise ImportFailed("has neither note type tables nor a col table")
    first_deck: dict[int, int] = {}
    ords: dict[int, set[int]] = {}
    cards: dict[int, dict[int, tuple[str | None, int]]] = {}
    query = "SELECT nid, did, ord, queue FROM cards ORDER BY nid, ord"
    for nid, did, ord_, queue in conn.execute(query):
        first_deck.setdefault(int(nid), int(did))
        ords.setdefault(int(nid), set()).add(int(ord_ or 0))
        card = (deck_names.get(int(did)), int(queue or 0))
        cards.setdefault(int(nid), {}).setdefault(int(ord_ or 0), card)
    exported = _exported_note_types()
    roles_of: dict[int, dict[str, FieldRole]] = {}
    keys_of: dict[int, tuple[str, set[str]]] = {}
    seen: set[str] = set()
    rows = conn.execute("SELECT id, guid, mid, mod, tags, flds FROM notes ORDER BY id")
    number = 0
    for number, (nid, guid, mid, mod, tags, flds) in enumerate(rows, start=1):
        where = f"note {number}"
        guid = str(guid or f"nid:{nid}")
        if guid in seen:
            source.notes.append(ImportNote(f"repeats note GUID {guid}", where, skipped=True))
            continue
        seen.add(guid)
        note_type = note_types.get(int(mid), NoteType("", ()))
        values = str(flds or "").split("\x1f")
        roles = roles_of.get(int(mid))
        if roles is None:
            fixed = {**saved.get(note_type.name, {}), **given}
            roles = roles_of[int(mid)] = note_roles(note_type, values, fixed, source.field_maps)
        items = note_items(
            guid=guid,
            note_type=note_type,
            values=values,
            tags=str(tags or "").split(),
            deck=deck_names.get(first_deck.get(int(nid), -1)),
            where=where,
            roles=roles,
            card_ords=ords.get(int(nid), {0}),
            media_names=media_names,
            origin=NoteOrigin(_int_or_none(mod) or 0, cards.get(int(nid), {})),
            exported=(note_type.id, note_type.name, note_type.fields) in exported,
        )
        for item in items:
            if not item.data["question"]:
                source.notes.append(ImportNote("note has an empty front", where, skipped=True))
                break
            source.items.append(item)
            keys_of.setdefault(int(nid), (guid, set()))[1].add(item.key)
    if with_scheduling:
        source.scheduling = read_scheduling(conn, _card_keys(conn, keys_of))
    source.own_export = any(item.card is not None for item in source.items)
    decks = {item.data.get("deck") for item in source.items}
    if len(decks) == 1:
        source.deck = decks.pop()
    return number


def exported_field_text() -> Callable[[str], str]:
    """A field's Markdown as the package export writes it and this reader reads it back.

    An item's card goes through it before it is compared with a note of its
    package, so what the round trip through HTML changes (escapes, list
    markers) is not taken for an edit. A multiple-choice back (``**Answer:
    ...**`` first) loses its napkin math and pitfall, which that note type has
    no field for.
    """
    from sysdrill.interop.export.anki_media import flatten_media
    from sysdrill.interop.export.cards import FieldRenderer

    render = FieldRenderer()

    def shown(text: str) -> str:
        if text.startswith(_CHOICE_ANSWER):
            text = split_back(text).get("realistic_solution", "")
        used: set[str] = set()
        html = flatten_media(render(text), used)
        # Media by the vault's own names, as the note's card reads them (:func:`note_items`).
        return html_to_markdown(html, media_names={name: name for name in used})[0]

    return shown


def _no_notes(path: Path) -> ImportFailed:
    """The error for a package or collection that holds no notes at all."""
    if path.suffix.lower() == ".colpkg" or path.name.startswith("collection."):
        return ImportFailed(
            f"'{path.name}' is an Anki collection with no notes; nothing to import. "
            "In Anki, switch to the profile that holds your decks (File > Switch Profile) "
            "and export it again, or export a deck as .apkg"
        )
    return ImportFailed(
        f"'{path.name}' holds an Anki collection with no notes; nothing to import. "
        "In Anki, export a deck that has cards (File > Export, Anki Deck Package)"
    )


def _referenced_media(conn: sqlite3.Connection) -> list[str]:
    """The media file names the notes of a collection name, in order, without repeats."""
    names: dict[str, None] = {}
    for (flds,) in conn.execute("SELECT flds FROM notes"):
        for match in _MEDIA_REFERENCE.finditer(str(flds or "")):
            name = next(group for group in match.groups() if group is not None)
            names.setdefault(urllib.parse.unquote(name), None)
    return list(names)


def _bare_collection(path: Path, target: Path) -> None:
    """Copy a bare collection file (and the log Anki writes beside it) to ``target``."""
    size = path.stat().st_size
    if size > MAX_COLLECTION_BYTES:
        raise HostileInput(
            f"'{path.name}' is {size // 1_048_576} MiB, more than "
            f"{MAX_COLLECTION_BYTES // 1_048_576} MiB; export the decks you need as .apkg"
        )
    with path.open("rb") as stream:
        magic = stream.read(len(_SQLITE_MAGIC))
    if magic.startswith(_ZSTD_MAGIC):
        import zstandard

        try:
            with (
                path.open("rb") as raw,
                zstandard.ZstdDecompressor().stream_reader(raw) as stream,
                target.open("wb") as sink,
            ):
                written = 0
                while chunk := stream.read(1 << 20):
                    written += len(chunk)
                    if written > MAX_COLLECTION_BYTES:
                        raise HostileInput(
                            f"'{path.name}' would expand to more than "
                            f"{MAX_COLLECTION_BYTES // 1_048_576} MiB; export the decks "
                            "you need as .apkg"
                        )
                    sink.write(chunk)
        except zstandard.ZstdError as exc:
            raise ImportFailed(
                f"'{path.name}' is not valid zstd data ({exc}); open the profile in Anki "
                "and export it as a .colpkg"
            ) from exc
    else:
        shutil.copyfile(path, target)
        journal = path.with_name(path.name + "-wal")
        if journal.is_file():
            # Anki open on the profile keeps recent changes in the write-ahead log.
            shutil.copyfile(journal, target.with_name(target.name + "-wal"))
            with closing(sqlite3.connect(target)) as conn:
                conn.execute("PRAGMA trusted_schema = OFF")
                conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                conn.execute("PRAGMA journal_mode = DELETE")
    with target.open("rb") as stream:
        if stream.read(len(_SQLITE_MAGIC)) != _SQLITE_MAGIC:
            raise ImportFailed(
                f"'{path.name}' is not an SQLite collection; open the profile in Anki "
                "and export it as a .colpkg"
            )


def _read_bare(
    path: Path,
    source: ParsedSource,
    *,
    field_map: Mapping[str, FieldRole],
    saved_maps: Mapping[str, Mapping[str, FieldRole]],
    with_scheduling: bool,
) -> int:
    """Read a bare collection file and the media its notes name from ``collection.media``."""
    source.notes.append(
        ImportNote(
            f"read '{path.name}' as an Anki collection; its media from the "
            "collection.media folder beside it"
        )
    )
    with tempfile.TemporaryDirectory(prefix="sysdrill-apkg-") as folder:
        copy = Path(folder) / "collection.sqlite"
        _bare_collection(path, copy)
        with _open_collection(copy, path.name) as conn:
            intake = MediaIntake()
            media_folder = path.parent / "collection.media"
            if media_folder.is_dir():
                for name in _referenced_media(conn):
                    read_folder_media(media_folder, name, intake=intake)
            media: PackageMedia = intake.media
            source.media_files = media.files
            source.notes.extend(media.notes)
            return _read_collection(
                conn,
                source,
                given=field_map,
                saved=saved_maps,
                media_names=media.names,
                with_scheduling=with_scheduling,
            )


def read_apkg(
    path: Path,
    *,
    field_map: Mapping[str, FieldRole] | None = None,
    saved_maps: Mapping[str, Mapping[str, FieldRole]] | None = None,
    with_scheduling: bool = False,
) -> ParsedSource:
    """Read an Anki package into flashcard items, one per card to review.

    A basic note becomes one ``flashcard`` keyed by its note GUID (fields
    mapped to question, answer, extra, source and tags roles by
    :func:`~sysdrill.interop.field_map.map_fields`), with its tags and the
    deck of its first card. A cloze note gives one item per blank number
    (key ``<guid>#c<N>``: the blank shown as ``[...]`` or ``[hint]``, the
    others filled in), a note type with two templates one item per card
    (``<guid>#forward``, ``<guid>#reverse``); such siblings share
    :attr:`ParsedItem.group` and a ``note_link``. A note without a back
    becomes a ``quiz`` item and a note says so.

    Args:
        path: The ``.apkg`` file.
        field_map: Roles of fields by field name (``--map``), for every note type.
        saved_maps: Roles saved by an earlier import, by note type name;
            ``field_map`` wins over them, and both over the heuristic of
            :mod:`sysdrill.interop.field_map`.
        with_scheduling: Also read each card's state and review log
            (:attr:`ParsedSource.scheduling`).

    Returns:
        The parsed notes and their checked media files.

    Raises:
        HostileInput: If the archive is oversized, escapes its folder, or is not a zip.
        ImportFailed: If it is truncated, holds no collection, or the collection is damaged.
    """
    source = ParsedSource(format="apkg", path=str(path), skip_napkin_check=True)
    try:
        with path.open("rb") as stream:
            magic = stream.read(len(_SQLITE_MAGIC))
    except OSError:
        magic = b""  # the zip reader names what is wrong with the path
    if magic == _SQLITE_MAGIC or (magic.startswith(_ZSTD_MAGIC) and path.suffix == ".anki21b"):
        try:
            count = _read_bare(
                path,
                source,
                field_map=field_map or {},
                saved_maps=saved_maps or {},
                with_scheduling=with_scheduling,
            )
        except ImportFailed as exc:
            if str(exc).startswith(f"'{path.name}'"):
                raise
            raise ImportFailed(
                f"'{path.name}' {exc}; open the profile in Anki and export it as a .colpkg"
            ) from exc
        except (sqlite3.Error, ValueError, TypeError, OverflowError) as exc:
            raise ImportFailed(
                f"'{path.name}' is damaged or not an Anki collection ({exc}); open the "
                "profile in Anki and export it as a .colpkg"
            ) from exc
        if count == 0:
            raise _no_notes(path)
        return source
    with open_safe_zip(path, kind="Anki package") as archive:
        names = archive.names()
        member = next((m for m in COLLECTION_MEMBERS if m in names), None)
        if member is None:
            what = "is an empty zip archive" if not names else "holds no Anki collection"
            raise ImportFailed(
                f"'{path.name}' {what} ({' or '.join(COLLECTION_MEMBERS)}); "
                "export the deck again from Anki as a deck package (.apkg) or a "
                "collection package (.colpkg)"
            )
        media = read_package_media(archive, members=names)
        source.media_files = media.files
        source.notes.extend(media.notes)
        with tempfile.TemporaryDirectory(prefix="sysdrill-apkg-") as folder:
            copy = Path(folder) / "collection.sqlite"
            _copy_collection(archive, member, copy)
            try:
                with _open_collection(copy, path.name) as conn:
                    count = _read_collection(
                        conn,
                        source,
                        given=field_map or {},
                        saved=saved_maps or {},
                        media_names=media.names,
                        with_scheduling=with_scheduling,
                    )
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
    if count == 0:
        raise _no_notes(path)
    return source

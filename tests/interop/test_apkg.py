"""Reading Anki packages: old and new collection schemas, genanki output, damage."""

from __future__ import annotations

import json
import sqlite3
import zipfile
from pathlib import Path

import genanki
import pytest
import zstandard

from sysdrill.errors import ImportFailed
from sysdrill.interop.formats.apkg import read_apkg

OLD_SCHEMA = """
CREATE TABLE col (id integer primary key, crt integer, mod integer, scm integer, ver integer,
  dty integer, usn integer, ls integer, conf text, models text, decks text, dconf text, tags text);
CREATE TABLE notes (id integer primary key, guid text, mid integer, mod integer, usn integer,
  tags text, flds text, sfld text, csum integer, flags integer, data text);
CREATE TABLE cards (id integer primary key, nid integer, did integer, ord integer, mod integer,
  usn integer, type integer, queue integer, due integer, ivl integer, factor integer,
  reps integer, lapses integer, left integer, odue integer, odid integer, flags integer,
  data text);
"""

NEW_SCHEMA = """
CREATE TABLE col (id integer primary key, crt integer, mod integer, scm integer, ver integer,
  dty integer, usn integer, ls integer, conf text, models text, decks text, dconf text, tags text);
CREATE TABLE notes (id integer primary key, guid text, mid integer, mod integer, usn integer,
  tags text, flds text, sfld text, csum integer, flags integer, data text);
CREATE TABLE cards (id integer primary key, nid integer, did integer, ord integer, mod integer,
  usn integer, type integer, queue integer, due integer, ivl integer, factor integer,
  reps integer, lapses integer, left integer, odue integer, odid integer, flags integer,
  data text);
CREATE TABLE notetypes (id integer primary key, name text not null collate unicase,
  mtime_secs integer, usn integer, config blob);
CREATE TABLE fields (ntid integer, ord integer, name text not null collate unicase,
  config blob, primary key (ntid, ord));
CREATE TABLE decks (id integer primary key, name text not null collate unicase,
  mtime_secs integer, usn integer, common blob, kind blob);
"""

NOTES = [
    # (id, guid, model id, tags, fields, deck id)
    (
        1,
        "g-one",
        10,
        " gpu memory ",
        ["What is <b>HBM</b>?", "High-bandwidth memory<br>on package"],
        100,
    ),
    (2, "g-two", 10, "", ["Ring all-reduce cost", "\\(2(N-1)/N\\) of the data per GPU"], 101),
    (
        3,
        "g-three",
        20,
        "cloze",
        ["Tensor parallel splits {{c1::weight matrices}}", "Megatron"],
        100,
    ),
    (4, "g-four", 10, "", ["  ", "back without front"], 100),
    (5, "g-five", 10, "media", ['Diagram <img src="fig1.png">', "[sound:ring.mp3]Look"], 100),
]


def _unicase(a: str, b: str) -> int:
    return (a.lower() > b.lower()) - (a.lower() < b.lower())


def _fill_notes(conn: sqlite3.Connection) -> None:
    for number, (nid, guid, mid, tags, fields, did) in enumerate(NOTES):
        conn.execute(
            "INSERT INTO notes VALUES (?,?,?,0,0,?,?,?,0,0,'')",
            (nid, guid, mid, tags, "\x1f".join(fields), fields[0]),
        )
        conn.execute(
            "INSERT INTO cards (id, nid, did, ord) VALUES (?,?,?,0)", (1000 + number, nid, did)
        )


def build_old_collection(path: Path) -> None:
    """An old-schema collection: note types and decks as JSON in the col table."""
    models = {
        "10": {
            "id": 10,
            "name": "Basic",
            "flds": [{"name": "Back", "ord": 1}, {"name": "Front", "ord": 0}],
        },
        "20": {
            "id": 20,
            "name": "Cloze",
            "flds": [{"name": "Text", "ord": 0}, {"name": "Back Extra", "ord": 1}],
        },
    }
    decks = {"100": {"id": 100, "name": "Systems::GPU"}, "101": {"id": 101, "name": "Systems::Net"}}
    with sqlite3.connect(path) as conn:
        conn.executescript(OLD_SCHEMA)
        conn.execute(
            "INSERT INTO col (id, ver, models, decks) VALUES (1, 11, ?, ?)",
            (json.dumps(models), json.dumps(decks)),
        )
        _fill_notes(conn)
    conn.close()


def build_new_collection(path: Path) -> None:
    """A new-schema collection: notetypes, fields and decks tables."""
    conn = sqlite3.connect(path)
    conn.create_collation("unicase", _unicase)
    with conn:
        conn.executescript(NEW_SCHEMA)
        conn.execute("INSERT INTO col (id, ver, models, decks) VALUES (1, 18, '', '')")
        conn.executemany(
            "INSERT INTO notetypes VALUES (?,?,0,0,x'')", [(10, "Basic"), (20, "Cloze")]
        )
        conn.executemany(
            "INSERT INTO fields VALUES (?,?,?,x'')",
            [(10, 0, "Front"), (10, 1, "Back"), (20, 0, "Text"), (20, 1, "Back Extra")],
        )
        conn.executemany(
            "INSERT INTO decks VALUES (?,?,0,0,x'',x'')",
            [(100, "Systems\x1fGPU"), (101, "Systems\x1fNet")],
        )
        _fill_notes(conn)
    conn.close()


def zip_package(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return path


@pytest.fixture
def old_apkg(tmp_path: Path) -> Path:
    collection = tmp_path / "old.sqlite"
    build_old_collection(collection)
    return zip_package(
        tmp_path / "old.apkg",
        {
            "collection.anki2": collection.read_bytes(),
            "media": json.dumps({"0": "fig1.png"}).encode(),
            "0": b"\x89PNG fake",
        },
    )


@pytest.fixture
def new_apkg(tmp_path: Path) -> Path:
    collection = tmp_path / "new.sqlite"
    build_new_collection(collection)
    compressed = zstandard.ZstdCompressor().compress(collection.read_bytes())
    return zip_package(
        tmp_path / "new.apkg",
        {
            # Modern Anki also writes a stub collection.anki2; the reader must prefer anki21b.
            "collection.anki2": b"not the real collection",
            "collection.anki21b": compressed,
            "media": b"",
        },
    )


def _by_key(path: Path) -> dict[str, dict[str, object]]:
    return {item.key: item.data for item in read_apkg(path).items}


@pytest.mark.parametrize("fixture", ["old_apkg", "new_apkg"])
def test_read_apkg_reads_notes_fields_tags_and_decks_in_both_schemas(
    fixture: str, request: pytest.FixtureRequest
) -> None:
    items = _by_key(request.getfixturevalue(fixture))

    assert items["g-one"] == {
        "format": "flashcard",
        "question": "What is **HBM**?",
        "details": {"realistic_solution": "High-bandwidth memory\non package"},
        "tags": ["gpu", "memory"],
        "deck": "Systems::GPU",
    }
    assert items["g-two"]["deck"] == "Systems::Net"
    assert items["g-two"]["details"] == {"realistic_solution": "$2(N-1)/N$ of the data per GPU"}


@pytest.mark.parametrize("fixture", ["old_apkg", "new_apkg"])
def test_read_apkg_shows_cloze_hidden_on_front_and_revealed_on_back(
    fixture: str, request: pytest.FixtureRequest
) -> None:
    item = _by_key(request.getfixturevalue(fixture))["g-three#c1"]

    assert item["question"] == "Tensor parallel splits [...]"
    assert item["details"] == {
        "realistic_solution": "Tensor parallel splits **weight matrices**\n\nMegatron"
    }
    assert item["note_link"] == {
        "card": "c1",
        "type": "Cloze",
        "text": "Tensor parallel splits {{c1::weight matrices}}",
        "extra": "Megatron",
    }


def test_read_apkg_skips_empty_front_and_refuses_media_that_is_not_what_it_claims(
    old_apkg: Path,
) -> None:
    source = read_apkg(old_apkg)

    assert [item.key for item in source.items] == ["g-one", "g-two", "g-three#c1", "g-five"]
    assert any(n.skipped and "empty front" in n.message for n in source.notes)
    assert any(
        n.message.startswith("media file 'fig1.png' is not an accepted image or sound")
        for n in source.notes
    )
    assert source.media_files == {}
    media_item = next(item for item in source.items if item.key == "g-five")
    assert media_item.data["question"] == "Diagram"
    assert media_item.notes[0].message == "refers to media not imported: fig1.png, ring.mp3"
    assert source.deck is None  # notes sit in two decks


def test_read_apkg_reads_a_genanki_package(tmp_path: Path) -> None:
    model = genanki.Model(
        1_607_392_319,
        "Simple",
        fields=[{"name": "Question"}, {"name": "Answer"}],
        templates=[{"name": "Card 1", "qfmt": "{{Question}}", "afmt": "{{Answer}}"}],
    )
    deck = genanki.Deck(2_059_400_110, "Interview::Networking")
    deck.add_note(
        genanki.Note(
            model=model,
            fields=["NVLink &amp; PCIe?", "<ul><li>a</li><li>b</li></ul>"],
            guid="abc123",
            tags=["net"],
        )
    )
    out = tmp_path / "genanki.apkg"
    genanki.Package(deck).write_to_file(str(out))

    source = read_apkg(out)

    assert [(i.key, i.data) for i in source.items] == [
        (
            "abc123",
            {
                "format": "flashcard",
                "question": "NVLink & PCIe?",
                "details": {"realistic_solution": "- a\n- b"},
                "tags": ["net"],
                "deck": "Interview::Networking",
            },
        )
    ]
    assert source.deck == "Interview::Networking"


def test_read_apkg_rejects_zip_without_collection(tmp_path: Path) -> None:
    path = zip_package(tmp_path / "empty.apkg", {"readme.txt": b"hi"})

    with pytest.raises(ImportFailed) as caught:
        read_apkg(path)

    assert str(caught.value) == (
        "'empty.apkg' holds no Anki collection (collection.anki21b or collection.anki21 or "
        "collection.anki2); export the deck again from Anki as a deck package (.apkg) or a "
        "collection package (.colpkg)"
    )


def test_read_apkg_rejects_collection_that_is_not_sqlite(tmp_path: Path) -> None:
    path = zip_package(tmp_path / "bad.apkg", {"collection.anki2": b"plain text"})

    with pytest.raises(ImportFailed, match="collection.anki2 is not an SQLite collection"):
        read_apkg(path)


def test_read_apkg_rejects_sqlite_that_is_not_a_collection(tmp_path: Path) -> None:
    db = tmp_path / "other.sqlite"
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE things (x)")
    conn.close()
    path = zip_package(tmp_path / "other.apkg", {"collection.anki2": db.read_bytes()})

    with pytest.raises(ImportFailed) as caught:
        read_apkg(path)

    assert str(caught.value) == (
        "'other.apkg': collection.anki2 has no notes and cards tables (not an Anki collection); "
        "export the deck again from Anki"
    )


def test_read_apkg_keeps_id_of_notes_sysdrill_exported(tmp_path: Path) -> None:
    model = genanki.Model(
        1_111_111_111,
        "sysdrill flashcard",
        fields=[{"name": "Front"}, {"name": "Back"}, {"name": "Id"}],
        templates=[{"name": "Card", "qfmt": "{{Front}}", "afmt": "{{Back}}"}],
    )
    deck = genanki.Deck(1_111_111_112, "sysdrill")
    deck.add_note(genanki.Note(model=model, fields=["F", "B", "mem-0001"], guid="x1"))
    out = tmp_path / "own.apkg"
    genanki.Package(deck).write_to_file(str(out))

    (item,) = read_apkg(out).items

    assert item.preferred_id == "mem-0001"
    assert item.data["question"] == "F"
    assert item.data["details"] == {"realistic_solution": "B"}


def test_read_apkg_never_runs_triggers_or_views_from_the_file(tmp_path: Path) -> None:
    collection = tmp_path / "trap.sqlite"
    build_old_collection(collection)
    with sqlite3.connect(collection) as conn:
        conn.execute("CREATE TABLE log (x)")
        conn.execute(
            "CREATE TRIGGER trap AFTER UPDATE ON notes BEGIN INSERT INTO log VALUES (1); END"
        )
    conn.close()
    path = zip_package(tmp_path / "trap.apkg", {"collection.anki2": collection.read_bytes()})

    source = read_apkg(path)

    assert len(source.items) == 4
    # The package on disk is unchanged: the collection was read from a copy, read-only.
    with zipfile.ZipFile(path) as archive:
        assert archive.read("collection.anki2") == collection.read_bytes()


PNG = b"\x89PNG\r\n\x1a\n" + bytes(24)


def test_an_empty_colpkg_is_one_clear_error(tmp_path: Path) -> None:
    collection = tmp_path / "empty.sqlite"
    build_new_collection(collection)
    with sqlite3.connect(collection) as conn:
        conn.execute("DELETE FROM notes")
        conn.execute("DELETE FROM cards")
    conn.close()
    compressed = zstandard.ZstdCompressor().compress(collection.read_bytes())
    path = zip_package(
        tmp_path / "profile.colpkg",
        {"collection.anki2": b"stub", "collection.anki21b": compressed, "media": b""},
    )

    with pytest.raises(ImportFailed) as caught:
        read_apkg(path)

    assert str(caught.value) == (
        "'profile.colpkg' is an Anki collection with no notes; nothing to import. In Anki, "
        "switch to the profile that holds your decks (File > Switch Profile) and export it "
        "again, or export a deck as .apkg"
    )


def test_an_empty_zip_named_colpkg_says_it_is_empty(tmp_path: Path) -> None:
    path = zip_package(tmp_path / "nothing.colpkg", {})

    with pytest.raises(ImportFailed, match="^'nothing.colpkg' is an empty zip archive"):
        read_apkg(path)


@pytest.mark.parametrize("build", [build_old_collection, build_new_collection])
def test_a_bare_collection_anki2_is_read_as_a_collection_with_its_media(
    tmp_path: Path, build: object
) -> None:
    from sysdrill.interop.detect import detect_format

    profile = tmp_path / "User 1"
    profile.mkdir()
    collection = profile / "collection.anki2"
    build(collection)  # type: ignore[operator]
    with sqlite3.connect(collection) as conn:
        conn.execute(
            "UPDATE notes SET flds = flds || '<img src=\"fig%201.png\">' WHERE guid = 'g-one'"
        )
    conn.close()
    (profile / "collection.media").mkdir()
    (profile / "collection.media" / "fig 1.png").write_bytes(PNG)

    source = read_apkg(collection)

    assert detect_format(collection) == "apkg"
    one = next(item for item in source.items if item.key == "g-one")
    (stored,) = source.media_files
    assert one.data["details"]["realistic_solution"].endswith(f"![](media/{stored})")
    assert list(source.media_files.values()) == [PNG]
    assert source.notes[0].message == (
        "read 'collection.anki2' as an Anki collection; its media from the collection.media "
        "folder beside it"
    )

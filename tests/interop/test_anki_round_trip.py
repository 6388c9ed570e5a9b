"""Issue 31: a learner brings an Anki collection to sysdrill, studies, and goes back.

The collection is built with the official ``anki`` package
(``conftest.build_round_trip_collection``: Basic, a reversed type with an IPA
field, Cloze with hints, a five-field two-template type, suspended, buried and
reviewed cards, media), exported to ``.apkg``, imported with ``sysdrill
import``, studied with ``sysdrill practice``, one item's YAML edited, exported
with ``sysdrill export --format apkg`` and imported by ``anki`` into the
collection it came from.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import yaml
from tests.interop.conftest import ROUND_TRIP_FRONTS, build_round_trip_collection

try:
    import anki.collection as anki_collection
except ImportError:  # pragma: no cover - depends on the environment
    if os.environ.get("CI"):
        raise
    pytest.skip(
        "the anki package is not installed (pip install -e .[test-anki])", allow_module_level=True
    )

pytestmark = pytest.mark.anki

NOW = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
EDITED_ANSWER = "Stacked DRAM beside the GPU"


@pytest.fixture
def anki_deck(tmp_path: Path) -> tuple[Path, Path]:
    """The learner's collection (closed) and the package it exported."""
    return build_round_trip_collection(tmp_path / "anki")


def _snapshot(col: Any) -> dict[str, Any]:
    """Everything the round trip must keep: notes, note types, cards, decks, review log."""
    notes = {}
    for nid in col.find_notes(""):
        note = col.get_note(nid)
        notes[note.guid] = {
            "mid": note.mid,
            "fields": list(note.fields),
            "mod": note.mod,
            "tags": sorted(note.tags),
        }
    note_types = {
        kind["id"]: (
            kind["name"],
            [f["name"] for f in kind["flds"]],
            [(t["name"], t["qfmt"], t["afmt"]) for t in kind["tmpls"]],
            kind["css"],
            kind["type"],
        )
        for kind in col.models.all()
    }
    cards = {
        (guid, ord_): rest
        for guid, ord_, *rest in col.db.all(
            "SELECT notes.guid, cards.ord, decks.name, cards.type, cards.queue, cards.due, "
            "cards.ivl, cards.factor, cards.reps, cards.lapses FROM cards "
            "JOIN notes ON notes.id = cards.nid JOIN decks ON decks.id = cards.did"
        )
    }
    return {
        "notes": notes,
        "note_types": note_types,
        "cards": cards,
        "decks": sorted(d.name for d in col.decks.all_names_and_ids()),
        "revlog": col.db.scalar("SELECT COUNT(*) FROM revlog"),
    }


def _import(col: Any, package: Path, *, with_scheduling: bool) -> Any:
    request = anki_collection.ImportAnkiPackageRequest(
        package_path=str(package),
        options=anki_collection.ImportAnkiPackageOptions(with_scheduling=with_scheduling),
    )
    return col.import_anki_package(request).log


def _item_file(vault: Path, text: str) -> Path:
    return next(p for p in (vault / "questions").rglob("*.yaml") if text in p.read_text("utf-8"))


def _edit_answer(vault: Path) -> None:
    """Edit the first Basic note's answer in its YAML, as an author would."""
    path = _item_file(vault, ROUND_TRIP_FRONTS["basic"])
    text = path.read_text("utf-8")
    # The answer only: Anki's field values kept further down stay as they were.
    path.write_text(text.replace("High-bandwidth **memory**", EDITED_ANSWER, 1), encoding="utf-8")
    # A minute later than anything Anki stamped while the test built the collection.
    edited_at = datetime.now(UTC).timestamp() + 60
    os.utime(path, (edited_at, edited_at))


def test_export_after_study_and_an_edit_updates_the_original_collection_in_place(
    run_cli: Any, anki_deck: tuple[Path, Path], tmp_path: Path
) -> None:
    collection, package = anki_deck
    vault, out = tmp_path / "vault", tmp_path / "back.apkg"
    db = f"sqlite:///{tmp_path / 'study.db'}"
    assert run_cli("db", "upgrade", "--db", db).exit_code == 0
    imported = run_cli(
        "import", str(package), "--into", str(vault), "--with-scheduling", "--db", db, "-q"
    )
    assert imported.exit_code == 0, imported.stderr
    studied = run_cli("practice", "--vault", str(vault), "--db", db, "--limit", "2", input="4\n4\n")
    assert studied.exit_code == 0, studied.stderr
    assert "Recorded:" in studied.stdout
    _edit_answer(vault)
    exported = run_cli(
        "export", str(vault), "--out", str(out), "--format", "apkg", "--with-scheduling",
        "--db", db, "-q",
    )  # fmt: skip
    assert exported.exit_code == 0, exported.stderr

    col = anki_collection.Collection(str(collection))
    try:
        before = _snapshot(col)
        log = _import(col, out, with_scheduling=True)
        after = _snapshot(col)
    finally:
        col.close()

    # Nothing added, nothing in conflict: the edited note updated, the others left alone.
    assert (len(log.new), len(log.updated), len(log.duplicate), len(log.conflicting)) == (
        0,
        1,
        6,
        0,
    )
    assert len(after["notes"]) == len(before["notes"]) == 7
    edited_guid = next(
        guid for guid, note in before["notes"].items() if note["fields"][0] == "What is HBM?"
    )
    edited = after["notes"].pop(edited_guid)
    original = before["notes"].pop(edited_guid)
    assert edited["fields"] == ["What is HBM?", f"<p>{EDITED_ANSWER}</p>"]
    assert edited["mid"] == original["mid"]
    assert edited["mod"] > original["mod"]
    # Every other note, every field, as it was; note types, decks untouched.
    assert after["notes"] == before["notes"]
    assert after["note_types"] == before["note_types"]
    assert after["decks"] == before["decks"]
    # Scheduling and suspension kept: every card as it was (10 of them), no review
    # log entry added.
    assert len(after["cards"]) == 10
    assert after["cards"] == before["cards"]
    assert after["revlog"] == before["revlog"]
    assert sorted(card[2] for card in after["cards"].values()).count(-1) == 2  # suspended
    assert sorted(card[2] for card in after["cards"].values()).count(-3) == 1  # buried


def test_export_recreates_notes_note_types_and_suspension_in_a_new_collection(
    anki_deck: tuple[Path, Path], tmp_path: Path
) -> None:
    from sysdrill.interop.export import export_vault
    from sysdrill.interop.importer import import_source

    _, package = anki_deck
    vault, out = tmp_path / "vault", tmp_path / "back.apkg"
    import_source(package, into=vault, now=NOW, audit=False)
    _edit_answer(vault)
    export_vault(vault, format="apkg", out=out, now=NOW)

    snapshots = []
    for name, source in (("from-anki", package), ("from-sysdrill", out)):
        (tmp_path / name).mkdir()
        col = anki_collection.Collection(str(tmp_path / name / "collection.anki2"))
        try:
            _import(col, source, with_scheduling=True)
            snapshots.append(_snapshot(col))
            media = sorted(p.name for p in Path(col.media.dir()).iterdir() if p.is_file())
            assert media == ["kanji.png"]
        finally:
            col.close()
    theirs, ours = snapshots

    edited = next(g for g, n in theirs["notes"].items() if n["fields"][0] == "What is HBM?")
    assert ours["notes"][edited]["fields"][1] == f"<p>{EDITED_ANSWER}</p>"
    for notes in (theirs["notes"], ours["notes"]):
        del notes[edited]
        for note in notes.values():
            del note["mod"]
    # Same notes (GUIDs), note types (id, fields, templates, CSS), every field.
    assert ours["notes"] == theirs["notes"]

    def used(snapshot: dict[str, Any]) -> dict[int, Any]:
        mids = {note["mid"] for note in snapshot["notes"].values()}
        return {mid: kind for mid, kind in snapshot["note_types"].items() if mid in mids}

    assert used(ours) == used(theirs)
    assert ours["decks"] == theirs["decks"]
    # Same cards in the same decks, suspended and buried ones so again.
    assert {key: (c[0], c[2]) for key, c in ours["cards"].items() if c[2] < 0} == {
        key: (c[0], c[2]) for key, c in theirs["cards"].items() if c[2] < 0
    }
    assert set(ours["cards"]) == set(theirs["cards"])


def test_reimporting_the_original_package_after_the_round_trip_changes_nothing(
    anki_deck: tuple[Path, Path], tmp_path: Path
) -> None:
    from sysdrill.interop.importer import import_source

    _, package = anki_deck
    vault = tmp_path / "vault"
    import_source(package, into=vault, now=NOW, audit=False)

    again = import_source(package, into=vault, now=NOW, audit=False)

    assert len(again.unchanged) == 10


def test_every_field_of_every_note_type_is_kept_in_the_items(
    anki_deck: tuple[Path, Path], tmp_path: Path
) -> None:
    from sysdrill.interop.importer import import_source

    _, package = anki_deck
    vault = tmp_path / "vault"
    import_source(package, into=vault, now=NOW, audit=False)
    items = {
        raw["source"]["key"]: raw
        for raw in (
            yaml.safe_load(p.read_text("utf-8")) for p in (vault / "questions").rglob("*.yaml")
        )
    }

    reverse = next(raw for key, raw in items.items() if raw["question"] == "dog")
    # The reverse card of the reversed type shows the IPA field under its answer.
    assert reverse["details"]["realistic_solution"] == "犬\n\n**IPA:** [inu]"
    assert reverse["source"]["anki"]["values"] == ["犬", "dog", "[inu]"]
    assert reverse["source"]["anki"]["note_type"]["fields"] == {
        "Front": "question",
        "Back": "answer",
        "IPA": "extra",
    }
    assert reverse["source"]["anki"]["suspended"] is True
    kanji = next(raw for raw in items.values() if raw["question"] == "water")
    assert kanji["source"]["anki"]["values"] == ["水", "water", "mizu", "水を飲む", "radical 85"]
    assert kanji["source"]["anki"]["buried"] is True
    assert kanji["source"]["anki"]["card"] == 1
    assert kanji["source"]["anki"]["note_type"]["css"].startswith(".k { font-size: 48px; }")
    cloze = next(raw for key, raw in items.items() if key.endswith("#c1"))
    assert cloze["question"] == "[library] runs all-reduce"
    assert cloze["source"]["anki"]["note_type"]["cloze"] is True
    image = next(raw for raw in items.values() if raw["question"] == "Which kanji?")
    stored = image["details"]["realistic_solution"].removeprefix("![](media/").removesuffix(")")
    assert image["source"]["anki"]["media"] == {"kanji.png": stored}


def test_a_review_card_without_graded_reviews_keeps_its_interval_and_due(
    anki_deck: tuple[Path, Path], tmp_path: Path
) -> None:
    from sysdrill.app.anki_history import anki_schedule_of, seed_anki_history
    from sysdrill.interop.importer import import_source
    from sysdrill.storage.memory import MemoryStudyStore
    from sysdrill.study.user_state import StudyScope, VaultId

    _, package = anki_deck
    report = import_source(package, into=tmp_path / "vault", now=NOW, with_scheduling=True)
    store = MemoryStudyStore()
    user = StudyScope(store.ensure_user("local", now=NOW), VaultId("vault"))
    seed_anki_history(store, user, report.scheduling, now=NOW)

    cloze = next(o.id for o in report.outcomes if o.key.endswith("#c1"))
    assert cloze is not None
    history = report.scheduling[cloze]
    assert (history.card_type, history.interval_days, history.reviews) == (2, 9.0, [])
    kept = anki_schedule_of(store, user)[cloze]
    assert (kept.card_type, kept.due) == (2, history.due)


def test_import_with_scheduling_into_a_new_sqlite_database_creates_it(
    run_cli: Any, anki_deck: tuple[Path, Path], tmp_path: Path
) -> None:
    _, package = anki_deck
    db_file = tmp_path / "study.db"  # a new file (its folder must exist: docs/study.md)

    result = run_cli(
        "import", str(package), "--into", str(tmp_path / "vault"), "--with-scheduling",
        "--db", f"sqlite:///{db_file}", "-q",
    )  # fmt: skip

    assert result.exit_code == 0, result.stderr
    assert db_file.is_file()


def test_a_failing_seed_leaves_no_vault_behind(
    anki_deck: tuple[Path, Path], tmp_path: Path
) -> None:
    from sysdrill.errors import StorageUnavailable
    from sysdrill.interop.importer import import_source

    _, package = anki_deck
    vault = tmp_path / "vault"

    def seed(report: Any) -> None:
        assert (vault / "vault.yaml").is_file() and report.scheduling
        raise StorageUnavailable("the study database is locked")

    with pytest.raises(StorageUnavailable):
        import_source(
            package, into=vault, now=NOW, audit=False, with_scheduling=True, on_written=seed
        )

    assert not vault.exists()


def test_an_item_made_here_is_added_and_nothing_else(
    anki_deck: tuple[Path, Path], tmp_path: Path
) -> None:
    from sysdrill.interop.export import export_vault
    from sysdrill.interop.importer import import_source

    collection, package = anki_deck
    vault, out = tmp_path / "vault", tmp_path / "back.apkg"
    import_source(package, into=vault, now=NOW, audit=False)
    made_here = {
        "id": "global-flashcard-0100",
        "format": "flashcard",
        "deck": "languages::日本語",
        "question": "What is FSDP?",
        "details": {"realistic_solution": "Fully sharded data parallel."},
    }
    (vault / "questions" / "global-flashcard-0100.yaml").write_text(
        yaml.safe_dump(made_here, allow_unicode=True), encoding="utf-8"
    )
    export_vault(vault, format="apkg", out=out, now=NOW)

    col = anki_collection.Collection(str(collection))
    try:
        before = _snapshot(col)
        log = _import(col, out, with_scheduling=False)
        after = _snapshot(col)
    finally:
        col.close()

    assert (len(log.new), len(log.updated), len(log.conflicting)) == (1, 0, 0)
    added = set(after["notes"]) - set(before["notes"])
    assert len(added) == 1
    assert after["notes"][added.pop()]["fields"][0] == "<p>What is FSDP?</p>"
    assert {g: n for g, n in after["notes"].items() if g in before["notes"]} == before["notes"]

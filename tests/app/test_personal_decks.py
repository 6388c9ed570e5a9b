"""Personal decks: import a file into a deck of one's own, list it, delete it."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from sysdrill.app import personal_decks
from sysdrill.app.interop import import_items
from sysdrill.app.personal_decks import (
    delete_personal_deck,
    import_personal_deck,
    list_personal_decks,
)
from sysdrill.app.study_vault import StudyVault, open_study_vault
from sysdrill.content.sample import sample_vault_path
from sysdrill.errors import DeckNotFound, HostileInput, ImportFailed
from sysdrill.storage.personal_store import PersonalDeckStore

NOW = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)
CARDS = "Front,Back\nWhat is HBM?,Stacked DRAM\nWhat is NVLink?,A GPU link\n"


@pytest.fixture
def db_url(personal_db_url: str) -> str:
    return personal_db_url


@pytest.fixture
def shared(sample_shared: StudyVault) -> StudyVault:
    return sample_shared


def _file(tmp_path: Path, text: str = CARDS, name: str = "gpu cards.csv") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_an_import_stores_a_deck_named_after_the_file(
    tmp_path: Path, db_url: str, shared: StudyVault
) -> None:
    done = import_personal_deck(_file(tmp_path), db_url=db_url, user="ann", shared=shared, now=NOW)
    assert done.to_dict() == {
        "deck": {
            "name": "gpu-cards",
            "title": "gpu cards",
            "source_name": "gpu cards.csv",
            "format": "csv",
            "item_count": 2,
            "imported_at": "2026-11-25T12:00:00+00:00",
        },
        "renamed": {},
        "removed": [],
        "skipped": [],
        "notes": [],
    }
    assert [d.name for d in list_personal_decks(db_url, user="ann")] == ["gpu-cards"]
    assert list_personal_decks(db_url, user="bob") == []
    # Nothing went into the shared vault's folder.
    assert open_study_vault(sample_vault_path()).by_id.keys() == shared.by_id.keys()


def test_ids_another_of_my_decks_uses_are_renamed(
    tmp_path: Path, db_url: str, shared: StudyVault
) -> None:
    source = _file(tmp_path)
    import_personal_deck(source, db_url=db_url, user="ann", shared=shared, title="One", now=NOW)
    again = import_personal_deck(
        source, db_url=db_url, user="ann", shared=shared, title="Two", now=NOW
    )
    assert again.renamed == {
        "global-flashcard-0001": "global-flashcard-0001-p1",
        "global-flashcard-0002": "global-flashcard-0002-p1",
    }
    with PersonalDeckStore(db_url) as store:
        assert len(store.item_ids("ann")) == 4


def test_ids_the_shared_vault_uses_are_renamed(tmp_path: Path, db_url: str) -> None:
    vault = tmp_path / "shared"
    import_items(_file(tmp_path), into=vault, audit=False, now=NOW)
    shared = open_study_vault(vault)
    assert "global-flashcard-0001" in shared.by_id
    done = import_personal_deck(
        _file(tmp_path), db_url=db_url, user="ann", shared=shared, title="Mine", now=NOW
    )
    assert done.renamed["global-flashcard-0001"] == "global-flashcard-0001-p1"


def test_a_deck_name_the_shared_vault_has_is_refused(
    tmp_path: Path, db_url: str, shared: StudyVault
) -> None:
    with pytest.raises(ImportFailed, match="shared vault already has a deck named"):
        import_personal_deck(
            _file(tmp_path),
            db_url=db_url,
            user="ann",
            shared=shared,
            title="sample-fundamentals",
            now=NOW,
        )
    assert list_personal_decks(db_url, user="ann") == []


def test_another_file_making_a_deck_of_the_same_name_is_refused_with_a_free_title(
    tmp_path: Path, db_url: str, shared: StudyVault
) -> None:
    import_personal_deck(_file(tmp_path), db_url=db_url, user="ann", shared=shared, now=NOW)
    other = _file(tmp_path, name="other.csv")
    with pytest.raises(ImportFailed) as caught:
        import_personal_deck(
            other, db_url=db_url, user="ann", shared=shared, title="gpu cards", now=NOW
        )
    assert str(caught.value) == (
        "you already have a personal deck named 'gpu-cards', imported from 'gpu cards.csv'; "
        "choose another deck title (such as 'gpu cards 2') or delete that deck first"
    )
    done = import_personal_deck(
        other, db_url=db_url, user="ann", shared=shared, title="gpu cards 2", now=NOW
    )
    assert done.deck.name == "gpu-cards-2"
    # Another learner may use the name.
    import_personal_deck(
        other, db_url=db_url, user="bob", shared=shared, title="gpu cards", now=NOW
    )


def test_an_unreadable_file_stores_nothing(tmp_path: Path, db_url: str, shared: StudyVault) -> None:
    bad = _file(tmp_path, "\x00\x01 not a deck", name="junk.apkg")
    with pytest.raises(ImportFailed) as caught:
        import_personal_deck(bad, db_url=db_url, user="ann", shared=shared, now=NOW)
    assert "\n" not in str(caught.value)
    with PersonalDeckStore(db_url) as store:
        assert store.deck_version("ann") == 0


def test_a_deck_over_the_item_limit_stores_nothing(
    tmp_path: Path, db_url: str, shared: StudyVault, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(personal_decks, "MAX_DECK_ITEMS", 1)
    with pytest.raises(HostileInput, match="at most 1, so split the file"):
        import_personal_deck(_file(tmp_path), db_url=db_url, user="ann", shared=shared, now=NOW)
    assert list_personal_decks(db_url, user="ann") == []


def test_a_learner_past_the_deck_limit_is_refused(
    tmp_path: Path, db_url: str, shared: StudyVault, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(personal_decks, "MAX_DECKS_PER_LEARNER", 1)
    source = _file(tmp_path)
    import_personal_deck(source, db_url=db_url, user="ann", shared=shared, now=NOW)
    with pytest.raises(ImportFailed, match="delete one first"):
        import_personal_deck(source, db_url=db_url, user="ann", shared=shared, title="B", now=NOW)


def test_deleting_only_touches_my_own_deck(tmp_path: Path, db_url: str, shared: StudyVault) -> None:
    source = _file(tmp_path)
    import_personal_deck(source, db_url=db_url, user="ann", shared=shared, now=NOW)
    import_personal_deck(source, db_url=db_url, user="bob", shared=shared, now=NOW)
    delete_personal_deck(db_url, user="ann", name="gpu-cards")
    assert list_personal_decks(db_url, user="ann") == []
    with pytest.raises(DeckNotFound, match="no personal deck named 'gpu-cards'"):
        delete_personal_deck(db_url, user="ann", name="gpu-cards")
    assert [d.name for d in list_personal_decks(db_url, user="bob")] == ["gpu-cards"]


def test_importing_the_file_again_updates_matched_items_in_place(
    tmp_path: Path, db_url: str, shared: StudyVault
) -> None:
    first = import_personal_deck(_file(tmp_path), db_url=db_url, user="ann", shared=shared, now=NOW)
    fixed = _file(tmp_path, "Front,Back\nWhat is HBM?,Stacked DRAM\nWhat is NVSwitch?,A fabric\n")
    later = NOW.replace(hour=13)
    preview = import_personal_deck(
        fixed, db_url=db_url, user="ann", shared=shared, now=later, dry_run=True
    )
    actions = {o.id: o.action.value for o in preview.report.outcomes}
    assert actions == {
        "global-flashcard-0001": "unchanged",
        "global-flashcard-0002-p1": "added",
    }
    assert preview.removed == ["global-flashcard-0002"]
    assert list_personal_decks(db_url, user="ann") == [first.deck]
    done = import_personal_deck(fixed, db_url=db_url, user="ann", shared=shared, now=later)
    assert {o.id: o.action.value for o in done.report.outcomes} == actions
    [deck] = list_personal_decks(db_url, user="ann")
    assert (deck.item_count, deck.imported_at) == (2, later)
    with PersonalDeckStore(db_url) as store:
        _, _, rows = store.load_items("ann")
    kept = json.loads(rows[0].item_json)
    # The unchanged item is the one stored first, import time and all.
    assert (rows[0].item_id, kept["created_at"]) == ("global-flashcard-0001", NOW.isoformat())
    assert "title" not in kept

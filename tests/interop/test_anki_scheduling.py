"""Scheduling history of Anki packages: read with --with-scheduling, seeded into study state.

The package is exported by the official ``anki`` package (current format:
``collection.anki21b``, zstd media index) after real reviews; see
``conftest.build_history_package``.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from tests.interop.conftest import HISTORY_FRONTS, build_history_package

from sysdrill.app.anki_history import history_records, seed_anki_history
from sysdrill.interop.anki_scheduling import AnkiCardHistory, AnkiReview
from sysdrill.interop.formats.apkg import read_apkg
from sysdrill.interop.importer import import_source
from sysdrill.storage.memory import MemoryStudyStore
from sysdrill.study.card_state import CardState
from sysdrill.study.user_state import UserId

NOW = datetime(2026, 11, 25, 8, 0, tzinfo=UTC)

try:
    import anki.collection  # noqa: F401
except ImportError:  # pragma: no cover - depends on the environment
    if os.environ.get("CI"):
        raise
    HAVE_ANKI = False
else:
    HAVE_ANKI = True


@pytest.fixture
def history_apkg(tmp_path: Path) -> Path:
    return build_history_package(tmp_path / "anki")


@pytest.mark.anki
@pytest.mark.skipif(not HAVE_ANKI, reason="the anki package is not installed")
def test_card_state_review_log_and_fsrs_memory_are_read(history_apkg: Path) -> None:
    source = read_apkg(history_apkg, with_scheduling=True)

    fronts = {item.key: item.data["question"] for item in source.items}
    assert sorted(fronts.values()) == sorted(HISTORY_FRONTS)
    studied = {fronts[key]: history for key, history in source.scheduling.items()}
    assert sum(len(h.reviews) for h in studied.values()) == 4
    assert [len(studied[front].reviews) for front in HISTORY_FRONTS[:2]] == [2, 2]
    assert studied[HISTORY_FRONTS[2]].reviews == []
    assert all(studied[front].stability_days for front in HISTORY_FRONTS[:2])
    assert {studied[front].card_type for front in HISTORY_FRONTS[:2]} <= {1, 2, 3}
    # The image-only answer and its file came along from the zstd media of anki21b.
    board = next(item for item in source.items if item.data["question"] == HISTORY_FRONTS[1])
    assert board.data["details"]["realistic_solution"].startswith("![](media/")
    assert len(source.media_files) == 1


@pytest.mark.anki
@pytest.mark.skipif(not HAVE_ANKI, reason="the anki package is not installed")
def test_import_seeds_cards_and_reviews_once(history_apkg: Path, tmp_path: Path) -> None:
    report = import_source(
        history_apkg, into=tmp_path / "vault", now=NOW, audit=False, with_scheduling=True
    )
    store = MemoryStudyStore()
    user = store.ensure_user("local", now=NOW)

    first = seed_anki_history(store, user, report.scheduling)
    again = seed_anki_history(store, user, report.scheduling)

    assert first == (2, 4)
    assert again == (0, 0)
    cards = {card.item_id: card for card in store.iter_cards(user)}
    assert len(cards) == 2
    assert all(card.state is not CardState.NEW and not card.never_seen for card in cards.values())
    assert all(card.due is not None and card.stability_days for card in cards.values())
    reviews = list(store.iter_reviews(user))
    assert [r.graded_by for r in reviews] == ["imported"] * 4
    assert sorted(r.state_before for r in reviews).count(CardState.NEW) == 2


def test_sm2_history_gives_stability_from_interval_and_difficulty_from_ease() -> None:
    reviewed = datetime(2026, 11, 1, 9, 0, tzinfo=UTC)
    history = AnkiCardHistory(
        card_type=2,
        due=datetime(2026, 11, 13, tzinfo=UTC),
        interval_days=12.0,
        ease_permille=2500,
        reps=3,
        lapses=1,
        reviews=[
            AnkiReview(reviewed, 3, 0, 1.0, 0.0, 4000),
            AnkiReview(reviewed.replace(day=2), 1, 1, 0.0, 1.0, 6000),
            AnkiReview(reviewed.replace(day=2, hour=10), 3, 2, 12.0, 0.0, 3000),
        ],
    )

    card, reviews = history_records("global-flashcard-0001", history)

    assert (card.state, card.stability_days, card.difficulty) == (CardState.REVIEW, 12.0, 5.091)
    assert (card.reps, card.lapses, card.last_review) == (3, 1, reviewed.replace(day=2, hour=10))
    assert [r.state_before for r in reviews] == [
        CardState.NEW,
        CardState.REVIEW,
        CardState.RELEARNING,
    ]
    assert [r.first_of_day for r in reviews] == [True, True, False]
    assert [r.interval_before_days for r in reviews] == [None, 1.0, 0.0]


def test_with_scheduling_is_refused_for_formats_without_it(tmp_path: Path) -> None:
    from sysdrill.errors import UsageError

    source = tmp_path / "cards.csv"
    source.write_text("front,back\nq,a\n", encoding="utf-8")

    with pytest.raises(UsageError, match="--with-scheduling applies to Anki packages only"):
        import_source(source, into=tmp_path / "vault", now=NOW, with_scheduling=True)


def test_seeding_leaves_items_studied_here_alone() -> None:
    store = MemoryStudyStore()
    user: UserId = store.ensure_user("local", now=NOW)
    history = AnkiCardHistory(2, NOW, 3.0, 2500, 1, 0, reviews=[AnkiReview(NOW, 3, 0, 3.0, 0, 1)])
    seed_anki_history(store, user, {"a": history})

    assert seed_anki_history(store, user, {"a": history, "b": history}) == (1, 1)


@pytest.mark.anki
@pytest.mark.skipif(not HAVE_ANKI, reason="the anki package is not installed")
def test_reexport_with_scheduling_lets_anki_continue_with_the_same_notes_cards_and_media(
    history_apkg: Path, tmp_path: Path
) -> None:
    from tests.interop.conftest import import_with_anki

    from sysdrill.app.anki_history import anki_schedule_of
    from sysdrill.interop.export import export_vault

    vault = tmp_path / "vault"
    report = import_source(history_apkg, into=vault, now=NOW, audit=False, with_scheduling=True)
    store = MemoryStudyStore()
    user = store.ensure_user("local", now=NOW)
    seed_anki_history(store, user, report.scheduling)
    out = tmp_path / "out.apkg"
    export_vault(vault, format="apkg", out=out, now=NOW, scheduling=anki_schedule_of(store, user))

    def read(col: Any) -> tuple[int, int, int, list[int], int]:
        types = sorted(col.db.list("SELECT type FROM cards"))
        media = len([p for p in Path(col.media.dir()).iterdir() if p.is_file()])
        revlog = col.db.scalar("SELECT COUNT(*) FROM revlog")
        return col.note_count(), col.card_count(), revlog, types, media

    before = import_with_anki(history_apkg, tmp_path / "a", read, with_scheduling=True)
    after = import_with_anki(out, tmp_path / "b", read, with_scheduling=True)

    assert after[:3] == before[:3] == (3, 3, 4)
    # The studied cards are no longer new (the never-studied one is), and the image came back.
    assert after[3][0] == 0 and all(kind > 0 for kind in after[3][1:])
    assert after[4] == before[4] == 1


@pytest.mark.anki
@pytest.mark.skipif(not HAVE_ANKI, reason="the anki package is not installed")
def test_a_colpkg_is_read_as_the_whole_collection_with_every_deck(tmp_path: Path) -> None:
    from anki.collection import Collection

    col = Collection(str(tmp_path / "source.anki2"))
    try:
        basic = col.models.by_name("Basic")
        for deck_name, front in (("Systems::GPU", "HBM?"), ("Русский", "Память?")):
            note = col.new_note(basic)
            note["Front"], note["Back"] = front, "answer"
            col.add_note(note, col.decks.id(deck_name))
        package = tmp_path / "whole.colpkg"
        col.export_collection_package(str(package), include_media=True, legacy=False)
    finally:
        col.close()

    source = read_apkg(package, with_scheduling=True)

    assert {item.data["question"]: item.data["deck"] for item in source.items} == {
        "HBM?": "Systems::GPU",
        "Память?": "Русский",
    }
    assert {history.card_type for history in source.scheduling.values()} == {0}

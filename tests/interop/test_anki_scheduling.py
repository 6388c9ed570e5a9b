"""Scheduling history of Anki packages: read with --with-scheduling, seeded into study state.

The package is exported by the official ``anki`` package (current format:
``collection.anki21b``, zstd media index) after real reviews; see
``conftest.build_history_package``.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta
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
from sysdrill.study.user_state import StudyScope, VaultId

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
    user = StudyScope(store.ensure_user("local", now=NOW), VaultId("vault"))

    first = seed_anki_history(store, user, report.scheduling, now=NOW)
    again = seed_anki_history(store, user, report.scheduling, now=NOW)

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

    card, reviews = history_records("global-flashcard-0001", history, now=NOW)

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
    user = StudyScope(store.ensure_user("local", now=NOW), VaultId("vault"))
    history = AnkiCardHistory(2, NOW, 3.0, 2500, 1, 0, reviews=[AnkiReview(NOW, 3, 0, 3.0, 0, 1)])
    seed_anki_history(store, user, {"a": history}, now=NOW)

    assert seed_anki_history(store, user, {"a": history, "b": history}, now=NOW) == (1, 1)


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
    user = StudyScope(store.ensure_user("local", now=NOW), VaultId("vault"))
    seed_anki_history(store, user, report.scheduling, now=NOW)
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


def _scope(store: MemoryStudyStore) -> StudyScope:
    return StudyScope(store.ensure_user("local", now=NOW), VaultId("vault"))


def test_a_review_card_without_reviews_keeps_its_state_and_its_interval_goes_back() -> None:
    from sysdrill.app.anki_history import anki_schedule_of

    due = NOW + timedelta(days=5)
    history = AnkiCardHistory(card_type=2, due=due, interval_days=9.0, ease_permille=2500,
                              reps=0, lapses=0)  # fmt: skip
    store = MemoryStudyStore()
    scope = _scope(store)

    assert seed_anki_history(store, scope, {"a": history}, now=NOW) == (1, 0)

    card = store.get_card(scope, "a")
    assert card is not None
    assert (card.state, card.never_seen, card.due) == (CardState.REVIEW, False, due)
    assert (card.stability_days, card.difficulty) == (9.0, 5.091)
    assert card.last_review == due - timedelta(days=9)
    assert list(store.iter_reviews(scope)) == []
    back = anki_schedule_of(store, scope)["a"]
    assert (back.card_type, back.due, back.interval_days, back.reviews) == (2, due, 9.0, [])


def test_a_card_whose_due_date_was_moved_ahead_was_last_reviewed_no_later_than_the_import() -> None:
    history = AnkiCardHistory(2, NOW + timedelta(days=100), 3.0, 2500, 0, 0)

    card, reviews = history_records("a", history, now=NOW)

    assert (reviews, card.last_review, card.never_seen) == ([], NOW, False)


def test_a_review_card_without_ease_or_interval_gets_a_memory_fsrs_can_schedule() -> None:
    history = AnkiCardHistory(2, NOW, 0.0, 0, 0, 0)

    card, _ = history_records("a", history, now=NOW)

    assert (card.state, card.stability_days, card.difficulty) == (CardState.REVIEW, 1.0, 5.091)


def test_a_new_card_is_not_seeded() -> None:
    store = MemoryStudyStore()
    scope = _scope(store)

    seeded = seed_anki_history(store, scope, {"a": AnkiCardHistory(0, None, 0.0, 0, 0, 0)}, now=NOW)

    assert seeded == (0, 0)
    assert list(store.iter_cards(scope)) == []


def test_seeding_keeps_the_learners_own_cards_reviews_sessions_and_settings() -> None:
    from sysdrill.study.card_state import CardRecord
    from sysdrill.study.review_log import ReviewRecord
    from sysdrill.study.user_state import SessionRecord

    store = MemoryStudyStore()
    scope = _scope(store)
    store.put_settings(scope.user_id, {"daily_new_limit": 7})
    session = store.start_session(scope, SessionRecord("practice", NOW - timedelta(days=1)))
    mine = CardRecord("mine", CardState.REVIEW, None, 3.0, 5.0, NOW, NOW - timedelta(days=1),
                      reps=1, never_seen=False)  # fmt: skip
    review = ReviewRecord("mine", 3, "self", None, 1000, NOW - timedelta(days=1),
                          CardState.NEW, None, True, session_id=session)  # fmt: skip
    store.record_review(scope, mine, review)
    history = AnkiCardHistory(2, NOW, 3.0, 2500, 1, 0, reviews=[AnkiReview(NOW, 3, 0, 3.0, 0, 1)])

    assert seed_anki_history(store, scope, {"a": history}, now=NOW) == (1, 1)

    assert {card.item_id for card in store.iter_cards(scope)} == {"mine", "a"}
    assert store.get_card(scope, "mine") == mine
    sessions = store.list_sessions(scope)
    assert [s.kind for s in sessions] == ["practice"]
    logged = list(store.iter_reviews(scope))
    assert [(r.item_id, r.graded_by) for r in logged] == [("mine", "self"), ("a", "imported")]
    assert logged[0].session_id == sessions[0].session_id
    assert store.get_settings(scope.user_id) == {"daily_new_limit": 7}


def test_seeding_is_refused_while_a_session_is_in_progress_and_writes_nothing() -> None:
    from sysdrill.errors import ImportFailed
    from sysdrill.study.sessions.saved import SavedSession
    from sysdrill.study.user_state import SessionRecord

    store = MemoryStudyStore()
    scope = _scope(store)
    session = store.start_session(scope, SessionRecord("practice", NOW))
    saved = SavedSession(session, "practice", {}, ("q1",), started_at=NOW, updated_at=NOW)
    store.put_active_session(scope, saved)
    history = AnkiCardHistory(2, NOW, 3.0, 2500, 1, 0, reviews=[AnkiReview(NOW, 3, 0, 3.0, 0, 1)])

    with pytest.raises(ImportFailed, match="1 session\\(s\\) in progress in this vault"):
        seed_anki_history(store, scope, {"a": history}, now=NOW)

    assert list(store.iter_cards(scope)) == []
    assert store.list_active_sessions(scope) == [saved]

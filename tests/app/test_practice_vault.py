"""Practice from a catalogue: the items it loads plan the session the whole vault would."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from sysdrill.app import sessions as app
from sysdrill.app.practice_vault import open_practice_vault
from sysdrill.app.sessions import StartOptions
from sysdrill.app.study_vault import StudyVault
from sysdrill.content.loader import load_vault
from sysdrill.storage.memory import MemoryStudyStore
from sysdrill.study.filters import ItemFilter
from sysdrill.study.ratings import GradedBy, Rating
from sysdrill.study.service import StudyService
from sysdrill.study.sessions.state_machine import SessionKind
from sysdrill.study.user_state import VaultId

T0 = datetime(2026, 11, 1, 9, 0, tzinfo=UTC)
NOW = datetime(2026, 11, 21, 9, 0, tzinfo=UTC)
TRACKS = ("cloud", "edge", "mobile")
COUNT = 60
LEVELS = ("L1", "L2", "L3", "L4", "L5", "L6+")


def _write_vault(root: Path) -> Path:
    for n in range(COUNT):
        track = TRACKS[n % 3]
        status = "archived" if n % 11 == 5 else "published"
        folder = root / "questions" / track
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{track}-q{n:03d}.yaml").write_text(
            f"id: {track}-q{n:03d}\n"
            f"track: {track}\n"
            "format: flashcard\n"
            f"topic: topic-{n % 4}\n"
            f"level: {LEVELS[(COUNT - n) % len(LEVELS)]}\n"
            f"question: What is item {n}?\n"
            f"details:\n  realistic_solution: Answer {n}.\n"
            f"status: {status}\n"
            f"deck: deck-{n % 2}\n"
            f"tags: [t{n % 5}]\n",
            encoding="utf-8",
        )
    # A deck listing items out of vault order, and a chain across tracks.
    (root / "decks.yaml").write_text(
        "decks:\n- name: deck-1\n  items: [mobile-q050, cloud-q003, edge-q037]\n",
        encoding="utf-8",
    )
    # Teaching order differs from file order: topic-3 comes first, then topic-0,
    # and levels run against file order.
    (root / "taxonomy.yaml").write_text(
        "topics:\n"
        "- {id: topic-3, name: Three, area: networking, prerequisites: []}\n"
        "- {id: topic-0, name: Zero, area: networking, prerequisites: [topic-3]}\n"
        "- {id: topic-1, name: One, area: networking, prerequisites: [topic-0]}\n"
        "- {id: topic-2, name: Two, area: networking, prerequisites: [topic-1]}\n",
        encoding="utf-8",
    )
    (root / "chains.yaml").write_text(
        "chains:\n- id: c1\n  items: [cloud-q000, edge-q058, mobile-q059]\n", encoding="utf-8"
    )
    return root


def _study_history(study: StudyService, vault: StudyVault) -> None:
    """Reviews that leave items due, not yet due, and relearning, at several times."""
    for n, item in enumerate(vault.items[: COUNT // 2]):
        moment = T0 + timedelta(hours=n)
        rating = (Rating.GOOD, Rating.EASY, Rating.AGAIN, Rating.HARD)[n % 4]
        study.record_review(item.id, rating=rating, graded_by=GradedBy.SELF, now=moment)
        if n % 3 == 0:
            later = moment + timedelta(days=n % 7 + 1)
            study.record_review(item.id, rating=Rating.AGAIN, graded_by=GradedBy.SELF, now=later)


def _plan(study: StudyService, vault: StudyVault, options: StartOptions) -> tuple[str, ...]:
    view = app.start_session(study, vault, options, now=NOW)
    if view.session_id is None:
        return ()
    saved = study.store.get_active_session(study.scope, view.session_id)
    assert saved is not None
    return saved.item_ids


@pytest.fixture
def vault_root(tmp_path: Path) -> Path:
    return _write_vault(tmp_path / "vault")


FILTERS = [
    ItemFilter(),
    ItemFilter(deck="deck-1"),
    ItemFilter(track="edge"),  # type: ignore[arg-type]
    ItemFilter(topic="topic-2", tag="t1"),
]


@pytest.mark.parametrize("item_filter", FILTERS)
@pytest.mark.parametrize("limit", [1, 4, 20])
def test_the_catalogue_plans_the_session_the_whole_vault_plans(
    vault_root: Path, tmp_path: Path, item_filter: ItemFilter, limit: int
) -> None:
    whole = StudyVault.of(load_vault(vault_root))
    study = StudyService(MemoryStudyStore(), vault_id=whole.vault_id, now=T0)
    study.update_settings(new_per_day=3, reviews_per_day=5)
    _study_history(study, whole)
    cache = tmp_path / "cache"
    first = open_practice_vault(
        study, vault_root, item_filter=item_filter, limit=limit, now=NOW, cache_dir=cache
    )
    assert len(first.items) == len(whole.items)  # no catalogue yet: everything, then saved
    sparse = open_practice_vault(
        study, vault_root, item_filter=item_filter, limit=limit, now=NOW, cache_dir=cache
    )
    assert len(sparse.items) < len(whole.items)
    options = StartOptions(SessionKind.PRACTICE, item_filter, limit=limit)
    assert _plan(study, sparse, options) == _plan(study, whole, options)


def test_a_changed_vault_is_loaded_whole_again(vault_root: Path, tmp_path: Path) -> None:
    study = StudyService(MemoryStudyStore(), vault_id=VaultId("test"), now=T0)
    cache = tmp_path / "cache"
    options = {"item_filter": ItemFilter(), "limit": 3, "now": NOW, "cache_dir": cache}
    open_practice_vault(study, vault_root, **options)  # type: ignore[arg-type]
    (vault_root / "questions/cloud/cloud-new.yaml").write_text(
        "id: cloud-new\ntrack: cloud\nformat: flashcard\nquestion: New?\n"
        "details:\n  realistic_solution: Yes.\nstatus: published\n",
        encoding="utf-8",
    )
    again = open_practice_vault(study, vault_root, **options)  # type: ignore[arg-type]
    assert "cloud-new" in again.by_id
    assert len(again.items) == COUNT + 1


def test_deadline_mode_loads_the_whole_vault(vault_root: Path, tmp_path: Path) -> None:
    study = StudyService(MemoryStudyStore(), vault_id=VaultId("test"), now=T0)
    cache = tmp_path / "cache"
    options = {"item_filter": ItemFilter(), "limit": 3, "now": NOW, "cache_dir": cache}
    open_practice_vault(study, vault_root, **options)  # type: ignore[arg-type]
    study.set_setting("deadline", "2026-12-24")
    again = open_practice_vault(study, vault_root, **options)  # type: ignore[arg-type]
    assert len(again.items) == COUNT


def test_an_unknown_deck_loads_the_whole_vault_so_the_session_names_the_decks(
    vault_root: Path, tmp_path: Path
) -> None:
    study = StudyService(MemoryStudyStore(), vault_id=VaultId("test"), now=T0)
    cache = tmp_path / "cache"
    unknown = ItemFilter(deck="nope")
    for _ in range(2):
        loaded = open_practice_vault(
            study, vault_root, item_filter=unknown, limit=3, now=NOW, cache_dir=cache
        )
    assert len(loaded.items) == COUNT

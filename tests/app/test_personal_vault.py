"""The vault a learner studies: the shared vault, or it merged with their personal decks."""

from __future__ import annotations

import threading
from datetime import UTC, datetime
from pathlib import Path

import pytest

from sysdrill.app.interop import import_items
from sysdrill.app.personal_decks import delete_personal_deck, import_personal_deck
from sysdrill.app.personal_vault import PersonalVaultCache
from sysdrill.app.study_vault import StudyVault, open_study_vault
from sysdrill.content.sample import sample_vault_path

NOW = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)
CARDS = "Front,Back\nWhat is HBM?,Stacked DRAM\nWhat is NVLink?,A GPU link\n"
MINE = ["global-flashcard-0001", "global-flashcard-0002"]


@pytest.fixture
def db_url(personal_db_url: str) -> str:
    return personal_db_url


@pytest.fixture
def shared(sample_shared: StudyVault) -> StudyVault:
    return sample_shared


@pytest.fixture
def cards(tmp_path: Path) -> Path:
    path = tmp_path / "cards.csv"
    path.write_text(CARDS, encoding="utf-8")
    return path


def _import(cards: Path, db_url: str, shared: StudyVault, user: str, title: str = "GPU") -> None:
    import_personal_deck(cards, db_url=db_url, user=user, shared=shared, title=title, now=NOW)


def test_a_learner_without_decks_studies_the_shared_vault_object(
    db_url: str, shared: StudyVault
) -> None:
    cache = PersonalVaultCache()
    assert cache.studied_vault(shared, db_url=db_url, user="ann") is shared
    assert len(cache) == 0


def test_a_learner_with_decks_studies_the_shared_items_then_theirs(
    db_url: str, shared: StudyVault, cards: Path
) -> None:
    _import(cards, db_url, shared, "ann")
    cache = PersonalVaultCache()
    merged = cache.studied_vault(shared, db_url=db_url, user="ann")
    assert [i.id for i in merged.items] == [*(i.id for i in shared.items), *MINE]
    assert merged.decks[-1].name == "gpu" and merged.decks[-1].items == MINE
    assert merged.vault_id == shared.vault_id
    assert merged.by_id["global-flashcard-0001"].question == "What is HBM?"
    assert cache.personal_deck_names("ann", merged) == ("gpu",)
    # The shared vault is unchanged, and others still study it alone.
    assert "global-flashcard-0001" not in shared.by_id
    assert cache.studied_vault(shared, db_url=db_url, user="bob") is shared
    assert cache.personal_deck_names("bob", shared) == ()


def test_the_merged_vault_is_kept_until_the_deck_version_changes(
    db_url: str, shared: StudyVault, cards: Path
) -> None:
    _import(cards, db_url, shared, "ann")
    cache = PersonalVaultCache()
    first = cache.studied_vault(shared, db_url=db_url, user="ann")
    assert cache.studied_vault(shared, db_url=db_url, user="ann") is first
    # Another worker (the database alone tells this one) imports a second deck.
    _import(cards, db_url, shared, "ann", title="More")
    second = cache.studied_vault(shared, db_url=db_url, user="ann")
    assert second is not first and len(second.items) == len(first.items) + 2
    delete_personal_deck(db_url, user="ann", name="gpu")
    delete_personal_deck(db_url, user="ann", name="more")
    assert cache.studied_vault(shared, db_url=db_url, user="ann") is shared


def test_a_reloaded_shared_vault_is_merged_again(
    tmp_path: Path, db_url: str, shared: StudyVault, cards: Path
) -> None:
    _import(cards, db_url, shared, "ann")
    cache = PersonalVaultCache()
    first = cache.studied_vault(shared, db_url=db_url, user="ann")
    reloaded = open_study_vault(sample_vault_path(), cache_dir=tmp_path / "cache")
    _import(cards, db_url, shared, "bob")
    cache.studied_vault(shared, db_url=db_url, user="bob")
    assert len(cache) == 2
    again = cache.studied_vault(reloaded, db_url=db_url, user="ann")
    assert again is not first and again.items[0] is reloaded.items[0]
    # Bob's merge of the old vault is dropped with it.
    assert len(cache) == 1


def test_a_personal_item_whose_id_the_shared_vault_gained_is_left_out(
    tmp_path: Path, db_url: str, shared: StudyVault, cards: Path
) -> None:
    _import(cards, db_url, shared, "ann")
    vault = tmp_path / "grown"
    import_items(cards, into=vault, audit=False, now=NOW)
    grown = open_study_vault(vault)
    merged = PersonalVaultCache().studied_vault(grown, db_url=db_url, user="ann")
    assert [i.id for i in merged.items] == MINE
    assert merged.by_id["global-flashcard-0001"] is grown.by_id["global-flashcard-0001"]


def test_the_cache_keeps_at_most_its_bound_of_learners(
    db_url: str, shared: StudyVault, cards: Path
) -> None:
    for user in ("ann", "bob", "cy"):
        _import(cards, db_url, shared, user)
    cache = PersonalVaultCache(max_learners=2)
    for user in ("ann", "bob", "cy"):
        cache.studied_vault(shared, db_url=db_url, user=user)
    assert len(cache) == 2


def test_threads_asking_at_once_all_get_the_learners_items(
    db_url: str, shared: StudyVault, cards: Path
) -> None:
    _import(cards, db_url, shared, "ann")
    cache = PersonalVaultCache()
    found: list[list[str]] = []
    start = threading.Barrier(6)

    def ask() -> None:
        start.wait()
        vault = cache.studied_vault(shared, db_url=db_url, user="ann")
        found.append([i.id for i in vault.items[-2:]])

    threads = [threading.Thread(target=ask) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert found == [MINE] * 6


def test_the_deck_version_read_with_the_login_spares_a_query(
    db_url: str, shared: StudyVault, cards: Path
) -> None:
    from sysdrill.app.accounts import open_accounts

    with open_accounts(db_url) as accounts:
        accounts.add("ann", "a long enough password", now=NOW)
        login = accounts.login("ann", "a long enough password", address="10.0.0.1", now=NOW)
        before = accounts.account_for_token(login.token, now=NOW)
        _import(cards, db_url, shared, "ann")
        after = accounts.account_for_token(login.token, now=NOW)
    assert before is not None and before.deck_version == 0
    assert after is not None and after.deck_version == 1
    cache = PersonalVaultCache()
    # Version 0: the shared vault, without opening the database at all.
    unreachable = "postgresql+psycopg://nobody@127.0.0.1:1/none"
    assert cache.studied_vault(shared, db_url=unreachable, user="ann", version=0) is shared
    merged = cache.studied_vault(shared, db_url=db_url, user="ann", version=after.deck_version)
    assert [i.id for i in merged.items][-2:] == MINE
    # Kept under that version: served again without the database.
    again = cache.studied_vault(shared, db_url=unreachable, user="ann", version=1)
    assert again is merged


UNREACHABLE = "postgresql+psycopg://nobody@127.0.0.1:1/none"
"""A database that cannot answer: only a merged vault the cache kept is served with it."""


def test_the_cache_drops_the_least_recent_learner_to_stay_within_its_item_bound(
    db_url: str, shared: StudyVault, cards: Path
) -> None:
    from sysdrill.errors import StorageError

    for user in ("ann", "bob", "cy"):
        _import(cards, db_url, shared, user)
    # Two personal items each: four items hold two learners.
    cache = PersonalVaultCache(max_learners=10, max_items=4)
    for user in ("ann", "bob", "cy"):
        cache.studied_vault(shared, db_url=db_url, user=user)
    assert len(cache) == 2
    for user in ("bob", "cy"):
        kept = cache.studied_vault(shared, db_url=UNREACHABLE, user=user, version=1)
        assert [i.id for i in kept.items][-2:] == MINE
    with pytest.raises(StorageError):
        cache.studied_vault(shared, db_url=UNREACHABLE, user="ann", version=1)


def test_a_learner_whose_decks_pass_the_bound_is_served_but_not_kept(
    db_url: str, shared: StudyVault, cards: Path
) -> None:
    _import(cards, db_url, shared, "ann")
    cache = PersonalVaultCache(max_items=1)
    merged = cache.studied_vault(shared, db_url=db_url, user="ann")
    assert [i.id for i in merged.items][-2:] == MINE
    assert cache.personal_deck_names("ann", merged) == ("gpu",)
    assert len(cache) == 0

"""Personal deck rows: stored per learner, all or nothing, with a version per learner.

Runs on SQLite, and on PostgreSQL when SYSDRILL_TEST_POSTGRES_URL is set.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from sysdrill.errors import StorageConflict
from sysdrill.storage.personal_store import PersonalDeckRow, PersonalDeckStore, PersonalItemRow

NOW = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)


def _deck(name: str, count: int = 2) -> PersonalDeckRow:
    return PersonalDeckRow(
        name=name,
        title=name.title(),
        source_name=f"{name}.csv",
        format="csv",
        item_count=count,
        imported_at=NOW,
    )


def _items(*ids: str) -> list[tuple[str, str]]:
    return [(item_id, json.dumps({"id": item_id})) for item_id in ids]


def test_a_learner_without_decks_has_version_zero_and_nothing_listed(sql_url: str) -> None:
    with PersonalDeckStore(sql_url) as store:
        assert store.deck_version("nobody") == 0
        assert store.list_decks("nobody") == []
        assert store.item_ids("nobody") == set()
        assert store.load_items("nobody") == (0, [], [])


def test_adding_a_deck_stores_its_items_in_order_and_raises_the_version(sql_url: str) -> None:
    with PersonalDeckStore(sql_url) as store:
        assert store.add_deck("ann", _deck("gpu"), _items("b-2", "a-1"), now=NOW) == 1
        assert store.add_deck("ann", _deck("net", 1), _items("c-3"), now=NOW) == 2
        assert [d.name for d in store.list_decks("ann")] == ["gpu", "net"]
        assert store.list_decks("ann")[0] == _deck("gpu")
        assert store.item_ids("ann") == {"a-1", "b-2", "c-3"}
        version, decks, items = store.load_items("ann")
    assert version == 2
    assert [d.name for d in decks] == ["gpu", "net"]
    assert items == [
        PersonalItemRow("gpu", "b-2", '{"id": "b-2"}'),
        PersonalItemRow("gpu", "a-1", '{"id": "a-1"}'),
        PersonalItemRow("net", "c-3", '{"id": "c-3"}'),
    ]


def test_one_learners_decks_are_invisible_to_another(sql_url: str) -> None:
    with PersonalDeckStore(sql_url) as store:
        store.add_deck("ann", _deck("gpu"), _items("a-1"), now=NOW)
        store.add_deck("bob", _deck("gpu"), _items("a-1"), now=NOW)
        assert store.delete_deck("bob", "gpu") is True
        assert store.delete_deck("bob", "gpu") is False
        assert [d.name for d in store.list_decks("ann")] == ["gpu"]
        assert store.item_ids("ann") == {"a-1"}
        assert store.item_ids("bob") == set()
        assert (store.deck_version("ann"), store.deck_version("bob")) == (1, 2)


@pytest.mark.parametrize(
    ("name", "ids"),
    [("gpu", ("z-9",)), ("other", ("a-1",)), ("dup", ("x-1", "x-1"))],
    ids=["same deck name", "same item id", "an id twice"],
)
def test_a_clashing_deck_writes_nothing(sql_url: str, name: str, ids: tuple[str, ...]) -> None:
    with PersonalDeckStore(sql_url) as store:
        store.add_deck("ann", _deck("gpu"), _items("a-1"), now=NOW)
        with pytest.raises(StorageConflict):
            store.add_deck("ann", _deck(name), _items(*ids), now=NOW)
        assert [d.name for d in store.list_decks("ann")] == ["gpu"]
        assert store.item_ids("ann") == {"a-1"}
        assert store.deck_version("ann") == 1


def test_deleting_a_deck_removes_its_items_and_raises_the_version(sql_url: str) -> None:
    with PersonalDeckStore(sql_url) as store:
        store.add_deck("ann", _deck("gpu"), _items("a-1"), now=NOW)
        store.add_deck("ann", _deck("net"), _items("b-1"), now=NOW)
        assert store.delete_deck("ann", "gpu") is True
        assert store.item_ids("ann") == {"b-1"}
        assert store.load_items("ann")[0] == 3


def test_replacing_a_deck_swaps_its_items_and_row_all_or_nothing(sql_url: str) -> None:
    with PersonalDeckStore(sql_url) as store:
        store.add_deck("ann", _deck("gpu"), _items("a-1", "b-2"), now=NOW)
        store.add_deck("ann", _deck("net", 1), _items("c-3"), now=NOW)
        corrected = PersonalDeckRow("gpu", "GPU v2", "gpu.csv", "csv", 2, NOW.replace(hour=13))
        assert store.replace_deck("ann", corrected, _items("d-4", "a-1")) == 3
        assert store.list_decks("ann")[0] == corrected
        assert store.item_ids("ann") == {"a-1", "d-4", "c-3"}
        # An id another deck holds: refused, and the deck stays as it was.
        with pytest.raises(StorageConflict):
            store.replace_deck("ann", corrected, _items("c-3"))
        assert store.item_ids("ann") == {"a-1", "d-4", "c-3"}
        with pytest.raises(StorageConflict, match="'gone' was deleted"):
            store.replace_deck("ann", _deck("gone"), _items("e-5"))
        assert store.deck_version("ann") == 3

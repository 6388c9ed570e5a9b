"""Studyable items, decks, filters and the daily three."""

from __future__ import annotations

from datetime import date

import pytest

from sysdrill.content.collections import Deck
from sysdrill.content.enums import Status, Track
from sysdrill.errors import DeckNotFound
from sysdrill.study.filters import ItemFilter
from sysdrill.study.sessions.selection import (
    daily_items,
    deck_items,
    deck_names,
    filter_items,
    studyable,
)


def _ids(items):
    return [item.id for item in items]


def test_deck_lists_decks_yaml_order_then_items_naming_it(vault):
    assert _ids(deck_items(vault.items, vault.decks, "ch26-quiz")) == ["quiz-2", "quiz-1"]


def test_deck_named_only_by_items_is_a_deck(vault):
    assert _ids(deck_items(vault.items, vault.decks, "dp-cards")) == ["fc-1", "fc-2", "fc-3"]
    assert deck_names(vault.items, vault.decks) == ["ch26-quiz", "dp-cards"]


def test_unknown_deck_names_the_known_ones(vault):
    with pytest.raises(DeckNotFound) as caught:
        deck_items(vault.items, vault.decks, "gpu")
    assert str(caught.value) == "No deck named 'gpu'. Known decks: ch26-quiz, dp-cards."


def test_empty_listed_deck_is_not_an_error(vault):
    assert deck_items(vault.items, [Deck(name="empty")], "empty") == []


def test_archived_and_deleted_items_are_not_studied(vault):
    first, second, *_ = vault.items
    retired = [
        first.model_copy(update={"status": Status.ARCHIVED}),
        second.model_copy(update={"status": Status.DELETED}),
    ]
    assert studyable(retired + vault.items[2:]) == vault.items[2:]


def test_filters_combine_and_deck_takes_decks_yaml(vault):
    edge = filter_items(vault.items, vault.decks, ItemFilter(track=Track.EDGE))
    assert _ids(edge) == ["e-l1-recall", "e-l3-spec"]
    tagged = filter_items(vault.items, vault.decks, ItemFilter(tag="hbm", deck=None))
    assert _ids(tagged) == ["c-l1-hbm", "c-l2-mc", "c-l3-num"]
    quiz = filter_items(vault.items, vault.decks, ItemFilter(deck="ch26-quiz"))
    assert _ids(quiz) == ["quiz-2", "quiz-1"]


def test_daily_items_are_the_same_all_day_whatever_the_order(vault):
    day = date(2026, 11, 21)
    first = daily_items(vault.items, item_filter=ItemFilter(), day=day)
    again = daily_items(list(reversed(vault.items)), item_filter=ItemFilter(), day=day)
    assert len(first) == 3
    assert _ids(first) == _ids(again)


def test_daily_items_change_with_the_day_and_the_filter(vault):
    days = [date(2026, 11, d) for d in range(1, 8)]
    sets = {tuple(_ids(daily_items(vault.items, item_filter=ItemFilter(), day=d))) for d in days}
    assert len(sets) > 1
    day = date(2026, 11, 21)
    cloud = daily_items(vault.items, item_filter=ItemFilter(track=Track.CLOUD), day=day)
    plain = daily_items(vault.items, item_filter=ItemFilter(), day=day)
    assert _ids(cloud) != _ids(plain)

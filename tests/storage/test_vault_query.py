from __future__ import annotations

import contextlib
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sysdrill.app.build import build_vault
from sysdrill.content.sample import sample_vault_path
from sysdrill.errors import (
    QuestionNotFound,
    StorageError,
)
from sysdrill.storage.vault_query import (
    count_matches,
    get_item,
    plain_terms_query,
    search_items,
    vault_stats,
)

NOW = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample vault compiled once: these tests only read it."""
    out = tmp_path_factory.mktemp("compiled") / "vault.db"
    build_vault(sample_vault_path(), out, now=NOW)
    return out


def test_reading_a_missing_or_foreign_database_raises_storage_error(tmp_path: Path) -> None:
    with pytest.raises(StorageError, match="run `sysdrill build` first"):
        vault_stats(tmp_path / "missing.db")
    foreign = tmp_path / "foreign.db"
    with contextlib.closing(sqlite3.connect(foreign)) as connection:
        connection.execute("CREATE TABLE x (y)")
    with pytest.raises(StorageError, match="is not a compiled vault"):
        vault_stats(foreign)


def test_search_ranks_title_matches_first(built: Path) -> None:
    hits = search_items(built, "pipeline")
    assert hits[0].id == "cloud-0104"
    assert "**" in hits[0].snippet


def test_a_page_of_hits_is_the_head_of_the_whole_ranking(built: Path) -> None:
    """A page (ranked in the index, then read by rowid) equals the head of every hit ranked."""
    for query, tracks in (("the", []), ("gpu", []), ("the", ["edge", "cloud"])):
        every = search_items(built, query, tracks=tracks, limit=5000)
        assert len(every) == count_matches(built, query, tracks=tracks) > 2
        for limit in (1, 2, len(every) - 1):
            assert search_items(built, query, tracks=tracks, limit=limit) == every[:limit]
    assert count_matches(built, "the", tracks=["edge"]) < count_matches(built, "the")


def test_search_filters_by_track_level_and_topic(built: Path) -> None:
    assert {h.id for h in search_items(built, "", tracks=["edge"])} == {"edge-0101", "edge-0102"}
    assert [h.id for h in search_items(built, "", levels=["L6+"])] == ["cloud-0106"]
    topic = search_items(built, "memory", topics=["kv-cache"])
    assert {h.id for h in topic} <= {"edge-0101", "edge-0102", "mobile-0101"} and topic
    assert search_items(built, "bubble", tracks=["tinyml"]) == []


def test_search_honours_fts_syntax(built: Path) -> None:
    assert {h.id for h in search_items(built, "checkpoint*")} >= {"global-0101", "global-0102"}
    assert [h.id for h in search_items(built, '"keyword spotting"')] == ["tinyml-0101"]


SAMPLE_IDS = {
    *(f"cloud-010{n}" for n in range(1, 7)),
    "edge-0101",
    "edge-0102",
    "global-0101",
    "global-0102",
    "mobile-0101",
    "tinyml-0101",
}
"""Every item id of the bundled sample vault."""


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ('"unterminated', set()),  # read as the word "unterminated", which no item has
        ("AND", SAMPLE_IDS),  # the operator alone becomes the word "and", in every item
        ("NEAR(", {"edge-0102", "global-0102"}),
        ("(bubble", {"cloud-0104"}),
        ("roofline)", {"edge-0102"}),
        ("all-reduce (", {"cloud-0101", "cloud-0102", "cloud-0105"}),
        ('kv-cache "memory', {"mobile-0101"}),
        ("*", set()),  # no word characters: nothing to search
        ("-", set()),
        ("title:", set()),
        ("c++", set()),
        ("a:b:c", set()),
    ],
)
def test_search_falls_back_to_plain_terms_on_fts_syntax_errors(
    built: Path, query: str, expected: set[str]
) -> None:
    assert {h.id for h in search_items(built, query)} == expected


@pytest.mark.parametrize("query", ["allreduce", "AllReduce", "all reduce", "all-reduce"])
def test_search_folds_hyphens_and_spacing(built: Path, query: str) -> None:
    # The sample vault writes "all-reduce"; a learner types it any of these ways.
    assert {"cloud-0101", "cloud-0102", "cloud-0105"} <= {h.id for h in search_items(built, query)}


def test_search_keeps_fts_operators_in_plain_words(built: Path) -> None:
    either = {h.id for h in search_items(built, "roofline OR bubble")}
    assert either == {"edge-0102", "cloud-0104"}


def test_search_fallback_finds_words_of_a_broken_query(built: Path) -> None:
    assert [h.id for h in search_items(built, 'bubble"')] == ["cloud-0104"]


def test_plain_terms_query_quotes_each_word_group() -> None:
    assert plain_terms_query('all-reduce "time') == '"all reduce" "time"'
    assert plain_terms_query("*** ---") == ""


@settings(max_examples=150)
@given(query=st.text(max_size=60))
def test_search_never_raises_on_any_text(built: Path, query: str) -> None:
    hits = search_items(built, query, limit=5)
    assert len(hits) <= 5
    assert {hit.id for hit in hits} <= SAMPLE_IDS


def test_get_item_suggests_close_ids(built: Path) -> None:
    with pytest.raises(QuestionNotFound) as caught:
        get_item(built, "cloud-01O3")
    assert str(caught.value).startswith("no item with id 'cloud-01O3'; did you mean cloud-0103")


def test_stats_count_by_track_level_zone_area_status_and_kind(built: Path) -> None:
    stats = vault_stats(built)
    assert stats.total == 12
    assert stats.by_track_level["cloud"] == {f"L{n}": 1 for n in range(1, 6)} | {"L6+": 1}
    assert sum(sum(row.values()) for row in stats.by_track_level.values()) == 12
    assert stats.by_kind == {"exercise": 1, "flashcard": 1, "numeric": 1, "question": 8, "quiz": 1}
    assert stats.by_status == {"published": 12}
    assert sum(stats.by_zone.values()) == sum(stats.by_competency_area.values()) == 12

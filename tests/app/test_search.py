"""Search and show read the compiled vault; both give typed results with to_dict()."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from sysdrill.app.search import search_vault, show_item, vault_database
from sysdrill.errors import QuestionNotFound, UsageError

NOW = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def database(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return vault_database(None, None, now=NOW, cache_dir=tmp_path_factory.mktemp("cache"))


def test_search_ranks_matches_and_keeps_the_query(database: Path) -> None:
    result = search_vault(database, "roofline", limit=5)
    assert result.hits and all("roofline" in h.snippet.lower() for h in result.hits)
    shown = result.to_dict()
    assert shown["query"] == "roofline"
    assert [h["id"] for h in shown["hits"]] == [h.id for h in result.hits]


def test_search_filters_by_track(database: Path) -> None:
    result = search_vault(database, "", tracks=["edge"], limit=100)
    assert result.hits and {h.track for h in result.hits} == {"edge"}


def test_show_item_gives_path_hash_and_fields(database: Path) -> None:
    shown = show_item(database, "cloud-0103").to_dict()
    assert shown["id"] == "cloud-0103" == shown["item"]["id"]
    assert shown["path"].endswith("cloud-0103.yaml")
    assert len(shown["content_hash"]) >= 16


def test_show_unknown_item_suggests_close_ids(database: Path) -> None:
    with pytest.raises(QuestionNotFound, match="cloud-0103"):
        show_item(database, "cloud-0103x")


def test_vault_and_db_together_are_refused(database: Path) -> None:
    with pytest.raises(UsageError, match="not both"):
        vault_database(Path("v"), database, now=NOW, cache_dir=database.parent)


@pytest.mark.parametrize("query", ["bandwidth", "", "roof* OR memory", "a (b"])
def test_total_counts_every_match_past_the_limit(database: Path, query: str) -> None:
    every = search_vault(database, query, limit=1000).hits
    counted = search_vault(database, query, limit=1, count_all=True)
    assert counted.total == len(every)
    assert len(counted.hits) == min(1, len(every))
    assert counted.to_dict()["total"] == len(every)


def test_total_honours_the_filters(database: Path) -> None:
    every = search_vault(database, "", tracks=["cloud"], levels=["L3"], limit=1000).hits
    counted = search_vault(database, "", tracks=["cloud"], levels=["L3"], limit=1, count_all=True)
    assert counted.total == len(every) > 0

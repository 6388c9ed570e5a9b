"""The vault catalogue: the same answers as the loaded vault or the compiled database."""

from __future__ import annotations

import os
import shutil
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

import sysdrill.content.loader as loader
from sysdrill.app import sessions as app
from sysdrill.app.build import build_vault, compiled_vault
from sysdrill.app.catalogue import (
    Catalogue,
    catalogue_stats,
    find_item,
    open_catalogue,
    read_fresh_catalogue,
)
from sysdrill.app.practice_vault import open_daily_vault
from sysdrill.app.progress import progress, workload
from sysdrill.app.search import count_items, show_item, show_vault_item
from sysdrill.app.sessions import StartOptions
from sysdrill.app.study_vault import StudyVault, open_study_vault
from sysdrill.content.sample import sample_vault_path, starter_vault_path
from sysdrill.errors import QuestionNotFound, VaultNotFound
from sysdrill.storage.memory import MemoryStudyStore
from sysdrill.storage.vault_query import read_release, search_items, vault_stats
from sysdrill.study.filters import ItemFilter
from sysdrill.study.ratings import GradedBy, Rating
from sysdrill.study.service import StudyService
from sysdrill.study.sessions.state_machine import SessionKind

NOW = datetime(2026, 11, 21, 9, 0, tzinfo=UTC)
HOUR_AGO = time.time() - 3600


def settle(root: Path) -> Path:
    """Date every file and folder of ``root`` an hour back, folders last.

    A catalogue trusts a folder's time only when it lies well before the
    catalogue was written; a vault written just now is refreshed instead.
    """
    for folder, _, files in os.walk(root, topdown=False):
        for name in files:
            os.utime(Path(folder) / name, (HOUR_AGO, HOUR_AGO))
        os.utime(folder, (HOUR_AGO, HOUR_AGO))
    return root


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    target = tmp_path / "vault"
    shutil.copytree(sample_vault_path(), target)
    return settle(target)


@pytest.fixture
def cache(tmp_path: Path) -> Path:
    return tmp_path / "cache"


class Parses:
    """Counts the item files parsed (the loader's YAML reader), optionally refusing them."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, *, refuse: bool = False) -> None:
        self.count = 0
        real = loader.parse_text

        def parse_text(text: str, rel: str):  # type: ignore[no-untyped-def]
            if refuse:
                raise AssertionError(f"{rel} was parsed")
            self.count += 1
            return real(text, rel)

        monkeypatch.setattr(loader, "parse_text", parse_text)


def test_a_fresh_catalogue_is_read_without_parsing_an_item_file(
    vault: Path, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = open_catalogue(vault, cache_dir=cache, now=NOW)
    ids = [item.id for item in open_study_vault(vault).items]
    Parses(monkeypatch, refuse=True)
    again = open_catalogue(vault, cache_dir=cache, now=NOW)
    assert again.rows == first.rows
    assert [row.id for row in again.rows] == ids


def test_a_vault_named_by_a_relative_then_an_absolute_path_has_one_catalogue(
    vault: Path, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(vault.parent)
    open_catalogue(Path(vault.name), cache_dir=cache, now=NOW)
    [saved] = (cache / "catalogue").iterdir()
    written = saved.stat().st_mtime_ns
    assert read_fresh_catalogue(vault.resolve(), cache_dir=cache, now=NOW) is not None
    Parses(monkeypatch, refuse=True)
    again = open_catalogue(vault.resolve(), cache_dir=cache, now=NOW, refresh=True)
    assert len(again.rows) == 12
    assert saved.stat().st_mtime_ns == written  # found unchanged: not written again


def test_an_added_file_is_the_only_one_parsed_again(
    vault: Path, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    open_catalogue(vault, cache_dir=cache, now=NOW)
    source = vault / "questions/cloud/cloud-0101.yaml"
    text = source.read_text("utf-8").replace("id: cloud-0101", "id: cloud-9999")
    scratch = vault / "new.tmp"
    scratch.write_text(text, "utf-8")
    os.replace(scratch, vault / "questions/cloud/cloud-9999.yaml")  # as editors save
    parses = Parses(monkeypatch)
    catalogue = open_catalogue(vault, cache_dir=cache, now=NOW)
    assert parses.count == 1
    assert catalogue.find("cloud-9999") is not None
    assert len(catalogue.rows) == 13


def test_a_catalogue_written_just_after_a_change_is_checked_file_by_file(
    tmp_path: Path, cache: Path
) -> None:
    fresh = tmp_path / "fresh"
    shutil.copytree(sample_vault_path(), fresh)
    os.utime(fresh)  # the vault's folder changed just now
    assert read_fresh_catalogue(fresh, cache_dir=cache, now=NOW) is None
    open_catalogue(fresh, cache_dir=cache, now=NOW)
    # Its signature is unchanged but too recent to trust alone: refreshed, not dropped.
    again = read_fresh_catalogue(fresh, cache_dir=cache, now=NOW)
    assert again is not None and len(again.rows) == 12


def test_a_file_that_does_not_load_is_counted_and_left_out(vault: Path, cache: Path) -> None:
    (vault / "questions/cloud/broken.yaml").write_text("id: [unclosed\n", "utf-8")
    catalogue = open_catalogue(vault, cache_dir=cache, now=NOW)
    assert (len(catalogue.rows), catalogue.broken_files) == (12, 1)
    counted = count_items(vault, None, now=NOW, cache_dir=cache)
    assert (counted.stats.total, counted.broken_files) == (12, 1)


@pytest.mark.parametrize("root", [sample_vault_path(), starter_vault_path()])
def test_stats_of_the_catalogue_are_those_of_the_compiled_database(
    root: Path, cache: Path, tmp_path: Path
) -> None:
    database = tmp_path / "vault.db"
    build_vault(root, database, now=NOW)
    counted = count_items(root, None, now=NOW, cache_dir=cache)
    assert counted.stats == vault_stats(database)
    assert counted.release_hash == read_release(database).release_hash
    assert counted.built_at == NOW


def test_show_reads_the_item_as_the_compiled_database_shows_it(cache: Path, tmp_path: Path) -> None:
    database = tmp_path / "vault.db"
    build_vault(starter_vault_path(), database, now=NOW)
    catalogue = open_catalogue(starter_vault_path(), cache_dir=cache, now=NOW)
    for row in catalogue.rows[::25]:
        shown = show_vault_item(None, None, row.id, now=NOW, cache_dir=cache)
        assert shown.to_dict() == show_item(database, row.id).to_dict()


def test_show_finds_an_item_whose_file_was_rewritten_in_place(vault: Path, cache: Path) -> None:
    open_catalogue(vault, cache_dir=cache, now=NOW)
    path = vault / "questions/cloud/cloud-0101.yaml"
    path.write_text(path.read_text("utf-8").replace("id: cloud-0101", "id: cloud-0199"), "utf-8")
    os.utime(path, (HOUR_AGO + 60, HOUR_AGO + 60))  # its folder keeps its time
    file, item = find_item(vault, "cloud-0199", cache_dir=cache, now=NOW)
    assert (file.rel, item.id) == ("questions/cloud/cloud-0101.yaml", "cloud-0199")
    with pytest.raises(QuestionNotFound, match="no item with id 'cloud-0101'"):
        find_item(vault, "cloud-0101", cache_dir=cache, now=NOW)


def test_the_search_database_is_used_as_it_is_while_the_catalogue_finds_no_change(
    vault: Path, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sysdrill.app.build as build

    path = compiled_vault(vault, now=NOW, cache_dir=cache)

    def no_scan(*args: object, **kwargs: object) -> None:
        raise AssertionError("the vault was scanned again")

    with monkeypatch.context() as patched:
        patched.setattr(build, "plan_build", no_scan)
        assert compiled_vault(vault, now=NOW, cache_dir=cache) == path
    item = vault / "questions/cloud/cloud-0104.yaml"
    item.write_text(item.read_text("utf-8").replace("Idle GPUs in", "Idle Zebras in"), "utf-8")
    os.utime(item, (HOUR_AGO + 60, HOUR_AGO + 60))  # in place: its folder keeps its time
    assert compiled_vault(vault, now=NOW, cache_dir=cache) == path
    assert [hit.id for hit in search_items(path, "zebras")] == ["cloud-0104"]


def _item_files(root: Path) -> list[tuple[str, int, int]]:
    """(rel, size in bytes, mtime in ns) of every item file of ``root``, as a build reads them."""
    stats = [(rel, os.stat(path)) for path, rel in loader.list_item_file_names(root)]
    return [(rel, stat.st_size, stat.st_mtime_ns) for rel, stat in stats]


def test_a_catalogue_holds_the_files_it_read_and_no_other_set(vault: Path, cache: Path) -> None:
    (vault / "questions/cloud/broken.yaml").write_text("id: [unclosed\n", "utf-8")
    catalogue = open_catalogue(settle(vault), cache_dir=cache, now=NOW)
    files = _item_files(vault)
    assert catalogue.broken_files == 1 and catalogue.holds(files)
    rel, size, mtime_ns = files[0]
    assert not catalogue.holds([(rel, size + 1, mtime_ns), *files[1:]])
    assert not catalogue.holds([(rel, size, mtime_ns + 1), *files[1:]])
    assert not catalogue.holds(files[1:])
    assert not catalogue.holds([*files, ("questions/cloud/new.yaml", size, mtime_ns)])


def test_a_catalogue_does_not_hold_files_changed_just_before_it_read_them(
    tmp_path: Path, cache: Path
) -> None:
    vault = settle(shutil.copytree(sample_vault_path(), tmp_path / "vault"))
    item = vault / "questions/cloud/cloud-0104.yaml"
    item.write_text(item.read_text("utf-8"), "utf-8")  # just now: an edit could hide in its tick
    catalogue = open_catalogue(vault, cache_dir=cache, now=NOW)
    assert len(catalogue.rows) == 12 and not catalogue.holds(_item_files(vault))


def test_a_new_search_copy_leaves_out_a_file_broken_in_place_since_the_catalogue(
    vault: Path, cache: Path
) -> None:
    open_catalogue(vault, cache_dir=cache, now=NOW)  # as a first `stats` leaves it
    item = vault / "questions/cloud/cloud-0104.yaml"
    item.write_text("id: [unclosed\n", "utf-8")
    os.utime(item, (HOUR_AGO + 60, HOUR_AGO + 60))  # in place: its folder keeps its time
    path = compiled_vault(vault, now=NOW, cache_dir=cache)
    assert len(search_items(path, "", limit=100)) == 11
    assert "cloud-0104" not in [hit.id for hit in search_items(path, "", limit=100)]
    assert count_items(vault, None, now=NOW, cache_dir=cache).broken_files == 1


def test_a_new_search_copy_holds_a_file_mended_in_place_since_the_catalogue(
    vault: Path, cache: Path
) -> None:
    mended = vault / "questions/cloud/mended.yaml"
    mended.write_text("id: [unclosed\n", "utf-8")
    open_catalogue(settle(vault), cache_dir=cache, now=NOW)
    text = (vault / "questions/cloud/cloud-0104.yaml").read_text("utf-8")
    mended.write_text(
        text.replace("id: cloud-0104", "id: cloud-0199").replace("Idle GPUs in", "Idle Zebras in"),
        "utf-8",
    )
    os.utime(mended, (HOUR_AGO + 60, HOUR_AGO + 60))  # in place: its folder keeps its time
    path = compiled_vault(vault, now=NOW, cache_dir=cache)
    assert [hit.id for hit in search_items(path, "zebras")] == ["cloud-0199"]
    assert count_items(vault, None, now=NOW, cache_dir=cache).broken_files == 0


def test_a_catalogue_read_by_two_processes_is_the_one_read_by_one(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sysdrill.app.catalogue_files as catalogue_module

    serial = open_catalogue(starter_vault_path(), cache_dir=cache, now=NOW)
    monkeypatch.setattr(catalogue_module, "PARALLEL_MIN_FILES", 2)
    split = open_catalogue(starter_vault_path(), cache_dir=tmp_path / "other", now=NOW)
    assert split.rows == serial.rows
    assert split.broken_files == serial.broken_files


def test_a_missing_vault_is_refused(tmp_path: Path, cache: Path) -> None:
    with pytest.raises(VaultNotFound, match="does not exist"):
        open_catalogue(tmp_path / "nowhere", cache_dir=cache, now=NOW)


def _studied(vault: StudyVault) -> StudyService:
    study = StudyService(MemoryStudyStore(), vault_id=vault.vault_id, now=NOW)
    for n, item in enumerate(vault.items[:30]):
        rating = (Rating.GOOD, Rating.AGAIN, Rating.EASY)[n % 3]
        moment = NOW - timedelta(days=40 - n)
        study.record_review(item.id, rating=rating, graded_by=GradedBy.SELF, now=moment)
    return study


def test_progress_and_workload_of_the_catalogue_are_those_of_the_loaded_vault(
    cache: Path,
) -> None:
    loaded = open_study_vault(starter_vault_path())
    catalogue = open_catalogue(starter_vault_path(), cache_dir=cache, now=NOW)
    study = _studied(loaded)
    assert progress(study, catalogue, now=NOW) == progress(study, loaded, now=NOW)
    assert progress(study, catalogue, now=NOW) == study.progress(loaded.items, now=NOW)
    study.set_setting("deadline", (NOW + timedelta(days=20)).date().isoformat())
    expected = study.deadline_workload(loaded.items, now=NOW)
    days = workload(study, catalogue, now=NOW)
    assert [(d.day, d.reviews, d.new_items) for d in days] == [
        (d.day.isoformat(), d.reviews, d.new_items) for d in expected
    ]


DAILY_FILTERS = [
    ItemFilter(),
    ItemFilter(track="cloud"),  # type: ignore[arg-type]
    ItemFilter(level="L3"),  # type: ignore[arg-type]
    ItemFilter(topic="nope"),
]


@pytest.mark.parametrize("item_filter", DAILY_FILTERS)
def test_the_daily_vault_plans_the_session_the_whole_vault_plans(
    cache: Path, item_filter: ItemFilter
) -> None:
    whole = open_study_vault(starter_vault_path())
    study = _studied(whole)
    daily = open_daily_vault(
        starter_vault_path(), item_filter=item_filter, now=NOW, cache_dir=cache
    )
    options = StartOptions(SessionKind.DAILY, item_filter)
    planned = [app.assemble_lineup(study, v, options, now=NOW) for v in (daily, whole)]
    assert [p.plan.items for p in planned[:1]] == [p.plan.items for p in planned[1:]]
    assert planned[0].empty_message == planned[1].empty_message
    if planned[1].plan.items:
        assert len(daily.items) < len(whole.items)


def test_the_catalogue_type_is_what_progress_accepts(cache: Path) -> None:
    catalogue = open_catalogue(sample_vault_path(), cache_dir=cache, now=NOW)
    assert isinstance(catalogue, Catalogue)
    assert catalogue_stats(catalogue).total == len(catalogue.rows) == 12


@pytest.mark.parametrize("parallel_from", [2, 10_000])
def test_a_first_build_reports_each_file_it_reads_and_a_fresh_catalogue_reports_none(
    vault: Path, cache: Path, monkeypatch: pytest.MonkeyPatch, parallel_from: int
) -> None:
    import sysdrill.app.catalogue_files as catalogue_files
    from sysdrill.app.catalogue import READING

    monkeypatch.setattr(catalogue_files, "PARALLEL_MIN_FILES", parallel_from)
    calls: list[tuple[str, int, int]] = []

    def progress(stage: str, done: int, total: int) -> None:
        calls.append((stage, done, total))

    built = open_catalogue(vault, cache_dir=cache, now=NOW, progress=progress)
    assert calls and {stage for stage, _, _ in calls} == {READING}
    assert calls[-1] == (READING, 12, 12) == (READING, len(built.rows), len(built.rows))
    assert [done for _, done, _ in calls] == sorted(done for _, done, _ in calls)
    calls.clear()
    open_catalogue(vault, cache_dir=cache, now=NOW, progress=progress)
    assert calls == []

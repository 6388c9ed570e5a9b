"""The cyclic garbage collector pauses while a vault loads, and runs again after."""

from __future__ import annotations

import gc
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sysdrill.app.study_vault import open_study_vault
from sysdrill.content.gc_pause import collector_paused, kept_until_exit
from sysdrill.content.sample import default_vault_path


@pytest.fixture
def collecting() -> Iterator[None]:
    was = gc.isenabled()
    gc.enable()
    yield
    if not was:
        gc.disable()


def test_pauses_nest_and_the_collector_runs_after_the_last(collecting):
    with collector_paused():
        assert not gc.isenabled()
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()


def test_a_collector_paused_before_stays_paused(collecting):
    gc.disable()
    with collector_paused():
        pass
    assert not gc.isenabled()


def test_the_collector_runs_again_after_an_error(collecting):
    with pytest.raises(RuntimeError), collector_paused():
        raise RuntimeError("load failed")
    assert gc.isenabled()


def test_pauses_overlapping_in_two_threads_end_with_the_later(collecting):
    inside = threading.Barrier(2)
    first_done = threading.Event()
    seen: list[bool] = []

    def first() -> None:
        with collector_paused():
            inside.wait()
        first_done.set()

    def second() -> None:
        with collector_paused():
            inside.wait()
            first_done.wait()
            seen.append(gc.isenabled())  # the first's pause ended, this one holds

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert seen == [False]
    assert gc.isenabled()


def _collector_seen(monkeypatch: pytest.MonkeyPatch, module: Any, name: str) -> list[bool]:
    """Wrap ``module.name`` so each call records whether the collector was running."""
    real = getattr(module, name)
    seen: list[bool] = []

    def spy(*args: Any, **kwargs: Any) -> Any:
        seen.append(gc.isenabled())
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, spy)
    return seen


def test_a_vault_loads_with_the_collector_paused(
    collecting, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    import sysdrill.app.study_vault as study_vault

    seen = _collector_seen(monkeypatch, study_vault, "load_vault")
    vault = open_study_vault(default_vault_path(), cache_dir=tmp_path / "cache")
    assert len(vault.items) > 300  # the starter vault
    assert seen == [False]
    assert gc.isenabled()


@pytest.fixture
def unfrozen() -> Iterator[None]:
    """No frozen objects before the test, none after (the test process keeps collecting)."""
    gc.unfreeze()
    yield
    gc.unfreeze()


def test_what_a_command_keeps_loads_paused_then_is_frozen_out_of_collections(collecting, unfrozen):
    with kept_until_exit():
        assert not gc.isenabled()
        kept = [[n] for n in range(1000)]
    assert gc.isenabled()
    assert gc.get_freeze_count() >= len(kept)
    collectable = {id(o) for o in gc.get_objects()}  # frozen objects are in no generation
    assert not any(id(o) in collectable for o in kept)


def test_a_process_that_froze_objects_before_keeps_its_own_arrangement(collecting, unfrozen):
    gc.freeze()
    before = gc.get_freeze_count()
    with kept_until_exit():
        kept = [[n] for n in range(1000)]
    assert gc.get_freeze_count() == before  # the new objects stay collectable
    assert len(kept) == 1000


def test_the_command_shows_the_same_after_its_start_up_is_frozen(
    collecting, unfrozen, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    from typer.testing import CliRunner

    from sysdrill.cli.app import build_app

    monkeypatch.setenv("SYSDRILL_CACHE_DIR", str(tmp_path / "cache"))
    db = f"sqlite:///{tmp_path / 'study.sqlite3'}"
    result = CliRunner().invoke(build_app(), ["progress", "--db", db, "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["items_total"] > 300  # the starter vault, read whole
    assert gc.get_freeze_count() > 0
    assert gc.isenabled()


def test_an_import_runs_with_the_collector_paused(
    collecting, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    from datetime import UTC, datetime

    import sysdrill.interop.importer as importer
    from sysdrill.app.interop import import_items

    seen = _collector_seen(monkeypatch, importer, "import_source")
    source = tmp_path / "cards.csv"
    source.write_text("front,back\nWhat is HBM?,High-bandwidth memory\n", encoding="utf-8")
    report = import_items(source, into=tmp_path / "vault", now=datetime(2026, 12, 5, tzinfo=UTC))
    assert len(report.added) == 1
    assert seen == [False]
    assert gc.isenabled()


def test_a_state_import_runs_with_the_collector_paused(
    collecting, unfrozen, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    from typer.testing import CliRunner

    import sysdrill.app.interview_records as records
    from sysdrill.cli.app import build_app

    seen = _collector_seen(monkeypatch, records, "import_state_file")
    monkeypatch.setenv("SYSDRILL_CACHE_DIR", str(tmp_path / "cache"))
    db = f"sqlite:///{tmp_path / 'study.sqlite3'}"
    state = tmp_path / "state.json"
    runner = CliRunner()
    assert runner.invoke(build_app(), ["state", "export", str(state), "--db", db]).exit_code == 0
    result = runner.invoke(build_app(), ["state", "import", str(state), "--db", db])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("Imported 0 reviews")
    assert seen == [False]
    assert gc.isenabled()

"""The worker split leaves garbage collection as it found it."""

from __future__ import annotations

import gc

import pytest

from sysdrill.check import runner
from sysdrill.check.runner import run_check

_AUDIT_FILES = runner._audit_files
_COLLECTING: list[bool] = []


def _audit_noting_collection(files: list[tuple[str, str]], *args: object) -> list[runner._Fresh]:
    # At module level: the worker is handed the function by name.
    _COLLECTING.append(gc.isenabled())
    return _AUDIT_FILES(files, *args)  # type: ignore[arg-type]


def _two_files(planted) -> None:
    planted.write(
        "questions/cloud/cloud-0002.yaml", planted.base_text.replace("cloud-0001", "cloud-0002")
    )


def test_objects_are_unfrozen_after_a_parallel_run(
    planted, monkeypatch: pytest.MonkeyPatch
) -> None:
    _two_files(planted)
    monkeypatch.setattr(runner, "PARALLEL_MIN_FILES", 2)
    assert gc.get_freeze_count() == 0
    report = run_check(planted.root, workers=2)
    assert (report.files, report.items) == (2, 2)
    assert gc.get_freeze_count() == 0


def test_a_host_that_froze_objects_stays_frozen(planted, monkeypatch: pytest.MonkeyPatch) -> None:
    _two_files(planted)
    monkeypatch.setattr(runner, "PARALLEL_MIN_FILES", 2)
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        run_check(planted.root, workers=2)
        assert gc.get_freeze_count() == frozen
    finally:
        gc.unfreeze()


def test_collection_thresholds_are_restored_after_a_parallel_run(
    planted, monkeypatch: pytest.MonkeyPatch
) -> None:
    _two_files(planted)
    monkeypatch.setattr(runner, "PARALLEL_MIN_FILES", 2)
    before = gc.get_threshold()
    report = run_check(planted.root, workers=2)
    assert report.items == 2
    assert gc.get_threshold() == before


def test_the_worker_split_halves_bytes_not_files(tmp_path) -> None:
    files = []
    for name, size in (("a", 900), ("b", 100), ("c", 100), ("d", 100), ("e", 600)):
        path = tmp_path / f"{name}.yaml"
        path.write_bytes(b"x" * size)
        files.append((str(path), f"{name}.yaml"))
    assert runner._halfway(files) == 1
    assert runner._halfway(files[1:]) == 3
    assert runner._halfway([(str(tmp_path / "gone.yaml"), "gone.yaml")] * 4) == 2


def test_collection_pauses_while_both_processes_audit_and_resumes_after(
    planted, monkeypatch: pytest.MonkeyPatch
) -> None:
    _two_files(planted)
    monkeypatch.setattr(runner, "PARALLEL_MIN_FILES", 2)
    _COLLECTING.clear()
    monkeypatch.setattr(runner, "_audit_files", _audit_noting_collection)
    report = run_check(planted.root, workers=2)
    assert report.items == 2
    assert _COLLECTING == [False]  # this process's half (the worker notes in its own copy)
    assert gc.isenabled()


def test_a_host_that_paused_collection_finds_it_paused(
    planted, monkeypatch: pytest.MonkeyPatch
) -> None:
    _two_files(planted)
    monkeypatch.setattr(runner, "PARALLEL_MIN_FILES", 2)
    gc.disable()
    try:
        assert run_check(planted.root, workers=2).items == 2
        assert not gc.isenabled()
    finally:
        gc.enable()

"""Atomic replacement of user files: whole or nothing, with the user's normal mode."""

from __future__ import annotations

import os
import stat

import pytest

from sysdrill.files import replace_atomically, write_text_atomically


@pytest.fixture
def umask_022():
    previous = os.umask(0o022)
    yield
    os.umask(previous)


def _mode(path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_new_file_gets_the_mode_the_umask_gives(tmp_path, umask_022):
    target = tmp_path / "deck.csv"
    write_text_atomically(target, "a,b\n")
    assert target.read_text() == "a,b\n"
    assert _mode(target) == 0o644


def test_replaced_file_keeps_its_mode(tmp_path, umask_022):
    target = tmp_path / "state.json"
    target.write_text("old")
    target.chmod(0o640)
    write_text_atomically(target, "new")
    assert (target.read_text(), _mode(target)) == ("new", 0o640)


def test_failed_write_leaves_the_old_file_and_no_temporary(tmp_path):
    target = tmp_path / "deck.apkg"
    target.write_bytes(b"old")

    def fail(path):
        path.write_bytes(b"half")
        raise RuntimeError("disk full")

    with pytest.raises(RuntimeError, match="disk full"):
        replace_atomically(target, fail)
    assert target.read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["deck.apkg"]


def test_missing_folder_raises_os_error(tmp_path):
    with pytest.raises(FileNotFoundError):
        write_text_atomically(tmp_path / "nope" / "x.txt", "x")

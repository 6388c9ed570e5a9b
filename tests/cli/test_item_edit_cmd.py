"""`sysdrill item edit`: in $EDITOR or with --set, checked before the file is written."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from sysdrill.content.sample import sample_vault_path

ITEM = "cloud-0103"


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    copy = tmp_path / "vault"
    shutil.copytree(sample_vault_path(), copy)
    return copy


def _file(vault: Path) -> Path:
    return vault / "questions" / "cloud" / f"{ITEM}.yaml"


def test_set_changes_the_title_and_show_reads_it(run_cli, vault):
    result = run_cli("item", "edit", ITEM, "--vault", str(vault), "--set", "title=ZeRO for 7B")
    assert result.exit_code == 0, result.stderr
    assert result.stdout == f"Saved {ITEM} ({ITEM}.yaml); check finds no error in it.\n"
    shown = run_cli("show", ITEM, "--vault", str(vault))
    assert "ZeRO for 7B" in shown.stdout


def test_an_editor_edit_is_saved(run_cli, vault, monkeypatch):
    monkeypatch.setenv("EDITOR", "sed -i 's/Which is the lowest/Which is the smallest/'")
    monkeypatch.delenv("VISUAL", raising=False)
    result = run_cli("item", "edit", ITEM, "--vault", str(vault))
    assert result.exit_code == 0, result.stderr
    assert "question: Which is the smallest ZeRO stage" in _file(vault).read_text()


def test_an_editor_edit_with_wrong_arithmetic_is_one_error_line_and_no_write(
    run_cli, vault, monkeypatch
):
    before = _file(vault).read_bytes()
    monkeypatch.setenv("EDITOR", "sed -i 's/= 38.5 GB/= 50 GB/'")
    monkeypatch.delenv("VISUAL", raising=False)
    result = run_cli("item", "edit", ITEM, "--vault", str(vault))
    assert result.exit_code == 1
    [line] = result.stderr.splitlines()
    assert line.startswith("Error: Not saved: the edit brings in 1 error(s) check reports: ")
    assert "napkin-arithmetic" in line
    assert _file(vault).read_bytes() == before


def test_an_editor_that_fails_or_is_missing_saves_nothing(run_cli, vault, monkeypatch):
    before = _file(vault).read_bytes()
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", "false")
    failed = run_cli("item", "edit", ITEM, "--vault", str(vault))
    assert failed.stderr == "Error: the editor 'false' exited with status 1; nothing was saved\n"
    monkeypatch.setenv("EDITOR", "no-such-editor-here")
    missing = run_cli("item", "edit", ITEM, "--vault", str(vault))
    assert missing.exit_code == 1
    assert missing.stderr.startswith("Error: cannot start the editor 'no-such-editor-here'")
    assert _file(vault).read_bytes() == before


def test_the_bundled_vault_and_bad_set_values_are_refused(run_cli, vault):
    bundled = run_cli("item", "edit", "cloud-0101", "--set", "title=x")
    assert bundled.exit_code == 1
    assert bundled.stderr.startswith("Error: The bundled starter vault is shared")
    unknown = run_cli("item", "edit", ITEM, "--vault", str(vault), "--set", "status=draft")
    assert unknown.stderr.startswith("Error: Cannot edit status; the editable fields are")
    malformed = run_cli("item", "edit", ITEM, "--vault", str(vault), "--set", "title")
    assert malformed.exit_code == 2

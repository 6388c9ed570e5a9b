"""Checking part of a vault: files found in their vault, git changes, what refers to them."""

from __future__ import annotations

from pathlib import Path

import pytest

from sysdrill.check import all_rules
from sysdrill.check.selection import changed_since, find_vault_root, select, targets
from sysdrill.errors import UsageError

ITEM = "questions/cloud/cloud-0001.yaml"


def test_a_file_finds_its_vault_by_walking_up(planted) -> None:
    assert find_vault_root(planted.root / ITEM) == planted.root
    assert find_vault_root(planted.root / "chains.yaml") == planted.root
    assert targets([planted.root / ITEM, planted.root / "decks.yaml"]) == (
        planted.root,
        [ITEM, "decks.yaml"],
    )


def test_relative_file_paths_find_their_vault(planted, monkeypatch) -> None:
    monkeypatch.chdir(planted.root / "questions" / "cloud")
    assert targets([Path("cloud-0001.yaml")]) == (planted.root, [ITEM])


def test_a_file_outside_any_vault_is_refused(tmp_path: Path) -> None:
    stray = tmp_path / "notes.yaml"
    stray.write_text("a: 1\n")
    with pytest.raises(UsageError) as caught:
        targets([stray])
    assert str(caught.value) == (
        f"'{stray}' is not inside a vault (no folder above it holds questions/); "
        "pass a vault folder or files inside one"
    )


def test_folders_and_files_together_are_refused(planted) -> None:
    with pytest.raises(UsageError, match="give one vault folder, or files inside one vault"):
        targets([planted.root, planted.root / ITEM])


def test_chains_and_decks_naming_a_selected_item_join_the_selection(planted) -> None:
    selection = select(planted.root, [ITEM], all_rules())
    assert selection.files == {ITEM, "chains.yaml", "decks.yaml"}
    assert selection.codes_everywhere == frozenset()


def test_a_changed_taxonomy_reports_reference_findings_everywhere(planted) -> None:
    selection = select(planted.root, ["taxonomy.yaml"], all_rules())
    assert selection.files == {"taxonomy.yaml"}
    assert {"topic-in-taxonomy", "chain-ref-exists", "id-unique"} <= selection.codes_everywhere
    assert "title" not in selection.codes_everywhere


def test_changed_since_lists_edited_deleted_and_untracked_files(planted, git) -> None:
    repo = planted.root.parent
    git(repo, "init", "-q")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "vault")
    planted.edit("level: L3", "level: L1")
    (planted.root / "decks.yaml").unlink()
    planted.write("questions/cloud/cloud-0002.yaml", "id: cloud-0002\n")
    assert changed_since(planted.root, "HEAD") == [
        "decks.yaml",
        ITEM,
        "questions/cloud/cloud-0002.yaml",
    ]


def test_a_bad_ref_is_one_line_naming_git(planted, git) -> None:
    git(planted.root, "init", "-q")
    with pytest.raises(UsageError) as caught:
        changed_since(planted.root, "no-such-ref")
    message = str(caught.value)
    assert message.startswith("git diff --name-only --no-renames no-such-ref -- failed: fatal: ")
    assert "\n" not in message


def test_an_option_is_not_taken_for_a_ref(planted) -> None:
    with pytest.raises(UsageError, match="takes a git ref such as HEAD or main, not '--output=x'"):
        changed_since(planted.root, "--output=x")


def test_a_folder_outside_git_is_one_line(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    with pytest.raises(UsageError) as caught:
        changed_since(tmp_path, "HEAD")
    assert str(caught.value).startswith("git rev-parse --show-toplevel failed: fatal: not a git")

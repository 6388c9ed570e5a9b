"""``sysdrill check --changed-since REF``, run as a user would in a git repository."""

from __future__ import annotations

from pathlib import Path

import pytest

ITEM = "questions/cloud/cloud-0001.yaml"


@pytest.fixture
def vault(planted) -> Path:
    root: Path = planted.root
    return root


def test_changed_since_reports_changed_files_and_the_chains_naming_them(
    run_cli, vault: Path, git
) -> None:
    old = (vault / ITEM).read_text()
    (vault / "questions/cloud/cloud-0002.yaml").write_text(
        old.replace("cloud-0001", "cloud-0002").replace("title: All", "title: all_")
    )
    git(vault, "init", "-q")
    git(vault, "add", ".")
    git(vault, "commit", "-q", "-m", "vault")
    assert run_cli("check", str(vault), "--changed-since", "HEAD").stdout == (
        "Checked 0 files (0 valid items): 0 errors, 0 warnings, 0 info.\n"
    )
    (vault / ITEM).unlink()  # chains.yaml and decks.yaml still name cloud-0001
    result = run_cli("check", str(vault), "--changed-since", "HEAD")
    assert result.exit_code == 1
    assert [line.split(" ")[:3] for line in result.stdout.splitlines()[:-1]] == [
        ["chains.yaml:5:9:", "ERROR", "chain-ref-exists"],
        ["decks.yaml:5:9:", "ERROR", "deck-ref-exists"],
    ]
    assert "title" not in result.stdout  # cloud-0002 did not change
    everything = run_cli("check", str(vault))
    assert "ERROR title" in everything.stdout


def test_changed_since_a_bad_ref_is_a_one_line_error(run_cli, vault: Path, git) -> None:
    git(vault, "init", "-q")
    result = run_cli("check", str(vault), "--changed-since", "no-such-ref")
    assert result.exit_code == 1
    assert result.stderr.startswith(
        "Error: git diff --name-only --no-renames no-such-ref -- failed: fatal: "
    )
    assert len(result.stderr.splitlines()) == 1


def test_changed_since_with_files_is_misuse(run_cli, vault: Path) -> None:
    result = run_cli("check", str(vault / ITEM), "--changed-since", "HEAD")
    assert result.exit_code == 2
    assert "give a vault folder, not files, with --changed-since" in result.stderr

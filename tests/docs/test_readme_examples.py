"""The README's examples run, and print what the README says they print.

Every example runs in test_doc_examples.py (with the files it names); here, where the
README shows an output (a value after `#`, the finding line of `check`, the exit codes,
the napkin tolerances, what `build`, `search`, `show` and `stats` give), a test compares
it with what the command prints.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
from pathlib import Path

import pytest

from sysdrill.content.loader import load_vault
from sysdrill.content.sample import sample_vault_path, starter_vault_path

README = Path(__file__).resolve().parents[2] / "README.md"
STARTER_ITEMS = len(load_vault(starter_vault_path()).items)
"""Items of the bundled starter vault, the default of the commands below (the README's
count of them is kept in step by scripts/content_counts.py)."""
_SHOWN_VALUE = re.compile(r"-?\d[\d,.]*\s*[^\s\d]+")
"""A `# comment` that is a printed value (`3.5 ms`, `3,500 us`), not a description."""


def _commented_examples() -> list[tuple[str, str]]:
    """Every `sysdrill` line of the README's sh blocks, with its comment ("" if none)."""
    text = README.read_text("utf-8")
    found = []
    for block in re.findall(r"```sh\n(.*?)```", text, flags=re.S):
        for line in block.splitlines():
            command, _, comment = line.partition("  #")
            command = command.strip()
            if command.startswith("sysdrill "):
                found.append((command, comment.strip()))
    return found


def _shown_outputs() -> list[tuple[str, str]]:
    return [(c, comment) for c, comment in _commented_examples() if _SHOWN_VALUE.fullmatch(comment)]


def test_readme_shows_the_calc_outputs_tested_below():
    assert set(_shown_outputs()) >= {
        ('sysdrill calc "2*(8-1)/8 * 100 MB / (50 GB/s)"', "3.5 ms"),
        ('sysdrill calc "3.5 ms" --to us', "3,500 us"),
    }


@pytest.mark.parametrize(("command", "shown"), _shown_outputs())
def test_readme_example_prints_the_value_shown(run_cli, command: str, shown: str) -> None:
    result = run_cli(*shlex.split(command)[1:])
    assert result.exit_code == 0, result.stderr
    assert result.stdout == f"{shown}\n"


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    target = tmp_path / "vault"
    shutil.copytree(sample_vault_path(), target)
    return target


def _break_question(vault: Path) -> str:
    """End cloud-0103's question with a full stop; returns the file's path in the vault."""
    rel = "questions/cloud/cloud-0103.yaml"
    path = vault / rel
    text = path.read_text("utf-8")
    assert "for activations?\n" in text
    path.write_text(text.replace("for activations?\n", "for activations.\n"), "utf-8")
    return rel


def test_check_finding_line_has_the_readme_format(run_cli, vault: Path) -> None:
    readme = README.read_text("utf-8")
    [shown] = re.findall(r"```\n(questions/\S+ ERROR question-length .*)\n```", readme)
    # The README's line names another file and elides the fix with "...".
    pattern = re.escape(shown)
    pattern = pattern.replace(re.escape("cloud-1013.yaml:12:1"), r"cloud-0103\.yaml:\d+:\d+")
    pattern = pattern.replace(re.escape("..."), r"[^)]+")
    _break_question(vault)
    result = run_cli("check", str(vault))
    assert result.exit_code == 1
    [finding, summary] = result.stdout.splitlines()
    assert re.fullmatch(pattern, finding), finding
    assert summary == "Checked 12 files (12 valid items): 1 error, 0 warnings, 0 info."


def test_check_exit_codes_are_the_readme_ones(run_cli, vault: Path, tmp_path: Path) -> None:
    assert run_cli("check", str(vault)).exit_code == 0
    # A folder without questions/ is not a vault: an error, not a clean report.
    empty = tmp_path / "empty"
    empty.mkdir()
    assert run_cli("check", str(empty)).exit_code == 1
    assert run_cli("check", str(vault), "--no-such-option").exit_code == 2
    _break_question(vault)
    assert run_cli("check", str(vault)).exit_code == 1
    # Only the named rule runs, so the broken question is not reported.
    assert run_cli("check", str(vault), "--rule", "zone-bloom").exit_code == 0


@pytest.mark.parametrize(
    ("claim", "verdict", "exit_code"),
    [
        ("100 MB / (50 GB/s) = 2.009 ms", "ok", 0),  # 0.45 % off: within 0.5 %
        ("100 MB / (50 GB/s) = 2.011 ms", "WRONG", 1),  # 0.55 % off
        ("8 * 1024 = 8193", "WRONG", 1),  # integers written in full hold exactly
        ("100 MB / (50 GB/s) ≈ 2.09 ms", "ok", 0),  # 4.5 % off: within 5 %
        ("100 MB / (50 GB/s) ~ 2.11 ms", "WRONG", 1),  # 5.5 % off
        ("100 MB / (50 GB/s) = 2 GB", "UNITS", 1),
        ("1 GB = 1024 MB", "note", 0),  # right only if GB means GiB
    ],
)
def test_napkin_check_holds_the_readme_tolerances(
    run_cli, claim: str, verdict: str, exit_code: int
) -> None:
    result = run_cli("napkin", "check", "-", input=f"{claim}\n")
    assert result.exit_code == exit_code
    assert re.match(rf"-:1: {verdict} +{re.escape(claim)}  \(", result.stdout), result.stdout


def test_build_writes_vault_db_in_the_current_folder(run_cli, tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = run_cli("build")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith(
        f"Built vault.db: {STARTER_ITEMS} items ({STARTER_ITEMS} published)"
    )
    assert (tmp_path / "vault.db").is_file()


def test_search_of_blank_text_lists_items_by_id(run_cli) -> None:
    result = run_cli("search", "", "--track", "edge", "--json")
    ids = [hit["id"] for hit in json.loads(result.stdout)]
    assert ids == sorted(ids)
    assert ids[:2] == ["edge-0101", "edge-0102"]
    assert all(i.startswith("edge-") for i in ids)


def test_search_example_finds_the_pipeline_bubble_item(run_cli) -> None:
    result = run_cli("search", "pipeline bubble", "--level", "L4")
    assert "cloud-0104" in result.stdout
    # The closing line counts what the search found (the vault grows; the count follows).
    hits = json.loads(run_cli("search", "pipeline bubble", "--level", "L4", "--json").stdout)
    assert result.stdout.endswith(f"{len(hits)} results.\n") and len(hits) > 1


def test_show_prints_the_parts_the_readme_lists(run_cli) -> None:
    result = run_cli("show", "cloud-0103")
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    for heading in ("Options", "Model answer", "Common mistake", "Napkin math"):
        assert heading in lines
    assert "  B. ZeRO stage 2 (optimizer state and gradients sharded) (correct)" in lines
    assert re.search(r"content hash [0-9a-f]{64}$", result.stdout.rstrip())


def test_stats_json_has_the_readme_breakdowns(run_cli) -> None:
    stats = json.loads(run_cli("stats", "--json").stdout)
    assert stats["total"] == STARTER_ITEMS
    assert set(stats) >= {
        "total",
        "by_track_level",
        "by_zone",
        "by_competency_area",
        "by_status",
        "by_kind",
    }
    assert stats["by_track_level"]["edge"] == {"L2": 2, "L3": 2, "L4": 1}


def test_scripted_practice_example_records_two_reviews(run_cli) -> None:
    answers = "good\ny\n7 GB\n"
    assert "printf 'good\\ny\\n7 GB\\n' | sysdrill practice --limit 2" in README.read_text("utf-8")
    result = run_cli("practice", "--limit", "2", input=answers)
    assert result.exit_code == 0, result.stderr
    assert "Correct: 7 GB (expected 7 GB)." in result.stdout
    assert "Items: 2 answered" in result.stdout
    progress = json.loads(run_cli("progress", "--json").stdout)
    assert progress["reviews_total"] == 2

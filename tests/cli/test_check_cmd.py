"""`sysdrill check` through the real entry point: exact lines and exit codes."""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path

import pytest
import yaml

VALID = Path(__file__).resolve().parents[1] / "check" / "fixtures" / "valid"
ITEM = "questions/cloud/cloud-0001.yaml"
PRE_COMMIT_HOOKS = Path(__file__).resolve().parents[2] / ".pre-commit-hooks.yaml"


@pytest.fixture(autouse=True)
def _cache_in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SYSDRILL_CACHE_DIR", str(tmp_path / "cache"))


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    shutil.copytree(VALID, root)
    return root


def _edit(vault: Path, old: str, new: str) -> None:
    path = vault / ITEM
    path.write_text(path.read_text().replace(old, new, 1))


def test_check_without_vault_checks_the_clean_sample_vault(run_cli) -> None:
    result = run_cli("check")
    assert result.exit_code == 0, result.stdout
    assert result.stdout.splitlines()[-1].endswith(": 0 errors, 0 warnings, 0 info.")
    assert result.stdout.startswith("Checked ")


def test_clean_vault_exits_zero(run_cli, vault: Path) -> None:
    result = run_cli("check", str(vault))
    assert (result.exit_code, result.stdout) == (
        0,
        "Checked 1 file (1 valid item): 0 errors, 0 warnings, 0 info.\n",
    )


def test_errors_are_listed_one_line_each_and_exit_one(run_cli, vault: Path) -> None:
    _edit(vault, "level: L3", "level: L9")
    _edit(vault, "title: All-Reduce Time for a 1B Model on 8 GPUs", "title: Question 12")
    result = run_cli("check", str(vault))
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        f"{ITEM}:4:1: ERROR schema level: Input should be 'L1', 'L2', 'L3', 'L4', 'L5' or "
        "'L6+' (fix: see docs/vault-format.md for the field's allowed values)",
        "Checked 1 file (0 valid items): 1 error, 0 warnings, 0 info.",
    ]
    _edit(vault, "level: L9", "level: L3")
    result = run_cli("check", str(vault))
    assert result.stdout.splitlines()[0] == (
        f"{ITEM}:10:1: ERROR title title is a placeholder: 'Question 12' "
        "(fix: write a short, concrete plain-text title)"
    )


def test_check_quiet_prints_the_findings_without_the_summary(run_cli, vault: Path) -> None:
    assert run_cli("check", str(vault), "--quiet").stdout == ""
    _edit(vault, "level: L3", "level: L9")
    result = run_cli("check", str(vault), "-q")
    assert result.exit_code == 1
    [line] = result.stdout.splitlines()
    assert line.startswith(f"{ITEM}:4:1: ERROR schema level: ")
    assert result.stderr == ""


def test_warnings_exit_zero_unless_strict(run_cli, vault: Path) -> None:
    _edit(vault, "level: L3", "level: L1")
    line = (
        f"{ITEM}:4:1: WARNING zone-level zone 'diagnosis' usually sits at L3 to L6+, not L1 "
        "(fix: check the level and the zone; change one if the item was misfiled)"
    )
    relaxed = run_cli("check", str(vault))
    assert (relaxed.exit_code, relaxed.stdout.splitlines()[0]) == (0, line)
    strict = run_cli("check", str(vault), "--strict")
    assert (strict.exit_code, strict.stdout.splitlines()[0]) == (1, line)


def test_json_output_has_findings_and_counts(run_cli, vault: Path) -> None:
    _edit(vault, "zone: diagnosis", "zone: recall")
    result = run_cli("check", str(vault), "--json")
    assert result.exit_code == 1
    document = json.loads(result.stdout)
    assert document["counts"] == {"error": 1, "warning": 1, "info": 0}
    assert (document["files"], document["items"]) == (1, 1)
    assert [
        (f["code"], f["severity"], f["path"], f["line"], f["column"]) for f in document["findings"]
    ] == [("zone-level", "warning", ITEM, 4, 1), ("zone-bloom", "error", ITEM, 8, 1)]
    assert set(document["findings"][0]) == {
        "code",
        "severity",
        "path",
        "line",
        "column",
        "message",
        "fix",
    }


def test_rule_option_selects_codes(run_cli, vault: Path) -> None:
    _edit(vault, "zone: diagnosis", "zone: recall")
    result = run_cli("check", str(vault), "--rule", "zone-level")
    assert result.exit_code == 0
    assert [line.split()[2] for line in result.stdout.splitlines()[:-1]] == ["zone-level"]
    both = run_cli("check", str(vault), "--rule", "zone-level", "--rule", "zone-bloom")
    assert both.exit_code == 1


def test_unknown_rule_code_is_misuse(run_cli, vault: Path) -> None:
    result = run_cli("check", str(vault), "--rule", "no-such-rule")
    assert result.exit_code == 2
    assert (
        "Invalid value for --rule: unknown rule code no-such-rule; see docs/check-rules.md"
        in result.stderr
    )


def test_missing_vault_is_a_one_line_error(run_cli, tmp_path: Path) -> None:
    missing = tmp_path / "nowhere"
    result = run_cli("check", str(missing))
    assert result.exit_code == 1
    assert result.stderr == (
        f"Error: vault '{missing}' does not exist; pass an existing vault folder\n"
    )


def test_no_cache_leaves_the_cache_folder_alone(run_cli, vault: Path, tmp_path: Path) -> None:
    assert run_cli("check", str(vault), "--no-cache").exit_code == 0
    assert not (tmp_path / "cache").exists()
    assert run_cli("check", str(vault)).exit_code == 0
    assert (tmp_path / "cache").is_dir()


@pytest.mark.parametrize(
    ("content", "line"),
    [
        (b"\x00\x01binary\xff", "questions/cloud/cloud-0001.yaml:1:1: ERROR file-not-text"),
        (b"", "questions/cloud/cloud-0001.yaml:1:1: ERROR schema top level is empty"),
        (b"- a\n- b\n", "questions/cloud/cloud-0001.yaml:1:1: ERROR schema top level is a list"),
        (b"[" * 10_000 + b"]" * 10_000, "questions/cloud/cloud-0001.yaml:1:51: ERROR yaml-syntax"),
        (b"title: caf\xe9\n", "questions/cloud/cloud-0001.yaml:1:11: ERROR file-not-text"),
    ],
    ids=["binary", "empty", "list", "nested", "latin1"],
)
def test_hostile_files_give_findings_not_tracebacks(
    run_cli, vault: Path, content: bytes, line: str
) -> None:
    (vault / ITEM).write_bytes(content)
    result = run_cli("check", str(vault))
    assert result.exit_code == 1
    assert result.stdout.splitlines()[0].startswith(line)
    assert result.stderr == ""


def test_fifty_megabyte_file_is_rejected_by_size(run_cli, vault: Path) -> None:
    with (vault / ITEM).open("wb") as handle:
        handle.truncate(50 * 1024 * 1024)
    result = run_cli("check", str(vault))
    assert result.exit_code == 1
    assert result.stdout.splitlines()[0] == (
        f"{ITEM}:0:0: ERROR file-too-large file is 52428800 bytes, more than the 262144 allowed "
        "(fix: split it or remove what does not belong in one item)"
    )


def test_check_help_describes_every_option(run_cli) -> None:
    result = run_cli("check", "--help")
    assert result.exit_code == 0
    for option in ("--json", "--strict", "--rule", "--no-cache", "--format", "--changed-since"):
        assert option in result.stdout


def test_item_file_is_checked_in_the_vault_found_by_walking_up(run_cli, vault: Path) -> None:
    second = vault / "questions/cloud/cloud-0002.yaml"
    second.write_text(
        (vault / ITEM).read_text().replace("cloud-0001", "cloud-0002").replace("L3", "L1")
    )
    _edit(vault, "title: All-Reduce Time for a 1B Model on 8 GPUs", "title: Question 12")
    result = run_cli("check", str(second))
    assert (result.exit_code, result.stdout.splitlines()) == (
        0,
        [
            "questions/cloud/cloud-0002.yaml:4:1: WARNING zone-level zone 'diagnosis' usually "
            "sits at L3 to L6+, not L1 (fix: check the level and the zone; change one if the "
            "item was misfiled)",
            "Checked 1 file (1 valid item): 0 errors, 1 warning, 0 info.",
        ],
    )
    both = run_cli("check", str(second), str(vault / ITEM))
    assert both.exit_code == 1
    assert both.stdout.splitlines()[-1] == (
        "Checked 2 files (2 valid items): 1 error, 1 warning, 0 info."
    )


def test_file_outside_a_vault_is_a_one_line_error(run_cli, tmp_path: Path) -> None:
    stray = tmp_path / "notes.yaml"
    stray.write_text("a: 1\n")
    result = run_cli("check", str(stray))
    assert (result.exit_code, result.stderr) == (
        1,
        f"Error: '{stray}' is not inside a vault (no folder above it holds questions/); "
        "pass a vault folder or files inside one\n",
    )


def test_format_github_prints_workflow_annotations(
    run_cli, vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(vault.parent)
    _edit(vault, "zone: diagnosis", "zone: recall")
    result = run_cli("check", "vault", "--format", "github")
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        f"::warning file=vault/{ITEM},line=4,col=1,title=zone-level::zone 'recall' usually "
        "sits at L1 or L2, not L3 (fix: check the level and the zone; change one if the item "
        "was misfiled)",
        f"::error file=vault/{ITEM},line=8,col=1,title=zone-bloom::zone 'recall' allows Bloom "
        "level remember or understand, not 'analyze' (fix: pick a Bloom level the zone allows, "
        "or a zone that fits the Bloom level)",
        "Checked 1 file (1 valid item): 1 error, 1 warning, 0 info.",
    ]


def test_format_sarif_prints_one_sarif_log(run_cli, vault: Path, monkeypatch) -> None:
    monkeypatch.chdir(vault)
    _edit(vault, "zone: diagnosis", "zone: recall")
    result = run_cli("check", ".", "--format", "sarif")
    assert result.exit_code == 1
    log = json.loads(result.stdout)
    assert log["version"] == "2.1.0"
    results = log["runs"][0]["results"]
    assert [(r["ruleId"], r["level"]) for r in results] == [
        ("zone-level", "warning"),
        ("zone-bloom", "error"),
    ]
    assert results[1]["locations"][0]["physicalLocation"] == {
        "artifactLocation": {"uri": ITEM},
        "region": {"startLine": 8, "startColumn": 1},
    }


def test_json_flag_is_format_json_and_a_clash_is_misuse(run_cli, vault: Path) -> None:
    flag = run_cli("check", str(vault), "--json")
    option = run_cli("check", str(vault), "--format", "json")
    assert flag.stdout == option.stdout
    assert json.loads(flag.stdout)["counts"] == {"error": 0, "warning": 0, "info": 0}
    clash = run_cli("check", str(vault), "--json", "--format", "github")
    assert clash.exit_code == 2
    assert "--json and --format github disagree; give one" in clash.stderr


def test_ignore_comment_silences_a_finding_and_is_counted(run_cli, vault: Path) -> None:
    _edit(vault, "2 * 2 GB = 4 GB", "2 * 2 GB = 5 GB")
    loud = run_cli("check", str(vault))
    assert loud.exit_code == 1
    assert loud.stdout.splitlines()[0].startswith(f"{ITEM}:25:34: ERROR napkin-arithmetic ")
    _edit(vault, "  napkin_math: |", "  napkin_math: |  # sysdrill: ignore[napkin-arithmetic]")
    quiet = run_cli("check", str(vault))
    assert (quiet.exit_code, quiet.stdout) == (
        0,
        "Checked 1 file (1 valid item): 0 errors, 0 warnings, 0 info (1 suppressed).\n",
    )
    document = json.loads(run_cli("check", str(vault), "--json").stdout)
    assert document["suppressed"] == 1
    assert [(f["code"], f["line"]) for f in document["suppressed_findings"]] == [
        ("napkin-arithmetic", 25)
    ]


def test_napkin_tier_that_cannot_load_is_an_error_naming_it(
    run_cli, vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "sysdrill.check.napkin_rules", None)
    result = run_cli("check", str(vault))
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == (
        "Error: the napkin tier (sysdrill.check.napkin_rules) cannot be loaded "
        "(ModuleNotFoundError: import of sysdrill.check.napkin_rules halted; None in "
        "sys.modules); reinstall sysdrill, or run `sysdrill --debug check` for the traceback\n"
    )


def test_pre_commit_hook_runs_check_on_the_vault_files_it_matches(
    run_cli, vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (hook,) = yaml.safe_load(PRE_COMMIT_HOOKS.read_text("utf-8"))
    assert (hook["id"], hook["entry"], hook["language"]) == (
        "sysdrill-check",
        "sysdrill check",
        "python",
    )
    files = re.compile(hook["files"])
    staged = [
        f"vault/{ITEM}",
        "vault/chains.yaml",
        "vault/README.md",
        ".pre-commit-config.yaml",
        ".github/workflows/ci.yml",
    ]
    matched = [name for name in staged if files.search(name)]
    assert matched == [f"vault/{ITEM}", "vault/chains.yaml"]
    monkeypatch.chdir(vault.parent)
    _edit(vault, "level: L3", "level: L1")
    result = run_cli(*hook["entry"].split()[1:], *matched)
    assert result.exit_code == 0
    assert result.stdout.splitlines()[-1] == (
        "Checked 1 file (1 valid item): 0 errors, 1 warning, 0 info."
    )


def test_check_on_a_folder_without_questions_is_one_error_line(run_cli, tmp_path) -> None:
    (tmp_path / "notes").mkdir()
    result = run_cli("check", str(tmp_path / "notes"))

    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        f"Error: '{tmp_path / 'notes'}' has no questions/ folder, so there is nothing to "
        "check; pass the vault folder that holds questions/"
    ]


def test_info_findings_are_counted_but_printed_only_with_info(run_cli, vault: Path) -> None:
    # A field far from any known one is an info note: worth a count, not an author's time.
    _edit(vault, "status: published", "status: published\nreviewer_mood: sunny")
    hidden = run_cli("check", str(vault))
    assert hidden.exit_code == 0, hidden.stdout
    assert hidden.stdout == (
        "Checked 1 file (1 valid item): 0 errors, 0 warnings, 1 info (hidden; --info shows them).\n"
    )
    shown = run_cli("check", str(vault), "--info")
    lines = shown.stdout.splitlines()
    assert len(lines) == 2 and " INFO unknown-field " in lines[0]
    assert lines[1] == "Checked 1 file (1 valid item): 0 errors, 0 warnings, 1 info."
    document = json.loads(run_cli("check", str(vault), "--json").stdout)
    assert [f["code"] for f in document["findings"]] == ["unknown-field"]
    github = run_cli("check", str(vault), "--format", "github")
    assert "::notice" not in github.stdout

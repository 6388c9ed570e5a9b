"""``sysdrill napkin check``: verdicts with line numbers, JSON, and exit codes."""

from __future__ import annotations

import json
from pathlib import Path

ITEM_YAML = """\
id: q-1
details:
  napkin_math: |
    **Calculations:**
    - Per-GPU Batch = 2048 / 128 = 15.
    - Time = 100 MB / (50 GB/s) = 2 ms.
"""


def test_napkin_check_prints_each_verdict_and_exits_1_on_a_wrong_claim(
    run_cli, tmp_path: Path
) -> None:
    path = tmp_path / "notes.md"
    path.write_text("Intro\n2048 / 128 = 15\n1 GB = 1024 MB\n2 * 3 = 6\n", "utf-8")
    result = run_cli("napkin", "check", str(path))
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert (
        lines[0] == f"{path}:2: WRONG 2048 / 128 = 15  "
        "(expected 16 from 2048 / 128; the line says 15; write: 2048 / 128 = 16)"
    )
    assert lines[1].startswith(f"{path}:3: note  1 GB = 1024 MB  (holds only if")
    assert lines[2] == f"{path}:4: ok    2 * 3 = 6  (holds)"
    assert lines[3] == "3 claims: 1 ok, 1 wrong, 1 prefix-ambiguous"
    assert result.stderr == ""


def test_napkin_check_exits_0_when_every_claim_holds(run_cli, tmp_path: Path) -> None:
    path = tmp_path / "ok.txt"
    path.write_text("2 * 3 = 6\nN = 8\n", "utf-8")
    result = run_cli("napkin", "check", str(path))
    assert result.exit_code == 0
    assert result.stdout.splitlines()[-1] == "2 claims: 1 ok, 1 skipped"


def test_napkin_check_reads_standard_input(run_cli) -> None:
    result = run_cli("napkin", "check", "-", input="4 GB/s * 2 = 8 GB\n")
    assert result.exit_code == 1
    assert result.stdout.splitlines()[0] == (
        "-:1: UNITS 4 GB/s * 2 = 8 GB  (the left side is in B/s but the right side is in B)"
    )


def test_napkin_check_reports_yaml_lines_of_an_item_file(run_cli, tmp_path: Path) -> None:
    path = tmp_path / "item.yaml"
    path.write_text(ITEM_YAML, "utf-8")
    result = run_cli("napkin", "check", str(path), "--problems")
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        f"{path}:5: WRONG 2048 / 128 = 15 [details.napkin_math]  "
        "(expected 16 from 2048 / 128; the line says 15; "
        "write: - Per-GPU Batch = 2048 / 128 = 16.)",
        "4 claims: 1 ok, 1 wrong, 2 skipped",
    ]


def test_napkin_check_json_is_machine_readable(run_cli, tmp_path: Path) -> None:
    path = tmp_path / "item.yaml"
    path.write_text(ITEM_YAML, "utf-8")
    result = run_cli("napkin", "check", str(path), "--json")
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    assert data["kind"] == "item"
    assert data["counts"] == {
        "ok": 1,
        "wrong": 1,
        "unit-mismatch": 0,
        "prefix-ambiguous": 0,
        "skipped": 2,
    }
    wrong = [c for c in data["claims"] if c["verdict"] == "wrong"]
    assert wrong == [
        {
            "field": "details.napkin_math",
            "line": 5,
            "column": 34,
            "relation": "=",
            "lhs": "2048 / 128",
            "rhs": "15",
            "verdict": "wrong",
            "computed": 16.0,
            "claimed": 15.0,
            "unit": "",
            "message": "expected 16 from 2048 / 128; the line says 15",
            "suggestion": "- Per-GPU Batch = 2048 / 128 = 16.",
            "claim": "2048 / 128 = 15",
        }
    ]


def test_napkin_check_of_a_missing_file_names_the_fix(run_cli, tmp_path: Path) -> None:
    missing = tmp_path / "nope.txt"
    result = run_cli("napkin", "check", str(missing))
    assert result.exit_code == 1
    assert result.stderr == (
        f"Error: {missing}: no such file; give a text or YAML file, or '-' for stdin\n"
    )


def test_napkin_check_of_invalid_yaml_is_one_error_line(run_cli, tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("a: [1,\nb: }\n", "utf-8")
    result = run_cli("napkin", "check", str(path))
    assert result.exit_code == 1
    assert result.stderr.startswith(f"Error: {path}:2: invalid YAML")
    assert result.stderr.endswith("check it as plain text with --text\n")


def test_napkin_check_of_binary_input_is_refused(run_cli, tmp_path: Path) -> None:
    path = tmp_path / "blob.txt"
    path.write_bytes(b"\xff\xfe\x00 2 * 3 = 7")
    result = run_cli("napkin", "check", str(path))
    assert result.exit_code == 1
    assert result.stderr == f"Error: {path}: not UTF-8 text; save it as UTF-8\n"


def test_napkin_check_without_a_file_is_a_usage_error(run_cli) -> None:
    result = run_cli("napkin", "check")
    assert result.exit_code == 2
    assert "Missing argument 'FILE|-'" in result.stderr

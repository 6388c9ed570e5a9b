"""``sysdrill export`` through the real entry point."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest
import yaml


def _vault(root: Path) -> Path:
    questions = root / "questions"
    questions.mkdir(parents=True)
    cards = [
        {
            "id": "net-0001",
            "format": "flashcard",
            "deck": "Networking",
            "track": "cloud",
            "question": "What is RDMA?",
            "details": {"realistic_solution": "Remote DMA."},
        },
        {
            "id": "net-0002",
            "format": "flashcard",
            "deck": "Networking",
            "track": "edge",
            "question": "What is RoCE?",
            "details": {"realistic_solution": "RDMA over Ethernet."},
            "tags": ["ethernet"],
        },
    ]
    for card in cards:
        (questions / f"{card['id']}.yaml").write_text(yaml.safe_dump(card), encoding="utf-8")
    return root


@pytest.fixture
def vault(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("SYSDRILL_CACHE_DIR", str(tmp_path / "cache"))
    return _vault(tmp_path / "vault")


def test_export_apkg_prints_a_summary(run_cli, vault: Path, tmp_path: Path) -> None:
    out = tmp_path / "net.apkg"

    result = run_cli("export", str(vault), "--format", "apkg", "--out", str(out))

    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith(f"Exported 2 items to {out} (apkg, ")
    assert lines[1:] == ["  flashcard 2", "  decks: sysdrill::Networking"]
    assert zipfile.is_zipfile(out)
    assert any((tmp_path / "cache").iterdir())  # the load cache serves the next export


def test_export_with_filters_and_json_summary(run_cli, vault: Path, tmp_path: Path) -> None:
    out = tmp_path / "edge.csv"

    result = run_cli(
        "export",
        str(vault),
        "-f",
        "csv",
        "-o",
        str(out),
        "--track",
        "edge",
        "--tag",
        "ethernet",
        "--json",
    )

    assert result.exit_code == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary == {
        "format": "csv",
        "out": str(out),
        "items": 1,
        "by_kind": {"flashcard": 1},
        "decks": ["Networking"],
        "filtered_out": 1,
        "skipped": [],
        "size_bytes": out.stat().st_size,
        "media_folder": None,
        "media_files": [],
    }
    assert "What is RoCE?" in out.read_text(encoding="utf-8")


def test_export_lists_files_that_do_not_validate(run_cli, vault: Path, tmp_path: Path) -> None:
    (vault / "questions" / "bad.yaml").write_text("id: bad-1\nformat: flashcard\n", "utf-8")

    result = run_cli("export", str(vault), "--format", "markdown", "--out", str(tmp_path / "m.md"))

    assert result.exit_code == 0, result.stderr
    assert f"Skipped 1 file that does not validate (run `sysdrill check {vault}`):" in (
        result.stdout.splitlines()
    )


def test_export_with_no_match_prints_one_error_line(run_cli, vault: Path, tmp_path: Path) -> None:
    out = tmp_path / "x.apkg"

    result = run_cli("export", str(vault), "--format", "apkg", "--out", str(out), "--level", "L5")

    assert result.exit_code == 1
    assert result.stderr == f"Error: no item in '{vault}' matches --level L5; loosen the filters\n"
    assert not out.exists()


def test_export_of_missing_vault_prints_one_error_line(run_cli, tmp_path: Path) -> None:
    result = run_cli("export", str(tmp_path / "nope"), "--format", "csv", "--out", "x.csv")

    assert result.exit_code == 1
    assert result.stderr == (
        f"Error: vault '{tmp_path / 'nope'}' does not exist; pass an existing vault folder\n"
    )


def test_export_into_missing_folder_prints_one_error_line(
    run_cli, vault: Path, tmp_path: Path
) -> None:
    out = tmp_path / "missing" / "x.csv"

    result = run_cli("export", str(vault), "--format", "csv", "--out", str(out))

    assert result.exit_code == 1
    assert result.stderr == (
        f"Error: folder '{out.parent}' does not exist; create it first or choose another --out\n"
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ("--format", "pdf"),
            "Invalid value for --format: 'pdf' is not one of apkg, anki-text, "
            "csv, staffml-json, markdown",
        ),
        (
            ("--format", "csv", "--level", "L9"),
            "Invalid value for --level: 'L9' is not one of L1, L2, L3, L4, L5, L6+",
        ),
    ],
)
def test_export_usage_mistakes_exit_2(run_cli, vault: Path, tmp_path: Path, args, message) -> None:
    result = run_cli("export", str(vault), "--out", str(tmp_path / "x"), *args)

    assert result.exit_code == 2
    assert message in " ".join(result.stderr.split())
    assert not (tmp_path / "x").exists()


def test_export_help_lists_formats_and_filters(run_cli) -> None:
    result = run_cli("export", "--help")

    assert result.exit_code == 0
    text = " ".join(result.stdout.split())
    for option in ("--format", "--out", "--track", "--level", "--deck", "--tag", "--status"):
        assert option in text
    assert "apkg, anki-text, csv, staffml-json, markdown" in text


@pytest.mark.parametrize(
    ("name", "fmt"),
    [
        ("d.apkg", "apkg"),
        ("d.txt", "anki-text"),
        ("d.CSV", "csv"),
        ("corpus.json", "staffml-json"),
        ("d.md", "markdown"),
    ],
)
def test_export_infers_format_from_out_suffix(
    run_cli, vault: Path, tmp_path: Path, name: str, fmt: str
) -> None:
    result = run_cli("export", str(vault), "--out", str(tmp_path / name), "--json")

    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["format"] == fmt


def test_export_without_format_and_unknown_suffix_exits_2(
    run_cli, vault: Path, tmp_path: Path
) -> None:
    result = run_cli("export", str(vault), "--out", str(tmp_path / "deck.zip"))

    assert result.exit_code == 2
    assert (
        "Invalid value for --format: cannot tell the format from 'deck.zip'; pass --format "
        "(apkg, anki-text, csv, staffml-json, markdown)"
    ) in " ".join(result.stderr.split())


def test_cli_format_names_match_the_library() -> None:
    from sysdrill.cli.export_cmd import EXPORT_FORMATS, SUFFIX_FORMATS
    from sysdrill.interop.export import ExportFormat

    assert EXPORT_FORMATS == tuple(fmt.value for fmt in ExportFormat)
    assert set(SUFFIX_FORMATS.values()) == set(EXPORT_FORMATS)


def test_export_to_dash_writes_the_file_to_stdout_and_the_summary_to_stderr(
    run_cli, vault: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = run_cli("export", str(vault), "--out", "-", "--format", "csv")

    assert result.exit_code == 0, result.stderr
    rows = result.stdout.splitlines()
    assert len(rows) == 3 and "What is RDMA?" in result.stdout and "RDMA over Ethernet." in rows[2]
    assert "Exported 2 items to standard output (csv," in result.stderr
    assert not (tmp_path / "-").exists()


def test_export_to_dash_without_format_exits_2(run_cli, vault: Path) -> None:
    result = run_cli("export", str(vault), "--out", "-")

    assert result.exit_code == 2
    assert "writing to standard output needs --format" in " ".join(result.stderr.split())


def test_exported_file_gets_the_users_normal_mode(run_cli, vault: Path, tmp_path: Path) -> None:
    import os
    import stat

    previous = os.umask(0o022)
    try:
        result = run_cli("export", str(vault), "--out", str(tmp_path / "cards.csv"))
    finally:
        os.umask(previous)
    assert result.exit_code == 0, result.stderr
    assert stat.S_IMODE((tmp_path / "cards.csv").stat().st_mode) == 0o644

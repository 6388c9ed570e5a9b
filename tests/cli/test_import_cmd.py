from __future__ import annotations

import json
from pathlib import Path

import pytest

SEEDS = {
    "000_f94b88cb3c630d3c.txt": ("staffml-web", 1),
    "001_2a349a237ce54e38.txt": ("staffml-web", 1),
    "002_150ee555f9dec9d2.txt": ("quiz-text", 20),
    "003_e725e3b7f745518c.txt": ("exercises-text", 27),
    "004_8c6267489fed25a8.txt": ("flashcards-text", 89),
}
FORMATS = (
    "staffml, staffml-web, quiz-text, exercises-text, flashcards-text, apkg, anki-text, "
    "csv, markdown, obsidian, mochi, crowdanki"
)


def write_quiz(path: Path) -> Path:
    path.write_text(
        "Ring Quiz\nQuestion 1\nWhat does all-reduce return?\nAnswer\nThe sum, on every rank.\n"
        "Question 2\nHow many phases has ring all-reduce?\n",
        encoding="utf-8",
    )
    return path


def test_import_prints_summary_and_creates_vault(run_cli, tmp_path: Path) -> None:
    quiz = write_quiz(tmp_path / "quiz.txt")
    vault = tmp_path / "vault"
    result = run_cli("import", str(quiz), "--into", str(vault), "--no-audit")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines() == [
        f"Imported {quiz} (quiz-text) into {vault}",
        "  (a new vault)",
        "  deck: ring-quiz",
        "  added 2, updated 0, unchanged 0, skipped 0",
        "  + global-quiz-0001  questions/ring-quiz/global-quiz-0001.yaml",
        "  + global-quiz-0002  questions/ring-quiz/global-quiz-0002.yaml",
        "Notes:",
        "  - quiz.txt:6: global-quiz-0002: question 2 has no answer in the source; "
        "imported without one",
    ]
    assert (vault / "questions/ring-quiz/global-quiz-0001.yaml").is_file()


def test_import_into_a_new_folder_gives_the_vault_its_own_id(run_cli, tmp_path: Path) -> None:
    quiz = write_quiz(tmp_path / "quiz.txt")
    vault = tmp_path / "Class Vault"
    assert run_cli("import", str(quiz), "--into", str(vault), "-q").exit_code == 0
    declared = (vault / "vault.yaml").read_text("utf-8")
    assert "id: class-vault-" in declared
    # Importing again keeps the identity the vault was given.
    assert run_cli("import", str(quiz), "--into", str(vault), "-q").exit_code == 0
    assert (vault / "vault.yaml").read_text("utf-8") == declared


def test_import_lists_source_defects_check_will_report(run_cli, tmp_path: Path) -> None:
    quiz = write_quiz(tmp_path / "quiz.txt")
    result = run_cli("import", str(quiz), "--into", str(tmp_path / "vault"))
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    start = lines.index("Source defects `sysdrill check` will report:")
    [defect] = lines[start + 1 :]
    assert defect.startswith("  - questions/ring-quiz/global-quiz-0002.yaml:")
    assert " answer-missing " in defect


def test_import_again_reports_unchanged(run_cli, tmp_path: Path) -> None:
    quiz = write_quiz(tmp_path / "quiz.txt")
    vault = tmp_path / "vault"
    run_cli("import", str(quiz), "--into", str(vault))
    result = run_cli("import", str(quiz), "--into", str(vault))
    assert result.exit_code == 0
    assert "  added 0, updated 0, unchanged 2, skipped 0" in result.stdout.splitlines()


def test_import_json_report(run_cli, tmp_path: Path) -> None:
    quiz = write_quiz(tmp_path / "quiz.txt")
    result = run_cli("import", str(quiz), "--into", str(tmp_path / "v"), "--json")
    assert result.exit_code == 0
    report = json.loads(result.stdout)
    assert report["counts"] == {"added": 2, "updated": 0, "unchanged": 0, "skipped": 0}
    assert report["format"] == "quiz-text"
    assert report["deck"] == "ring-quiz"


def test_dry_run_writes_nothing(run_cli, tmp_path: Path) -> None:
    quiz = write_quiz(tmp_path / "quiz.txt")
    vault = tmp_path / "vault"
    result = run_cli("import", str(quiz), "--into", str(vault), "--dry-run")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0] == f"Would import {quiz} (quiz-text) into {vault}"
    assert lines[-1] == "Dry run: nothing was written."
    assert not vault.exists()


def test_format_and_deck_options(run_cli, tmp_path: Path) -> None:
    quiz = write_quiz(tmp_path / "notes.dat")
    vault = tmp_path / "vault"
    result = run_cli(
        "import", str(quiz), "--into", str(vault), "--format", "quiz-text", "--deck", "Week 1"
    )
    assert result.exit_code == 0, result.stderr
    assert "  deck: week-1" in result.stdout.splitlines()
    assert (vault / "questions/week-1/global-quiz-0001.yaml").is_file()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--format", "docx"], f"Error: unknown format 'docx'; use one of: auto, {FORMATS}"),
    ],
)
def test_unknown_format_is_one_error_line(run_cli, tmp_path: Path, args, message) -> None:
    quiz = write_quiz(tmp_path / "quiz.txt")
    result = run_cli("import", str(quiz), "--into", str(tmp_path / "v"), *args)
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [message]
    assert not (tmp_path / "v").exists()


def test_missing_source_is_one_error_line(run_cli, tmp_path: Path) -> None:
    missing = tmp_path / "nope.txt"
    result = run_cli("import", str(missing), "--into", str(tmp_path / "v"))
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        f"Error: source '{missing}' does not exist; check the path"
    ]


def test_empty_source_is_one_error_line(run_cli, tmp_path: Path) -> None:
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    result = run_cli("import", str(empty), "--into", str(tmp_path / "v"))
    assert result.exit_code == 1
    assert result.stderr.splitlines() == ["Error: 'empty.txt' is empty; nothing to import"]
    assert not (tmp_path / "v").exists()


def test_unrecognisable_source_is_one_error_line(run_cli, tmp_path: Path) -> None:
    letter = tmp_path / "letter.txt"
    letter.write_text("Dear friend,\nall is well.\n", encoding="utf-8")
    result = run_cli("import", str(letter), "--into", str(tmp_path / "v"))
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        "Error: 'letter.txt' matches no import format; pass --format with one of the names "
        "in `sysdrill import --help`"
    ]


def test_binary_source_is_one_error_line(run_cli, tmp_path: Path) -> None:
    blob = tmp_path / "blob.txt"
    blob.write_bytes(b"\x00\x01\x02binary")
    result = run_cli("import", str(blob), "--into", str(tmp_path / "v"), "-f", "quiz-text")
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        "Error: 'blob.txt' is a binary file, not a text source; pass a text file saved as UTF-8"
    ]


def test_into_a_file_is_one_error_line(run_cli, tmp_path: Path) -> None:
    quiz = write_quiz(tmp_path / "quiz.txt")
    result = run_cli("import", str(quiz), "--into", str(quiz))
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        f"Error: '{quiz}' is a file, not a vault folder; pass a folder to --into"
    ]


def test_into_is_required(run_cli, tmp_path: Path) -> None:
    result = run_cli("import", str(write_quiz(tmp_path / "quiz.txt")))
    assert result.exit_code == 2
    assert "Missing option '--into'" in result.stderr


def test_help_lists_every_format(run_cli) -> None:
    result = run_cli("import", "--help")
    assert result.exit_code == 0
    flat = " ".join(result.stdout.split())
    for name in ("auto", *FORMATS.split(", ")):
        assert name in flat


def test_seeds_imported_with_cli_pass_check(run_cli, seeds_dir: Path, tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    defects: list[str] = []
    for name, (format_name, count) in SEEDS.items():
        result = run_cli("import", str(seeds_dir / name), "--into", str(vault), "--json")
        assert result.exit_code == 0, result.stderr
        report = json.loads(result.stdout)
        assert report["format"] == format_name
        assert report["counts"]["added"] == count
        defects += report["defects"]
    result = run_cli("check", str(vault))
    reported = [
        line for line in result.stdout.splitlines() if ": ERROR " in line or ": WARNING " in line
    ]
    assert sorted(reported) == sorted(defects)
    # The quiz's last question has no answer: a true defect of the source, and reported.
    assert any("global-quiz-0020.yaml" in defect for defect in defects)
    errors = [line for line in reported if ": ERROR " in line]
    assert result.exit_code == (1 if errors else 0), result.stdout


def test_huge_source_is_one_error_line(run_cli, tmp_path: Path) -> None:
    huge = tmp_path / "huge.txt"
    with huge.open("wb") as handle:
        handle.truncate(17 * 1024 * 1024)
    result = run_cli("import", str(huge), "--into", str(tmp_path / "v"))
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        "Error: 'huge.txt' is 17.0 MiB, over the 16 MiB limit for one text source; "
        "split it into smaller files"
    ]
    assert not (tmp_path / "v").exists()


def test_utf16_source_imports_as_utf8_files(run_cli, tmp_path: Path) -> None:
    quiz = tmp_path / "quiz.txt"
    quiz.write_bytes("Quiz\nQuestion 1\nWhat is 2¹⁶?\nAnswer\n65 536\n".encode("utf-16"))
    result = run_cli("import", str(quiz), "--into", str(tmp_path / "v"))
    assert result.exit_code == 0, result.stderr
    assert "  - quiz.txt: read as UTF-16" in result.stdout.splitlines()
    written = tmp_path / "v" / "questions" / "quiz" / "global-quiz-0001.yaml"
    assert "question: What is 2¹⁶?" in written.read_text("utf-8")


def _custom_apkg(path: Path) -> Path:
    import genanki

    model = genanki.Model(
        1_700_000_017,
        "Mathe Aufgabe",
        fields=[{"name": "Nummer"}, {"name": "Frage"}, {"name": "Antwort"}],
        templates=[{"name": "Karte 1", "qfmt": "{{Frage}}", "afmt": "{{Antwort}}"}],
    )
    deck = genanki.Deck(1_700_000_201, "Mathe")
    deck.add_note(genanki.Note(model=model, fields=["17", "2 + 2?", "4"], guid="m-17"))
    genanki.Package([deck]).write_to_file(str(path))
    return path


def test_dry_run_previews_the_field_mapping(run_cli, tmp_path: Path) -> None:
    package = _custom_apkg(tmp_path / "mathe.apkg")

    result = run_cli(
        "import", str(package), "--into", str(tmp_path / "v"), "--dry-run", "--map", "Nummer=ignore"
    )

    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[-3:] == [
        "Field mapping (change with --map FIELD=role):",
        "  - Mathe Aufgabe: Nummer -> ignore, Frage -> question, Antwort -> answer",
        "Dry run: nothing was written.",
    ]
    assert not (tmp_path / "v").exists()


def test_map_is_saved_and_reused(run_cli, tmp_path: Path) -> None:
    package = _custom_apkg(tmp_path / "mathe.apkg")
    vault = tmp_path / "v"

    first = run_cli("import", str(package), "--into", str(vault), "--map", "Nummer=ignore")
    again = run_cli("import", str(package), "--into", str(vault), "--no-audit")

    assert first.exit_code == 0, first.stderr
    assert "added 0, updated 0, unchanged 1, skipped 0" in again.stdout
    assert "Nummer: ignore" in (vault / "sysdrill.yaml").read_text("utf-8")


def test_map_with_an_unknown_role_is_a_usage_error(run_cli, tmp_path: Path) -> None:
    package = _custom_apkg(tmp_path / "mathe.apkg")

    result = run_cli("import", str(package), "--into", str(tmp_path / "v"), "--map", "Nummer=x")

    assert result.exit_code == 2
    assert "unknown role 'x'" in result.stderr


def test_import_quiet_prints_nothing_and_imports(run_cli, tmp_path: Path) -> None:
    quiz = write_quiz(tmp_path / "quiz.txt")
    vault = tmp_path / "vault"
    result = run_cli("import", str(quiz), "--into", str(vault), "--quiet")
    assert (result.exit_code, result.stdout, result.stderr) == (0, "", "")
    assert (vault / "questions/ring-quiz/global-quiz-0002.yaml").is_file()


def test_import_quiet_still_prints_an_error(run_cli, tmp_path: Path) -> None:
    result = run_cli("import", str(tmp_path / "missing.txt"), "--into", str(tmp_path), "-q")
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr == (
        f"Error: source '{tmp_path / 'missing.txt'}' does not exist; check the path\n"
    )


def test_import_reports_each_stage_to_a_progress_callback(tmp_path: Path) -> None:
    from datetime import UTC, datetime

    from sysdrill.interop.importer import AUDITING, PREPARING, WRITING, import_source

    quiz = write_quiz(tmp_path / "quiz.txt")
    seen: list[tuple[str, int, int]] = []
    import_source(
        quiz,
        into=tmp_path / "vault",
        now=datetime(2026, 11, 25, tzinfo=UTC),
        progress=lambda stage, done, total: seen.append((stage, done, total)),
    )
    assert [s for s in seen if s[0] == PREPARING] == [
        (PREPARING, 0, 2),
        (PREPARING, 1, 2),
        (PREPARING, 2, 2),
    ]
    assert (WRITING, 8, 8) in seen  # two items, decks.yaml and vault.yaml, staged then moved
    assert seen[-1] == (AUDITING, 2, 2)
    assert [stage for stage, _, _ in seen].index(WRITING) < [s for s, _, _ in seen].index(AUDITING)


def test_import_with_scheduling_into_a_database_without_our_schema_puts_the_vault_back(
    run_cli, tmp_path: Path
) -> None:
    import sqlite3

    package = _custom_apkg(tmp_path / "mathe.apkg")
    vault = tmp_path / "v"
    foreign = tmp_path / "other.db"  # another program's database: never migrated unasked
    with sqlite3.connect(foreign) as conn:
        conn.execute("CREATE TABLE notes (body TEXT)")
    conn.close()

    result = run_cli(
        "import", str(package), "--into", str(vault), "--with-scheduling",
        "--db", f"sqlite:///{foreign}", "-q",
    )  # fmt: skip

    assert result.exit_code == 1
    assert result.stderr.startswith(f"Error: {foreign} is a SQLite database but not a sysdrill")
    assert not vault.exists()


def test_import_with_scheduling_creates_a_new_sqlite_database_and_reports_the_seeding(
    run_cli, tmp_path: Path
) -> None:
    package = _custom_apkg(tmp_path / "mathe.apkg")
    db_file = tmp_path / "study.db"  # a new file in a folder that exists (docs/study.md)

    result = run_cli(
        "import", str(package), "--into", str(tmp_path / "v"), "--with-scheduling",
        "--db", f"sqlite:///{db_file}", "--json",
    )  # fmt: skip

    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["scheduling"] == {"cards": 0, "reviews": 0}
    assert run_cli("db", "upgrade", "--db", f"sqlite:///{db_file}").exit_code == 0


def test_import_reads_a_quizlet_export_with_the_separators_given(run_cli, tmp_path: Path) -> None:
    source = tmp_path / "set.txt"
    source.write_text("HBM => stacked DRAM||NCCL => collectives||", encoding="utf-8")

    result = run_cli(
        "import", str(source), "--into", str(tmp_path / "v"), "--sep", " => ", "--row-sep", "||",
        "--no-audit", "--json",
    )  # fmt: skip

    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)
    assert (report["format"], report["counts"]["added"]) == ("csv", 2)


def test_import_separators_on_another_format_are_one_error_line(run_cli, tmp_path: Path) -> None:
    quiz = write_quiz(tmp_path / "quiz.txt")

    result = run_cli("import", str(quiz), "--into", str(tmp_path / "v"), "-f", "quiz-text",
                     "--sep", "tab")  # fmt: skip

    assert (result.exit_code, result.stderr) == (
        1,
        "Error: --sep and --row-sep apply to CSV and Quizlet text exports (csv), not to "
        "quiz-text; leave them out\n",
    )


def test_import_an_empty_separator_is_a_usage_error(run_cli, tmp_path: Path) -> None:
    quiz = write_quiz(tmp_path / "quiz.txt")

    result = run_cli("import", str(quiz), "--into", str(tmp_path / "v"), "--row-sep", "")

    assert result.exit_code == 2
    assert "Invalid value for --row-sep: --row-sep needs a separator" in result.stderr


def test_import_dry_run_previews_the_roles_of_headerless_columns(run_cli, tmp_path: Path) -> None:
    source = tmp_path / "cards.tsv"
    source.write_text("HBM\tstacked DRAM\tgpu\nNCCL\tcollectives\tcomm\n", encoding="utf-8")

    result = run_cli("import", str(source), "--into", str(tmp_path / "v"), "--dry-run",
                     "--no-audit")  # fmt: skip

    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[-3:] == [
        "Column roles (a header row such as front,back,tags chooses others):",
        "  - column 1 -> front, column 2 -> back, column 3 -> tags",
        "Dry run: nothing was written.",
    ]


def test_import_an_empty_colpkg_is_one_error_line(run_cli, tmp_path: Path) -> None:
    import zipfile

    package = tmp_path / "empty.colpkg"
    with zipfile.ZipFile(package, "w") as archive:
        archive.writestr("meta", b"")

    result = run_cli("import", str(package), "--into", str(tmp_path / "v"))

    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == (
        "Error: 'empty.colpkg' holds no Anki collection (collection.anki21b or "
        "collection.anki21 or collection.anki2); export the deck again from Anki as a deck "
        "package (.apkg) or a collection package (.colpkg)\n"
    )
    assert not (tmp_path / "v").exists()

"""Markdown notes with front matter (Obsidian): '::', ':::', '?' and Q:/A: cards."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from tests.interop.conftest import DATA, card_scores

from sysdrill.errors import HostileInput, ImportFailed
from sysdrill.interop.detect import detect_format
from sysdrill.interop.formats import obsidian
from sysdrill.interop.formats.obsidian import read_obsidian

NOTES = DATA / "obsidian" / "notes"


def test_read_obsidian_recovers_every_card_of_the_fixture_folder() -> None:
    parsed = read_obsidian(NOTES)

    precision, recall, unexpected, missed = card_scores(
        parsed, DATA / "obsidian" / "notes.expected.json"
    )
    assert (unexpected, missed) == ([], [])
    assert (precision, recall) == (1.0, 1.0)


def test_read_obsidian_reads_crlf_notes_as_the_same_cards(tmp_path: Path) -> None:
    copy = tmp_path / "notes"
    shutil.copytree(NOTES, copy)
    for note in copy.rglob("*.md"):
        note.write_bytes(note.read_bytes().replace(b"\n", b"\r\n"))

    parsed = read_obsidian(copy)

    precision, recall, _, _ = card_scores(parsed, DATA / "obsidian" / "notes.expected.json")
    assert (precision, recall) == (1.0, 1.0)


def test_read_obsidian_takes_tags_from_front_matter_and_links_reversed_cards() -> None:
    parsed = read_obsidian(NOTES)
    by_front = {item.data["question"]: item for item in parsed.items}

    assert by_front["Data parallelism all-reduces"].data["tags"] == ["ml"]
    forward, reverse = (
        by_front["Tensor parallelism"],
        by_front["splits each layer's matrices across GPUs"],
    )
    assert forward.group == reverse.group
    assert (forward.data["note_link"]["card"], reverse.data["note_link"]["card"]) == (
        "forward",
        "reverse",
    )
    assert "note_link" not in by_front["勉強"].data


def test_read_obsidian_notes_empty_questions_and_missing_images() -> None:
    parsed = read_obsidian(NOTES)

    assert [(n.message, n.location) for n in parsed.notes if n.skipped] == [
        ("card has an empty question", "Memory.md:16")
    ]
    missing = next(item for item in parsed.items if item.data["question"] == "Missing image?")
    assert [note.message for note in missing.notes] == ["refers to media not imported: nowhere.png"]
    assert len(parsed.media_files) == 2


def test_read_obsidian_single_file_takes_its_deck_from_the_file_name(tmp_path: Path) -> None:
    note = tmp_path / "Quick facts.md"
    note.write_text("NVLink 4 per GPU::900 GB/s\n\nnot a card\n", encoding="utf-8")

    parsed = read_obsidian(note)

    assert [(i.data["deck"], i.data["question"]) for i in parsed.items] == [
        ("Quick facts", "NVLink 4 per GPU")
    ]


def test_read_obsidian_ignores_broken_front_matter_with_a_note(tmp_path: Path) -> None:
    note = tmp_path / "broken.md"
    note.write_text("---\ntags: [unclosed\n---\nA::B\n", encoding="utf-8")

    parsed = read_obsidian(note)

    assert [n.message for n in parsed.notes] == ["front matter is not valid YAML; ignored"]
    assert parsed.items[0].data["question"] == "A"


def test_image_path_leading_outside_the_folder_is_refused(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    shutil.copy(NOTES / "attachments" / "ring.png", tmp_path / "secret.png")
    (notes / "a.md").write_text("Q::![](../secret.png) A\n", encoding="utf-8")

    parsed = read_obsidian(notes)

    assert parsed.media_files == {}
    assert "media file '../secret.png' points outside the source folder; not imported" in [
        n.message for n in parsed.notes
    ]


def test_detect_format_tells_obsidian_notes_from_markdown_qa(tmp_path: Path) -> None:
    plain = tmp_path / "qa.md"
    plain.write_text("# Deck\n\nQ: one\nA: two\n", encoding="utf-8")
    exported = tmp_path / "export.md"
    exported.write_text("<!-- id: x-1 -->\nQ: a::b\nA: c\n", encoding="utf-8")

    assert detect_format(NOTES) == "obsidian"
    assert detect_format(NOTES / "Memory.md") == "obsidian"
    assert detect_format(NOTES / "日本語" / "文法.md") == "obsidian"
    assert detect_format(plain) == "markdown"
    assert detect_format(exported) == "markdown"


def test_import_cli_imports_a_folder_of_notes(run_cli, tmp_path: Path) -> None:
    vault = tmp_path / "vault"

    result = run_cli("import", str(NOTES), "--into", str(vault), "--json")

    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)
    assert (report["format"], report["counts"]["added"]) == ("obsidian", 15)
    again = run_cli("import", str(NOTES), "--into", str(vault), "--format", "obsidian", "--json")
    assert json.loads(again.stdout)["counts"]["unchanged"] == 15


def test_huge_note_is_refused_in_one_line(run_cli, tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    with (notes / "huge.md").open("wb") as sink:
        sink.truncate(17 * 1024 * 1024)

    result = run_cli("import", str(notes), "--into", str(tmp_path / "vault"), "-f", "obsidian")

    assert result.exit_code == 1
    assert result.stderr.startswith("Error: 'huge.md' is ")
    assert result.stderr.count("\n") == 1


def test_folder_with_too_many_notes_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(obsidian, "MAX_NOTE_FILES", 2)
    for n in range(3):
        (tmp_path / f"{n}.md").write_text("a::b\n", encoding="utf-8")

    with pytest.raises(HostileInput, match="holds more than 2 Markdown files"):
        read_obsidian(tmp_path)


def test_empty_single_note_is_refused_but_skipped_in_a_folder(tmp_path: Path) -> None:
    (tmp_path / "empty.md").write_text("  \n", encoding="utf-8")
    (tmp_path / "card.md").write_text("a::b\n", encoding="utf-8")

    with pytest.raises(ImportFailed, match="'empty.md' is empty; nothing to import"):
        read_obsidian(tmp_path / "empty.md")
    parsed = read_obsidian(tmp_path)
    assert [(n.location, n.skipped) for n in parsed.notes] == [("empty.md", True)]
    assert len(parsed.items) == 1


def test_read_obsidian_known_limits_score_as_measured() -> None:
    # '::' in prose makes cards a reader would not want; the scores record that
    # limit (docs/import.md, "What is kept").
    parsed = read_obsidian(DATA / "obsidian" / "limits" / "Hard cases.md")

    precision, recall, unexpected, missed = card_scores(
        parsed, DATA / "obsidian" / "limits.expected.json"
    )
    assert [front for _, front, _ in unexpected] == [
        "Notes on C++ collectives. Ranks live in a std",
        "Dataview-style field",
    ]
    assert (missed, precision, recall) == ([], 0.6, 1.0)


def test_highlights_are_cloze_cards_only_in_notes_tagged_flashcards(tmp_path: Path) -> None:
    tagged = tmp_path / "tagged.md"
    tagged.write_text(
        "#flashcards\n\n==NCCL== runs ==all-reduce== on GPUs.\n\nA `==code==` span.\n",
        encoding="utf-8",
    )
    plain = tmp_path / "plain.md"
    plain.write_text("a::b\n\n==NCCL== is highlighted prose.\n", encoding="utf-8")

    cards = [(i.key.rsplit("#", 1)[-1], i.data["question"]) for i in read_obsidian(tagged).items]
    links = {i.data["note_link"]["text"] for i in read_obsidian(tagged).items}

    assert cards == [
        ("c1", "[...] runs all-reduce on GPUs."),
        ("c2", "NCCL runs [...] on GPUs."),
    ]
    assert links == {"{{c1::NCCL}} runs {{c2::all-reduce}} on GPUs."}
    assert [i.data["question"] for i in read_obsidian(plain).items] == ["a"]

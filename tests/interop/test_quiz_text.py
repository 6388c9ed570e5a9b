from __future__ import annotations

from pathlib import Path

import pytest

from sysdrill.content.models import validate_item
from sysdrill.errors import ImportFailed
from sysdrill.interop.formats.quiz_text import read_quiz_text
from sysdrill.interop.source import ParsedItem

SEED = "002_150ee555f9dec9d2.txt"


def read_quiz(tmp_path: Path, text: str) -> list[ParsedItem]:
    path = tmp_path / "quiz.txt"
    path.write_text(text, encoding="utf-8")
    return read_quiz_text(path).items


def test_seed_quiz_has_twenty_items_in_one_chapter_deck(seeds_dir: Path) -> None:
    source = read_quiz_text(seeds_dir / SEED)
    assert source.format == "quiz-text"
    assert source.deck == "Chapter 26: Quiz"
    assert len(source.items) == 20
    assert [item.key for item in source.items] == [
        f"chapter-26-quiz/question-{n}" for n in range(1, 21)
    ]
    assert all(item.data["format"] == "quiz" for item in source.items)


def test_seed_answers_are_split_where_next_question_runs_on(seeds_dir: Path) -> None:
    raw = (seeds_dir / SEED).read_text("utf-8")
    items = read_quiz_text(seeds_dir / SEED).items
    answered = [item for item in items if "details" in item.data]
    assert len(answered) == 19
    for number, item in enumerate(answered, 1):
        answer = item.data["details"]["realistic_solution"]
        # In the seed each answer runs straight into the next marker on its line.
        assert f"{answer}Question {number + 1}" in raw, number
        assert "Question" not in answer[-20:]
        assert item.data["question"] in raw
        assert not item.data["question"].startswith(("Question", "Answer"))


def test_seed_latex_and_markdown_are_kept(seeds_dir: Path) -> None:
    raw = (seeds_dir / SEED).read_text("utf-8")
    items = read_quiz_text(seeds_dir / SEED).items
    answer = items[0].data["details"]["realistic_solution"]
    assert "\\frac{" in answer and "**" in answer and answer in raw
    assert "\\times 10^{22}" in items[17].data["details"]["realistic_solution"]


def test_seed_question_twenty_is_kept_without_answer_and_noted(seeds_dir: Path) -> None:
    raw = (seeds_dir / SEED).read_text("utf-8")
    last = read_quiz_text(seeds_dir / SEED).items[-1]
    assert last.key.endswith("question-20")
    assert "details" not in last.data
    assert last.data["has_reference_answer"] is False
    assert raw.rstrip().endswith(last.data["question"])
    [note] = last.notes
    assert "question 20 has no answer" in note.message
    assert not note.skipped
    validate_item({"id": "global-quiz-1", **last.data})


def test_out_of_sequence_marker_stays_in_text(tmp_path: Path) -> None:
    items = read_quiz(
        tmp_path,
        "Mini Quiz\nQuestion 1\nWhat is 1+1?\nAnswer\nTwo. See Question 7\nQuestion 2\n"
        "Why?\nAnswer\nBecause.\n",
    )
    assert len(items) == 2
    assert items[0].data["details"]["realistic_solution"] == "Two. See Question 7"


def test_quiz_without_markers_fails(tmp_path: Path) -> None:
    with pytest.raises(ImportFailed, match="has no 'Question N' lines"):
        read_quiz(tmp_path, "A title\nno questions here\n")


def test_utf16_quiz_reads_like_utf8(tmp_path: Path) -> None:
    path = tmp_path / "quiz.txt"
    path.write_bytes("Quiz\nQuestion 1\nWhat is 2¹⁰?\nAnswer\n1024\n".encode("utf-16"))
    source = read_quiz_text(path)
    assert source.items[0].data["question"] == "What is 2¹⁰?"
    assert any(note.message == "read as UTF-16" for note in source.notes)


def test_inline_question_and_answer_labels(tmp_path: Path) -> None:
    items = read_quiz(
        tmp_path,
        "Short Quiz\nQuestion 1: What is a ring?\nAnswer: A loop of ranks.\n"
        "Question 2.\nWhy bucket gradients?\nAnswer\nTo overlap communication.\n",
    )
    assert [item.data["question"] for item in items] == [
        "What is a ring?",
        "Why bucket gradients?",
    ]
    assert [item.data["details"]["realistic_solution"] for item in items] == [
        "A loop of ranks.",
        "To overlap communication.",
    ]

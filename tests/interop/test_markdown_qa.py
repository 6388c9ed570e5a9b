"""Reading Markdown question-and-answer files."""

from __future__ import annotations

from pathlib import Path

from sysdrill.interop.formats.markdown_qa import read_markdown_qa


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "qa.md"
    path.write_text(text, encoding="utf-8")
    return path


def test_read_markdown_qa_reads_q_and_a_pairs_with_deck_and_sections(tmp_path: Path) -> None:
    text = (
        "# Distributed training\n\n"
        "## Pipelines\n\n"
        "Q: What is the bubble fraction\nfor P stages?\n"
        "A: $(P-1)/(M+P-1)$\n\n- more micro-batches shrink it\n\n"
        "**Q:** Why interleave?\n**A:** Smaller bubbles.\n"
        "```\nQ: not a question inside code\n```\n"
        "<!-- id: dist-0007 -->\n"
        "Question: Unanswered?\n"
    )

    source = read_markdown_qa(_write(tmp_path, text))

    assert source.deck == "Distributed training"
    assert [item.data for item in source.items] == [
        {
            "format": "flashcard",
            "question": "What is the bubble fraction\nfor P stages?",
            "details": {"realistic_solution": "$(P-1)/(M+P-1)$\n\n- more micro-batches shrink it"},
            "tags": ["Pipelines"],
            "deck": "Distributed training",
        },
        {
            "format": "flashcard",
            "question": "Why interleave?",
            "details": {
                "realistic_solution": "Smaller bubbles.\n```\nQ: not a question inside code\n```"
            },
            "tags": ["Pipelines"],
            "deck": "Distributed training",
        },
        {
            "format": "quiz",
            "question": "Unanswered?",
            "tags": ["Pipelines"],
            "deck": "Distributed training",
        },
    ]
    assert source.items[2].preferred_id == "dist-0007"
    assert source.items[2].key == "id:dist-0007"
    assert source.items[0].key.startswith("question:")


def test_read_markdown_qa_reads_headings_as_questions_and_sections_as_tags(
    tmp_path: Path,
) -> None:
    text = (
        "# Deck title\n\n"
        "## Memory\n\n"
        "### What limits decode throughput?\n\nHBM bandwidth.\n\n"
        "### Why use paged KV caches?\n\nLess fragmentation.\n\n"
        "## Empty section\n"
    )

    source = read_markdown_qa(_write(tmp_path, text))

    assert [(i.data["question"], i.data["details"], i.data["tags"]) for i in source.items] == [
        ("What limits decode throughput?", {"realistic_solution": "HBM bandwidth."}, ["Memory"]),
        ("Why use paged KV caches?", {"realistic_solution": "Less fragmentation."}, ["Memory"]),
    ]
    assert source.deck == "Deck title"


def test_read_markdown_qa_without_questions_says_so(tmp_path: Path) -> None:
    source = read_markdown_qa(_write(tmp_path, "Just prose, no questions.\n"))

    assert source.items == []
    assert [n.message for n in source.notes] == ["no questions found: write 'Q:' and 'A:' lines"]

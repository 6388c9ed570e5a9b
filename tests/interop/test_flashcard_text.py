from __future__ import annotations

from pathlib import Path

import pytest

from sysdrill.content.models import validate_item
from sysdrill.errors import ImportFailed
from sysdrill.interop.formats.flashcard_text import read_flashcards_text, split_topic

SEED = "004_8c6267489fed25a8.txt"
BOILERPLATE = ("How well did you know this", "Not at all", "Perfectly")


def test_seed_has_all_89_cards(seeds_dir: Path) -> None:
    source = read_flashcards_text(seeds_dir / SEED)
    assert source.deck == (seeds_dir / SEED).read_text("utf-8").splitlines()[0]
    assert len(source.items) == 89
    assert [item.key.rsplit("-", 1)[1] for item in source.items] == [str(n) for n in range(1, 90)]
    assert not source.notes


def test_seed_cards_are_free_of_rating_boilerplate(seeds_dir: Path) -> None:
    for item in read_flashcards_text(seeds_dir / SEED).items:
        text = item.data["question"] + "\n" + item.data["details"]["realistic_solution"]
        assert not any(phrase in text for phrase in BOILERPLATE), item.key
        assert not text.rstrip().endswith("\n5")


def test_seed_every_card_has_front_back_and_topic_tag(seeds_dir: Path) -> None:
    items = read_flashcards_text(seeds_dir / SEED).items
    for number, item in enumerate(items, 1):
        assert item.data["format"] == "flashcard"
        assert item.data["question"].strip()
        assert item.data["details"]["realistic_solution"].strip()
        assert len(item.data["tags"]) == 1, item.key
        validate_item({"id": f"global-flashcard-{number}", **item.data})
    tags = [item.data["tags"][0] for item in items]
    assert "Pipeline Parallelism" in tags  # the README's example
    for item, tag in zip(items, tags, strict=True):
        assert tag in item.data["question"].split(":")[0]


def test_seed_numbered_layout_keeps_bullets(seeds_dir: Path) -> None:
    raw = (seeds_dir / SEED).read_text("utf-8")
    first = read_flashcards_text(seeds_dir / SEED).items[0].data
    assert f"Q\n\n{first['question']}\n\nA\n" in raw
    back = first["details"]["realistic_solution"].splitlines()
    assert f"A\n\n{back[0]}\n" in raw
    bullets = [line for line in back if line.startswith("- ")]
    assert len(bullets) == 5
    for bullet in bullets:
        assert f"  • {bullet[2:]}" in raw
    assert "•" not in first["details"]["realistic_solution"]


def test_seed_dense_layout_puts_bullets_on_lines(seeds_dir: Path) -> None:
    raw = (seeds_dir / SEED).read_text("utf-8")
    card = read_flashcards_text(seeds_dir / SEED).items[54].data
    assert f"\n55\n{card['question']}\n" in raw
    assert card["tags"] == ["Pipeline Parallelism"]
    back = card["details"]["realistic_solution"].splitlines()
    assert "- P=4, M=16: 16% bubble" in back  # the README's example claim
    assert " - ".join(back).replace("- - ", "- ") in raw


def test_split_topic_handles_both_layouts() -> None:
    assert split_topic("FSDP: Why gather?") == ("FSDP", "Why gather?")
    assert split_topic("*Memory Anatomy:* What?") == ("Memory Anatomy", "What?")
    assert split_topic("No topic here?") == (None, "No topic here?")


def test_declared_count_mismatch_is_noted(tmp_path: Path) -> None:
    path = tmp_path / "deck.txt"
    path.write_text(
        "Tiny Deck\n(3 cards)\n1\nQ\nTopic: Front one?\nA\nBack one\n"
        "How well did you know this?\n1\nNot at all\n2\n3\n4\n5\nPerfectly\n"
        "2\n*Topic:* Front two?\n**Back two** - x - y\n",
        encoding="utf-8",
    )
    source = read_flashcards_text(path)
    assert len(source.items) == 2
    assert "says it has 3 cards but 2 were found" in source.notes[0].message
    assert source.items[1].data["details"]["realistic_solution"] == "**Back two**\n- x\n- y"


def test_card_without_back_is_skipped_with_reason(tmp_path: Path) -> None:
    path = tmp_path / "deck.txt"
    path.write_text("Deck\n1\nQ\nFront?\nA\n\n2\nQ\nSecond?\nA\nYes\n", encoding="utf-8")
    source = read_flashcards_text(path)
    assert [item.key for item in source.items] == ["deck/card-2"]
    [note] = source.notes
    assert note.skipped and "card 1: no back" in note.message


def test_text_without_cards_fails(tmp_path: Path) -> None:
    path = tmp_path / "deck.txt"
    path.write_text("Deck\nno cards\n", encoding="utf-8")
    with pytest.raises(ImportFailed, match="has no numbered cards"):
        read_flashcards_text(path)

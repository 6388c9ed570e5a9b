"""sysdrill's CSV, Anki text and Markdown exports come back into sysdrill whole, once.

Each format: export a small vault made here, import into a new vault and compare
the items field by field, import into the vault it came from and see nothing
change, edit the file and see the item updated in place. The seed repro runs
the commands a new user ran.
"""

from __future__ import annotations

import csv
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import yaml

from sysdrill.content.loader import load_vault
from sysdrill.interop.export import export_vault
from sysdrill.interop.formats.exported_card import split_back
from sysdrill.interop.importer import import_source

NOW = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
LATER = datetime(2026, 12, 2, 9, 0, tzinfo=UTC)
IMPORT_STAMPS = ("provenance", "source", "created_at", "updated_at")

SCENARIO_QUESTION: dict[str, Any] = {
    "id": "cloud-0900",
    "title": "Bubble budget",
    "track": "cloud",
    "level": "L5",
    "topic": "pipeline-parallelism",
    "zone": "analyze",
    "bloom_level": "analyze",
    "competency_area": "parallelism",
    "phase": "both",
    "scenario": "Four pipeline stages run sixteen micro-batches per step.",
    "question": "What fraction of each step is bubble?",
    "details": {
        "realistic_solution": "About 16 %, from (P-1)/(M+P-1).",
        "napkin_math": "**Calculations:**\n- 3 / 19 = 0.158",
        "common_mistake": "**The Pitfall:** x\n**The Rationale:** y\n**The Consequence:** z",
    },
    "status": "published",
    "tags": ["pipeline", "memory bound"],
}
FLASHCARD: dict[str, Any] = {
    "id": "edge-flashcard-0001",
    "format": "flashcard",
    "track": "edge",
    "level": "L2",
    "zone": "recall",
    "topic": "quantization",
    "question": "What does INT8 weight quantization save over FP16?",
    "details": {"realistic_solution": "Half the weight memory."},
    "status": "draft",
    "deck": "quant",
}
NUMERIC: dict[str, Any] = {
    "id": "global-numeric-0001",
    "format": "numeric",
    "level": "L3",
    "question": "How many GB do 7B FP16 parameters take?",
    "answer_value": 14,
    "answer_unit": "GB",
    "answer_tolerance": 0.05,
    "details": {"realistic_solution": "Two bytes each.", "napkin_math": "7e9 * 2 B = 14 GB"},
    "status": "published",
}


def _write_vault(root: Path) -> Path:
    for item in (SCENARIO_QUESTION, FLASHCARD, NUMERIC):
        folder = root / "questions" / str(item.get("track", "global"))
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{item['id']}.yaml").write_text(
            yaml.safe_dump(item, allow_unicode=True, sort_keys=False), encoding="utf-8"
        )
    (root / "decks.yaml").write_text(
        "decks:\n- name: quant\n  title: Quantization\n  items: [edge-flashcard-0001]\n",
        encoding="utf-8",
    )
    return root


def _exported(tmp_path: Path, format: str, suffix: str) -> tuple[Path, Path]:
    """The test vault and the file ``sysdrill export`` wrote of it in ``format``."""
    vault = _write_vault(tmp_path / "vault")
    out = tmp_path / f"export.{suffix}"
    export_vault(vault, format=format, out=out, now=NOW)
    return vault, out


def _fields(root: Path) -> dict[str, dict[str, Any]]:
    loaded = load_vault(root)
    assert [f.rel for f in loaded.files if f.item is None] == []
    return {
        item.id: {k: v for k, v in item.model_dump(mode="json").items() if k not in IMPORT_STAMPS}
        for item in loaded.items
    }


def _files(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): p.read_text("utf-8") for p in root.rglob("*.yaml") if p.is_file()
    }


@pytest.mark.parametrize(
    ("format", "suffix"), [("csv", "csv"), ("anki-text", "txt"), ("markdown", "md")]
)
def test_reimporting_an_export_into_its_own_vault_changes_nothing(
    tmp_path: Path, format: str, suffix: str
) -> None:
    vault, out = _exported(tmp_path, format, suffix)
    before = _files(vault)

    report = import_source(out, into=vault, now=LATER)

    assert (len(report.added), len(report.updated), len(report.skipped)) == (0, 0, 0)
    assert sorted(o.id or "" for o in report.unchanged) == sorted(
        ["cloud-0900", "edge-flashcard-0001", "global-numeric-0001"]
    )
    assert _files(vault) == before


def test_csv_export_comes_back_whole_in_a_new_vault(tmp_path: Path) -> None:
    vault, out = _exported(tmp_path, "csv", "csv")

    first = import_source(out, into=tmp_path / "copy", now=LATER)
    again = import_source(out, into=tmp_path / "copy", now=LATER)

    assert sorted(o.id or "" for o in first.added) == sorted(_fields(vault))
    assert not [n for n in first.notes if "ignored" in n.message]
    assert _fields(tmp_path / "copy") == _fields(vault)
    copied = _fields(tmp_path / "copy")["cloud-0900"]
    assert (copied["format"], copied["zone"], copied["status"]) == (
        "question",
        "analyze",
        "published",
    )
    assert copied["details"]["napkin_math"] == SCENARIO_QUESTION["details"]["napkin_math"]
    assert (len(again.added), len(again.updated), len(again.unchanged)) == (0, 0, 3)


def test_an_edited_csv_row_updates_its_item_in_place(tmp_path: Path) -> None:
    vault, out = _exported(tmp_path, "csv", "csv")
    with out.open(encoding="utf-8", newline="") as stream:
        rows = list(csv.DictReader(stream))
    row = next(r for r in rows if r["id"] == "cloud-0900")
    row["back"] = row["back"].replace("3 / 19 = 0.158", "3 / 19 = 0.16")
    row["level"] = "L4"
    with out.open("w", encoding="utf-8", newline="") as stream:
        writer = csv.DictWriter(stream, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)

    report = import_source(out, into=vault, now=LATER)

    assert [o.id for o in report.updated] == ["cloud-0900"]
    assert len(report.unchanged) == 2
    item = _fields(vault)["cloud-0900"]
    assert item["level"] == "L4"
    assert item["details"]["napkin_math"] == "**Calculations:**\n- 3 / 19 = 0.16"
    assert item["details"]["common_mistake"] == SCENARIO_QUESTION["details"]["common_mistake"]
    assert item["title"] == "Bubble budget"
    raw = yaml.safe_load((vault / "questions/cloud/cloud-0900.yaml").read_text("utf-8"))
    assert raw["updated_at"] == "2026-12-02T09:00:00+00:00"
    assert "source" not in raw


def test_an_edited_anki_text_back_updates_the_item_its_guid_names(tmp_path: Path) -> None:
    vault, out = _exported(tmp_path, "anki-text", "txt")
    text = out.read_text("utf-8")
    assert "Half the weight memory." in text
    out.write_text(text.replace("Half the weight memory.", "Half the weight bytes."), "utf-8")

    report = import_source(out, into=vault, now=LATER)

    assert [o.id for o in report.updated] == ["edge-flashcard-0001"]
    assert (len(report.added), len(report.unchanged)) == (0, 2)
    item = _fields(vault)["edge-flashcard-0001"]
    assert item["details"]["realistic_solution"] == "Half the weight bytes."
    assert (item["zone"], item["deck"]) == ("recall", "quant")


def test_anki_text_export_keeps_track_level_topic_and_deck_in_a_new_vault(tmp_path: Path) -> None:
    vault, out = _exported(tmp_path, "anki-text", "txt")

    first = import_source(out, into=tmp_path / "copy", now=LATER)
    again = import_source(out, into=tmp_path / "copy", now=LATER)

    items = list(_fields(tmp_path / "copy").values())
    card = next(i for i in items if i["question"] == FLASHCARD["question"])
    assert (card["format"], card["track"], card["level"], card["topic"]) == (
        "flashcard",
        "edge",
        "L2",
        "quantization",
    )
    assert card["deck"] == "quantization"
    scenario = next(i for i in items if i["track"] == "cloud")
    assert scenario["competency_area"] == "parallelism"
    assert scenario["tags"] == ["pipeline", "memory_bound"]
    assert (len(first.added), len(again.unchanged)) == (3, 3)


def test_markdown_export_keeps_ids_and_track_and_level_headings_in_a_new_vault(
    tmp_path: Path,
) -> None:
    vault, out = _exported(tmp_path, "markdown", "md")

    import_source(out, into=tmp_path / "copy", now=LATER)

    items = _fields(tmp_path / "copy")
    assert sorted(items) == sorted(_fields(vault))
    assert (items["cloud-0900"]["track"], items["cloud-0900"]["level"]) == ("cloud", "L5")
    assert items["edge-flashcard-0001"]["deck"] == "quantization"


def test_a_back_splits_into_answer_napkin_math_and_common_mistake() -> None:
    back = "The answer.\n\n**Napkin math**\n\n2 * 3 = 6\n\n**Common mistake**\n\nForgetting x."

    assert split_back(back) == {
        "realistic_solution": "The answer.",
        "napkin_math": "2 * 3 = 6",
        "common_mistake": "Forgetting x.",
    }
    assert split_back("Mentions **Napkin math** in prose.") == {
        "realistic_solution": "Mentions **Napkin math** in prose."
    }


@pytest.mark.parametrize("suffix", ["txt", "csv", "md"])
def test_seed_import_then_export_then_import_adds_no_duplicate(
    run_cli: Any, seeds_dir: Path, tmp_path: Path, suffix: str
) -> None:
    vault = tmp_path / "v"
    out = tmp_path / f"out.{suffix}"
    seed = seeds_dir / "000_f94b88cb3c630d3c.txt"
    assert run_cli("import", str(seed), "--into", str(vault), "-q").exit_code == 0
    assert run_cli("export", str(vault), "-o", str(out), "-q").exit_code == 0

    again = run_cli("import", str(out), "--into", str(vault))
    fresh = run_cli("import", str(out), "--into", str(tmp_path / "v2"))

    assert again.exit_code == 0, again.stderr
    assert "added 0, updated 0, unchanged 1, skipped 0" in again.stdout
    assert [p.name for p in vault.rglob("*.yaml") if p.parent.name != "v"] == ["cloud-1013.yaml"]
    assert fresh.exit_code == 0, fresh.stderr
    assert "columns ignored" not in fresh.stdout
    if suffix == "csv":
        assert _fields(tmp_path / "v2") == _fields(vault)


def test_an_edited_multiple_choice_card_is_left_to_its_file_with_a_note(tmp_path: Path) -> None:
    vault = _write_vault(tmp_path / "vault")
    choice = {
        **SCENARIO_QUESTION,
        "id": "cloud-0901",
        "details": {
            **SCENARIO_QUESTION["details"],
            "options": ["5 %", "16 %", "30 %", "50 %"],
            "correct_index": 1,
        },
    }
    (vault / "questions/cloud/cloud-0901.yaml").write_text(yaml.safe_dump(choice), "utf-8")
    out = tmp_path / "export.md"
    export_vault(vault, format="markdown", out=out, now=NOW)
    before = _files(vault)
    out.write_text(out.read_text("utf-8").replace("C. 30 %", "C. 35 %"), "utf-8")

    report = import_source(out, into=vault, now=LATER)

    assert (len(report.updated), len(report.unchanged)) == (0, 4)
    assert [n.message for n in report.notes] == [
        "cloud-0901: the card's question changed, but a question card does not say which "
        "field; edit the item's file instead"
    ]
    assert _files(vault) == before


def test_a_csv_row_whose_item_cell_is_not_its_item_is_read_as_a_card(tmp_path: Path) -> None:
    out = tmp_path / "cards.csv"
    out.write_text(
        'id,front,back,item\nq-1,What is NCCL?,A collectives library,"{""id"": ""q-2""}"\n',
        encoding="utf-8",
    )

    report = import_source(out, into=tmp_path / "vault", now=NOW)

    assert [o.id for o in report.added] == ["q-1"]
    assert [n.message for n in report.notes] == [
        "the item column is not this row's item as JSON; read as a card"
    ]
    item = _fields(tmp_path / "vault")["q-1"]
    assert (item["format"], item["details"]["realistic_solution"]) == (
        "flashcard",
        "A collectives library",
    )

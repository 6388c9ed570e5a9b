"""The scale bench's source (bench/large_source.py): distinct cards that import cleanly.

The import timing means something only if every card is a different item that the
CSV reader takes, validates and the audit passes without findings.
"""

from __future__ import annotations

import sys
from datetime import UTC, datetime
from pathlib import Path

from sysdrill.interop.importer import import_source

BENCH = Path(__file__).resolve().parents[2] / "bench"


def test_the_generated_cards_import_as_distinct_items_without_defects(tmp_path: Path) -> None:
    sys.path.insert(0, str(BENCH))
    try:
        from large_source import write_card_csv
    finally:
        sys.path.remove(str(BENCH))
    source = tmp_path / "cards.csv"
    write_card_csv(source, 60)
    report = import_source(source, into=tmp_path / "vault", now=datetime(2026, 11, 25, tzinfo=UTC))
    assert len(report.added) == 60
    assert report.defects == []
    questions = {
        path.read_text("utf-8").split("question: ", 1)[1].split("\n", 1)[0]
        for path in (tmp_path / "vault" / "questions").rglob("*.yaml")
    }
    assert len(questions) == 60
    decks = (tmp_path / "vault" / "questions" / "scale").iterdir()
    assert len(list(decks)) == 25  # one folder per deck, as the CSV names them

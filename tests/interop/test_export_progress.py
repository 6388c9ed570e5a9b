"""What ``export_vault`` reports to its progress callback, in every format."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
import yaml

from sysdrill.errors import ExportFailed
from sysdrill.interop.export import export_vault
from sysdrill.interop.export.service import READING, WRITING

NOW = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)


def _vault(root: Path) -> Path:
    questions = root / "questions"
    questions.mkdir(parents=True)
    for n in range(3):
        card = {
            "id": f"gpu-{n:04d}",
            "format": "flashcard",
            "deck": "GPUs" if n < 2 else "Networking",
            "question": f"Question {n}?",
            "details": {"realistic_solution": f"Answer {n}."},
        }
        (questions / f"gpu-{n:04d}.yaml").write_text(yaml.safe_dump(card), encoding="utf-8")
    (questions / "broken.yaml").write_text("id: [\n", encoding="utf-8")
    return root


@pytest.mark.parametrize("fmt", ["apkg", "anki-text", "csv", "staffml-json", "markdown"])
def test_export_reports_each_file_read_then_the_items_written(tmp_path: Path, fmt: str) -> None:
    seen: list[tuple[str, int, int]] = []

    export_vault(
        _vault(tmp_path / "vault"),
        format=fmt,
        out=tmp_path / "out",
        now=NOW,
        progress=lambda stage, done, total: seen.append((stage, done, total)),
    )

    reading = [entry for entry in seen if entry[0] == READING]
    writing = [entry for entry in seen if entry[0] == WRITING]
    assert reading == [(READING, n, 4) for n in range(1, 5)]  # the broken file is read too
    assert writing[0] == (WRITING, 0, 3)
    assert writing[-1] == (WRITING, 3, 3)
    assert [done for _, done, _ in writing] == sorted(done for _, done, _ in writing)
    assert seen.index(reading[-1]) < seen.index(writing[0])


def test_export_into_a_missing_folder_fails_before_reading_the_vault(tmp_path: Path) -> None:
    seen: list[tuple[str, int, int]] = []

    with pytest.raises(ExportFailed, match="does not exist; create it first"):
        export_vault(
            _vault(tmp_path / "vault"),
            format="csv",
            out=tmp_path / "missing" / "out.csv",
            now=NOW,
            progress=lambda stage, done, total: seen.append((stage, done, total)),
        )
    assert seen == []

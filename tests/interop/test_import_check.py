"""``check`` on decks imported from Anki and Quizlet (issue 31, item 7).

Their numbers are not napkin math: the decks an import creates say
``skip_napkin_check``, so neither the import report nor ``sysdrill check``
reads "96 - 12" in a chemistry deck as a claim, while a deck written by hand is
still judged.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import genanki
import pytest
import yaml

from sysdrill.interop.importer import import_source

NOW = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
BOND = ("Carbon-carbon bond energy?", "C-C bond: 96 - 12 = 348 kJ/mol")


@pytest.fixture(autouse=True)
def _cache_in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SYSDRILL_CACHE_DIR", str(tmp_path / "cache"))


def _anki_package(tmp_path: Path) -> Path:
    deck = genanki.Deck(1_700_031_201, "Chemistry::Bonds")
    deck.add_note(genanki.Note(model=genanki.BASIC_MODEL, fields=list(BOND), guid="bond-1"))
    path = tmp_path / "chemistry.apkg"
    genanki.Package(deck).write_to_file(str(path))
    return path


def _quizlet_export(tmp_path: Path) -> Path:
    path = tmp_path / "bonds.txt"
    path.write_text(f"{BOND[0]}\t{BOND[1]}\nIonic bond?\tNa+ and Cl-\n", encoding="utf-8")
    return path


def _decks(vault: Path) -> list[dict[str, object]]:
    decks: list[dict[str, object]] = yaml.safe_load((vault / "decks.yaml").read_text("utf-8"))[
        "decks"
    ]
    return decks


@pytest.mark.parametrize("source", [_anki_package, _quizlet_export], ids=["anki", "quizlet"])
def test_a_flashcard_app_deck_is_imported_without_napkin_findings(
    tmp_path: Path, run_cli, source
) -> None:
    vault = tmp_path / "vault"

    report = import_source(source(tmp_path), into=vault, now=NOW)

    assert [deck.get("skip_napkin_check") for deck in _decks(vault)] == [True]
    assert [line for line in report.defects if "napkin" in line] == []
    result = run_cli("check", str(vault))
    assert "napkin-arithmetic" not in result.stdout, result.stdout


def test_a_deck_set_back_to_napkin_math_is_judged_again(tmp_path: Path, run_cli) -> None:
    vault = tmp_path / "vault"
    import_source(_anki_package(tmp_path), into=vault, now=NOW)
    decks = vault / "decks.yaml"
    decks.write_text(
        decks.read_text("utf-8").replace("skip_napkin_check: true", "skip_napkin_check: false"),
        encoding="utf-8",
    )

    result = run_cli("check", str(vault))

    assert result.exit_code == 1
    assert "napkin-arithmetic" in result.stdout


def test_a_reimport_keeps_the_setting_the_author_chose(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    package = _anki_package(tmp_path)
    import_source(package, into=vault, now=NOW)
    decks = vault / "decks.yaml"
    decks.write_text(
        decks.read_text("utf-8").replace("skip_napkin_check: true", "skip_napkin_check: false"),
        encoding="utf-8",
    )

    report = import_source(package, into=vault, now=NOW)

    assert [deck.get("skip_napkin_check") for deck in _decks(vault)] == [False]
    assert any("napkin-arithmetic" in line for line in report.defects)


def test_a_markdown_deck_written_by_hand_is_still_judged(tmp_path: Path) -> None:
    notes = tmp_path / "notes.md"
    notes.write_text(f"Q: {BOND[0]}\nA: {BOND[1]}\n", encoding="utf-8")
    vault = tmp_path / "vault"

    report = import_source(notes, into=vault, deck="Chemistry", now=NOW)

    assert [deck.get("skip_napkin_check") for deck in _decks(vault)] == [None]
    assert any("napkin-arithmetic" in line for line in report.defects)

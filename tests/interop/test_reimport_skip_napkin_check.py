"""Re-importing a flashcard app's file gives its earlier decks ``skip_napkin_check`` (issue 31).

Decks imported before the setting existed say nothing of it; importing the same
file again writes it onto them, and leaves alone the decks an author wrote and
those that state the setting.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml


def _decks(vault: Path) -> dict[str, dict[str, Any]]:
    raw = yaml.safe_load((vault / "decks.yaml").read_text("utf-8"))
    return {entry["name"]: entry for entry in raw["decks"]}


def _rewrite_decks(vault: Path, change: Any) -> None:
    raw = yaml.safe_load((vault / "decks.yaml").read_text("utf-8"))
    change(raw["decks"])
    (vault / "decks.yaml").write_text(yaml.safe_dump(raw, allow_unicode=True), encoding="utf-8")


def _import(run_cli: Any, source: Path, vault: Path, *args: str) -> None:
    result = run_cli("import", str(source), "--into", str(vault), *args)
    assert result.exit_code == 0, result.stderr


def _forget_the_setting(decks: list[dict[str, Any]]) -> None:
    """What an import made before ``skip_napkin_check`` existed."""
    for entry in decks:
        entry.pop("skip_napkin_check", None)


def test_reimporting_a_quizlet_set_marks_the_deck_an_earlier_import_made(
    run_cli: Any, tmp_path: Path
) -> None:
    source = tmp_path / "gpu-terms.txt"
    source.write_text("HBM - 3.35 TB/s of stacked DRAM\nNVLink - 900 GB/s per GPU\n", "utf-8")
    vault = tmp_path / "vault"
    _import(run_cli, source, vault)
    _rewrite_decks(vault, _forget_the_setting)
    assert "skip_napkin_check" not in _decks(vault)["gpu-terms"]

    _import(run_cli, source, vault)

    assert _decks(vault)["gpu-terms"]["skip_napkin_check"] is True


def test_reimporting_an_anki_package_leaves_decks_an_author_wrote_alone(
    run_cli: Any, tmp_path: Path, fidelity_apkg: Path
) -> None:
    vault = tmp_path / "vault"
    _import(run_cli, fidelity_apkg, vault)
    imported = sorted(_decks(vault))
    question = vault / "questions" / "mine.yaml"
    question.write_text(
        "id: my-hbm\nformat: flashcard\nquestion: HBM bandwidth?\n"
        "details:\n  realistic_solution: 3.35 TB/s\ndeck: mine\n",
        encoding="utf-8",
    )

    def author(decks: list[dict[str, Any]]) -> None:
        _forget_the_setting(decks)
        decks.append({"name": "mine", "items": ["my-hbm"]})
        # The author decided the napkin tier judges this imported deck.
        next(d for d in decks if d["name"] == imported[0])["skip_napkin_check"] = False

    _rewrite_decks(vault, author)

    _import(run_cli, fidelity_apkg, vault)
    _import(run_cli, fidelity_apkg, vault, "--deck", "mine")

    decks = _decks(vault)
    assert decks[imported[0]]["skip_napkin_check"] is False
    assert all(decks[name]["skip_napkin_check"] is True for name in imported[1:])
    assert "skip_napkin_check" not in decks["mine"]
    assert "my-hbm" in decks["mine"]["items"]

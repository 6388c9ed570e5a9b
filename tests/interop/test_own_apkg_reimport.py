"""An Anki package sysdrill exported comes back into the vault it came from.

Export a small vault made here to ``.apkg``, import it into that vault and see
nothing change, edit a note inside the package and see its item updated in
place, import it into a new vault and see ids, track, level and deck kept.
A package of another note type imports as any Anki deck does.
"""

from __future__ import annotations

import sqlite3
import zipfile
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
import yaml
from tests.interop.conftest import PNG_BYTES
from tests.interop.test_apkg import build_old_collection, zip_package
from tests.interop.test_own_export_reimport import (
    FLASHCARD,
    LATER,
    NOW,
    NUMERIC,
    SCENARIO_QUESTION,
    _fields,
    _files,
)
from tests.interop.test_own_export_reimport import _write_vault as _write_text_vault

from sysdrill.interop.export import export_vault
from sysdrill.interop.importer import import_source

CHOICE: dict[str, Any] = {
    **SCENARIO_QUESTION,
    "id": "cloud-0901",
    "title": "Bubble options",
    "details": {**SCENARIO_QUESTION["details"], "options": ["5 %", "16 %"], "correct_index": 1},
}
ITEMS = (SCENARIO_QUESTION, CHOICE, FLASHCARD, NUMERIC)


def _write_vault(root: Path) -> Path:
    """The CSV and text re-import tests' vault, with a multiple-choice question added."""
    _write_text_vault(root)
    (root / "questions/cloud/cloud-0901.yaml").write_text(yaml.safe_dump(CHOICE), "utf-8")
    return root


def _exported(tmp_path: Path, *, image: bool = False) -> tuple[Path, Path]:
    """The test vault and the package ``sysdrill export`` wrote of it.

    With ``image``, the flashcard's answer shows an image of the vault's ``media/``.
    """
    vault = _write_vault(tmp_path / "vault")
    if image:
        (vault / "media").mkdir()
        (vault / "media/ring.png").write_bytes(PNG_BYTES)
        card = vault / "questions/edge/edge-flashcard-0001.yaml"
        raw = yaml.safe_load(card.read_text("utf-8"))
        raw["details"]["realistic_solution"] += "\n\n![ring](media/ring.png)"
        card.write_text(yaml.safe_dump(raw), "utf-8")
    out = tmp_path / "export.apkg"
    export_vault(vault, format="apkg", out=out, now=NOW)
    return vault, out


def _edit_note(package: Path, old: str, new: str) -> None:
    """Replace ``old`` by ``new`` in the one note of the package whose fields hold it."""
    with zipfile.ZipFile(package) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    collection = package.with_suffix(".anki2")
    collection.write_bytes(members["collection.anki2"])
    with closing(sqlite3.connect(collection)) as conn:
        rows = conn.execute("SELECT id, flds FROM notes").fetchall()
        edited = [(str(flds).replace(old, new), nid) for nid, flds in rows if old in str(flds)]
        assert len(edited) == 1
        conn.executemany("UPDATE notes SET flds = ? WHERE id = ?", edited)
        conn.commit()
    members["collection.anki2"] = collection.read_bytes()
    with zipfile.ZipFile(package, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)


@pytest.mark.parametrize("image", [False, True], ids=["text", "with-image"])
def test_reimporting_a_package_into_its_own_vault_changes_nothing(
    tmp_path: Path, image: bool
) -> None:
    vault, out = _exported(tmp_path, image=image)
    before = _files(vault)

    report = import_source(out, into=vault, now=LATER)

    assert (len(report.added), len(report.updated), len(report.skipped)) == (0, 0, 0)
    assert sorted(o.id or "" for o in report.unchanged) == sorted(i["id"] for i in ITEMS)
    assert report.notes == []
    assert _files(vault) == before


def test_an_edited_back_in_the_package_updates_its_item_in_place(tmp_path: Path) -> None:
    vault, out = _exported(tmp_path)
    _edit_note(out, "Half the weight memory.", "Half the weight bytes.")

    report = import_source(out, into=vault, now=LATER)

    assert [o.id for o in report.updated] == ["edge-flashcard-0001"]
    assert (len(report.added), len(report.unchanged)) == (0, 3)
    item = _fields(vault)["edge-flashcard-0001"]
    assert item["details"]["realistic_solution"] == "Half the weight bytes."
    assert (item["zone"], item["deck"], item["status"]) == ("recall", "quant", "draft")
    assert [p.name for p in (vault / "questions").rglob("*.yaml")].count(
        "edge-flashcard-0001.yaml"
    ) == 1


def test_an_edited_napkin_math_field_updates_that_detail_only(tmp_path: Path) -> None:
    vault, out = _exported(tmp_path)
    _edit_note(out, "3 / 19 = 0.158", "3 / 19 = 0.16")

    report = import_source(out, into=vault, now=LATER)

    assert [o.id for o in report.updated] == ["cloud-0900"]
    details = _fields(vault)["cloud-0900"]["details"]
    # Read back from the package's HTML: the list starts after a blank line, as it renders.
    assert details["napkin_math"] == "**Calculations:**\n\n- 3 / 19 = 0.16"
    assert details["realistic_solution"] == SCENARIO_QUESTION["details"]["realistic_solution"]
    assert details["common_mistake"] == SCENARIO_QUESTION["details"]["common_mistake"]


def test_a_package_comes_back_with_ids_track_level_and_deck_in_a_new_vault(
    tmp_path: Path,
) -> None:
    _, out = _exported(tmp_path)

    first = import_source(out, into=tmp_path / "copy", now=LATER)
    again = import_source(out, into=tmp_path / "copy", now=LATER)

    items = _fields(tmp_path / "copy")
    assert sorted(items) == sorted(i["id"] for i in ITEMS)
    card = items["edge-flashcard-0001"]
    assert (card["format"], card["track"], card["level"], card["topic"], card["deck"]) == (
        "flashcard",
        "edge",
        "L2",
        "quantization",
        "quantization",
    )
    scenario = items["cloud-0900"]
    assert (scenario["title"], scenario["competency_area"]) == ("Bubble budget", "parallelism")
    assert scenario["tags"] == ["pipeline", "memory_bound"]
    assert (len(first.added), len(again.unchanged)) == (4, 4)


def test_cli_export_then_import_of_a_package_reports_unchanged(
    run_cli: Any, tmp_path: Path
) -> None:
    vault = _write_vault(tmp_path / "v")
    out = tmp_path / "out.apkg"
    assert run_cli("export", str(vault), "-o", str(out), "-q").exit_code == 0

    again = run_cli("import", str(out), "--into", str(vault))

    assert again.exit_code == 0, again.stderr
    assert "added 0, updated 0, unchanged 4, skipped 0" in again.stdout
    assert "already used" not in again.stdout


def test_a_foreign_package_still_imports_as_an_anki_deck(tmp_path: Path) -> None:
    vault = _write_vault(tmp_path / "vault")
    collection = tmp_path / "foreign.sqlite"
    build_old_collection(collection)
    out = zip_package(tmp_path / "foreign.apkg", {"collection.anki2": collection.read_bytes()})
    before = _files(vault)

    report = import_source(out, into=vault, now=LATER)

    assert report.added
    assert (len(report.updated), len(report.unchanged)) == (0, 0)
    # The collection's note without a front, as in any vault; no note is taken for ours.
    assert [o.reason for o in report.skipped] == ["note has an empty front"]
    for added in report.added:
        raw = yaml.safe_load((vault / added.path).read_text("utf-8"))
        assert raw["source"]["anki"]["note_type"]["name"] in ("Basic", "Cloze")
    ours = {rel: text for rel, text in before.items() if rel.startswith("questions/")}
    assert {rel: text for rel, text in _files(vault).items() if rel in ours} == ours


def test_a_package_leaves_another_vaults_item_of_the_same_id_alone(tmp_path: Path) -> None:
    vault = _write_vault(tmp_path / "vault")
    (vault / "vault.yaml").write_text("id: lab-vault-3f9a2c\n", encoding="utf-8")
    out = tmp_path / "export.apkg"
    export_vault(vault, format="apkg", out=out, now=NOW)
    other = _write_vault(tmp_path / "other")
    (other / "vault.yaml").write_text("id: home-vault-7d1e0b\n", encoding="utf-8")
    edited = other / "questions/edge/edge-flashcard-0001.yaml"
    edited.write_text(edited.read_text("utf-8").replace("Half the", "Half of the"), "utf-8")
    before = _files(other)

    report = import_source(out, into=other, now=LATER)

    skipped = {o.id: o.reason for o in report.skipped}
    assert "already used" in skipped["edge-flashcard-0001"]
    assert [o.id for o in report.updated] == []
    assert _files(other) == before

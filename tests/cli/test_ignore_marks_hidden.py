"""An author's ``# sysdrill: ignore[CODE]`` marker never reaches a learner or an export.

Written inside a block scalar the marker is part of the field's text; ``check``
reads it there, and everything else (``show``, practice, every export format)
leaves it out, a line that held only the marker included.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import zipfile
from contextlib import closing
from pathlib import Path

import pytest

FIXTURE = Path(__file__).resolve().parents[1] / "check" / "fixtures" / "valid"
ITEM = "questions/cloud/cloud-0001.yaml"
MARKER = "ignore["
"""What every marker holds (an Anki deck path may hold ``sysdrill::``)."""


@pytest.fixture
def marked(tmp_path: Path) -> Path:
    """The check fixture vault with markers inside two block scalars and on a key line."""
    root = tmp_path / "vault"
    shutil.copytree(FIXTURE, root)
    path = root / ITEM
    text = path.read_text("utf-8")
    text = text.replace(
        "    - Traffic per GPU = 2 * 2 GB = 4 GB.\n",
        "    # sysdrill: ignore[napkin-units]\n"
        "    - Traffic per GPU = 2 * 2 GB = 4 GB.\n"
        "    - Copies = 8 * 80 GB = 600 GB  # sysdrill: ignore[napkin-arithmetic]\n",
    )
    text = text.replace(
        "    In a ring all-reduce each GPU",
        "    In a ring all-reduce  #  sysdrill:  ignore[title, napkin-units]\n    each GPU",
    )
    text = text.replace("on 8 GPUs\n", "on 8 GPUs  # sysdrill: ignore[title]\n", 1)
    path.write_text(text, "utf-8")
    return root


def test_check_still_reads_the_markers(run_cli, marked: Path) -> None:
    result = run_cli("check", str(marked), "--strict")
    assert result.exit_code == 0, result.stdout
    assert result.stdout.splitlines()[-1].endswith("0 errors, 0 warnings, 0 info (1 suppressed).")


def test_show_leaves_the_markers_out_as_text_and_json(run_cli, marked: Path) -> None:
    shown = run_cli("show", "cloud-0001", "--vault", str(marked))
    assert shown.exit_code == 0, shown.stderr
    assert MARKER not in shown.stdout
    assert "Copies = 8 * 80 GB = 600 GB" in shown.stdout
    as_json = run_cli("show", "cloud-0001", "--vault", str(marked), "--json")
    item = json.loads(as_json.stdout)["item"]
    assert MARKER not in json.dumps(item)
    assert item["details"]["napkin_math"].splitlines()[2:5] == [
        "**Calculations:**",
        "- Traffic per GPU = 2 * 2 GB = 4 GB.",
        "- Copies = 8 * 80 GB = 600 GB",
    ]


def test_practice_reveals_the_answer_without_markers(run_cli, marked: Path, tmp_path) -> None:
    answers = tmp_path / "answers.txt"
    answers.write_text("16 GB = 16 GiB, 8 * 80 GB = 600 GB\ngood\n", "utf-8")
    result = run_cli("practice", "--vault", str(marked), "--answers", str(answers))
    assert result.exit_code == 0, result.stderr
    assert MARKER not in result.stdout
    assert "Your math: 8 * 80 GB = 600 GB: wrong" in result.stdout
    # A prefix doubt is the author's business: no line about it for the learner.
    assert "Your math: 16 GB = 16 GiB" not in result.stdout


@pytest.mark.parametrize("suffix", ["txt", "csv", "json", "md"])
def test_text_exports_carry_no_marker(run_cli, marked: Path, tmp_path: Path, suffix: str) -> None:
    out = tmp_path / f"export.{suffix}"
    result = run_cli("export", str(marked), "--out", str(out))
    assert result.exit_code == 0, result.stderr
    text = out.read_text("utf-8")
    assert MARKER not in text
    assert "8 * 80 GB = 600 GB" in text


def test_staffml_json_export_keeps_the_fields_without_the_markers(
    run_cli, marked: Path, tmp_path: Path
) -> None:
    out = tmp_path / "corpus.json"
    assert run_cli("export", str(marked), "--out", str(out)).exit_code == 0
    [item] = json.loads(out.read_text("utf-8"))
    assert item["details"]["realistic_solution"].startswith("In a ring all-reduce\neach GPU")
    assert "- Copies = 8 * 80 GB = 600 GB\n" in item["details"]["napkin_math"]


def test_anki_package_carries_no_marker(run_cli, marked: Path, tmp_path: Path) -> None:
    out = tmp_path / "export.apkg"
    assert run_cli("export", str(marked), "--out", str(out)).exit_code == 0
    collection = tmp_path / "collection.anki2"
    with zipfile.ZipFile(out) as package:
        collection.write_bytes(package.read("collection.anki2"))
    with closing(sqlite3.connect(collection)) as db:
        fields = [row[0] for row in db.execute("SELECT flds FROM notes")]
    assert fields and all(MARKER not in text for text in fields)
    assert any("8 * 80 GB = 600 GB" in text for text in fields)

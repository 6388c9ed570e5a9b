"""``sysdrill import/export --with-scheduling`` through the real entry point."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from tests.interop.conftest import build_history_package

pytest.importorskip("anki")


@pytest.mark.anki
def test_import_and_export_with_scheduling_carry_reviews_through_the_database(
    run_cli, tmp_path: Path
) -> None:
    package = build_history_package(tmp_path / "anki")
    db = f"sqlite:///{tmp_path / 'study.db'}"
    assert run_cli("db", "upgrade", "--db", db).exit_code == 0
    vault = tmp_path / "vault"

    imported = run_cli(
        "import", str(package), "--into", str(vault), "--with-scheduling", "--db", db
    )
    again = run_cli("import", str(package), "--into", str(vault), "--with-scheduling", "--db", db)
    out = tmp_path / "out.apkg"
    exported = run_cli("export", str(vault), "--out", str(out), "--with-scheduling", "--db", db)

    assert imported.exit_code == 0, imported.stdout
    assert "Scheduling: 2 cards and 4 reviews taken over from Anki" in imported.stdout
    assert "Scheduling: 0 cards and 0 reviews taken over from Anki" in again.stdout
    assert exported.exit_code == 0, exported.stdout
    with zipfile.ZipFile(out) as archive:
        (tmp_path / "c.anki2").write_bytes(archive.read("collection.anki2"))
    import sqlite3

    conn = sqlite3.connect(tmp_path / "c.anki2")
    try:
        assert conn.execute("SELECT COUNT(*) FROM revlog").fetchone()[0] == 4
    finally:
        conn.close()


def test_export_with_scheduling_needs_an_anki_package(run_cli, tmp_path: Path) -> None:
    result = run_cli("export", str(tmp_path), "--out", str(tmp_path / "x.csv"), "--with-scheduling")

    assert result.exit_code == 2
    assert "--with-scheduling needs --format apkg" in result.stderr

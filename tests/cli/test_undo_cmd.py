"""`sysdrill undo`: take back the last review after the session that gave it has ended."""

from __future__ import annotations

import json

from tests.cli.test_item_cmds import VAULT, _db


def test_undo_names_the_item_and_rating_and_removes_the_review(run_cli, tmp_path):
    db = _db(run_cli, tmp_path)
    practice = run_cli(
        "practice", "--vault", str(VAULT), "--deck", "dp-cards", "--db", db, input="3\n4\n1\n"
    )
    assert practice.exit_code == 0, practice.stderr
    undone = run_cli("undo", "--vault", str(VAULT), "--db", db)
    assert undone.exit_code == 0, undone.stderr
    assert undone.stdout.startswith("Undid your Again review of fc-3 from ")
    history = run_cli("item", "history", "fc-3", "--vault", str(VAULT), "--db", db, "--json")
    assert json.loads(history.stdout)["reviews"] == []
    again = run_cli("undo", "--vault", str(VAULT), "--db", db, "--json")
    assert json.loads(again.stdout)["rating"] == "Easy"


def test_undo_with_nothing_reviewed_is_one_error_line(run_cli, tmp_path):
    db = _db(run_cli, tmp_path)
    result = run_cli("undo", "--vault", str(VAULT), "--db", db)
    assert result.exit_code == 1
    assert result.stderr == (
        "Error: Nothing to undo: you have not reviewed any item of this vault yet.\n"
    )

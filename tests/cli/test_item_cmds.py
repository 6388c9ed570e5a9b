"""`sysdrill item`: suspend, bury and list an item's reviews, as a learner types them."""

from __future__ import annotations

import json
from pathlib import Path

VAULT = Path(__file__).resolve().parents[1] / "study" / "sessions" / "vault"
"""The session tests' own vault (deck dp-cards holds the flashcards fc-1, fc-2 and fc-3)."""


def _db(run_cli, tmp_path: Path) -> str:
    db = f"sqlite:///{tmp_path / 'study.db'}"
    assert run_cli("db", "upgrade", "--db", db).exit_code == 0
    return db


def test_a_suspended_item_is_left_out_of_practice_until_unsuspended(run_cli, tmp_path):
    db = _db(run_cli, tmp_path)
    done = run_cli("item", "suspend", "fc-1", "--vault", str(VAULT), "--db", db)
    assert done.exit_code == 0, done.stderr
    assert done.stdout.startswith("Suspended fc-1. Suspended: it stays out of sessions")

    practice = run_cli(
        "practice", "--vault", str(VAULT), "--deck", "dp-cards", "--db", db, input="3\n3\n"
    )
    assert practice.exit_code == 0, practice.stderr
    assert "Practice: 2 items" in practice.stdout
    history = run_cli("item", "history", "fc-1", "--vault", str(VAULT), "--db", db, "--json")
    assert json.loads(history.stdout)["reviews"] == []

    back = run_cli("item", "unsuspend", "fc-1", "--vault", str(VAULT), "--db", db, "--json")
    assert back.exit_code == 0, back.stderr
    assert json.loads(back.stdout)["suspended"] is False
    again = run_cli(
        "practice", "--vault", str(VAULT), "--deck", "dp-cards", "--db", db, input="3\n"
    )
    assert "Practice: 1 items" in again.stdout


def test_history_lists_each_review_with_its_rating_and_interval(run_cli, tmp_path):
    db = _db(run_cli, tmp_path)
    run_cli("practice", "--vault", str(VAULT), "--deck", "dp-cards", "--db", db, input="4\n3\n1\n")
    shown = run_cli("item", "history", "fc-1", "--vault", str(VAULT), "--db", db)
    assert shown.exit_code == 0, shown.stderr
    assert "Comes up in sessions as scheduled." in shown.stdout
    assert "Easy" in shown.stdout and "self" in shown.stdout
    data = json.loads(
        run_cli("item", "history", "fc-1", "--vault", str(VAULT), "--db", db, "--json").stdout
    )
    [entry] = data["reviews"]
    assert entry["rating"] == "Easy"
    assert entry["graded_by"] == "self"
    assert entry["interval_days"] >= 1  # Easy on a new card graduates it at once
    assert data["due"] is not None


def test_bury_then_unbury_reports_each_change(run_cli, tmp_path):
    db = _db(run_cli, tmp_path)
    buried = run_cli("item", "bury", "fc-2", "--vault", str(VAULT), "--db", db, "--json")
    assert buried.exit_code == 0, buried.stderr
    assert json.loads(buried.stdout)["buried_until"].endswith("T00:00:00+00:00")
    practice = run_cli(
        "practice", "--vault", str(VAULT), "--deck", "dp-cards", "--db", db, input="3\n3\n"
    )
    assert "Practice: 2 items" in practice.stdout
    unburied = run_cli("item", "unbury", "fc-2", "--vault", str(VAULT), "--db", db)
    assert unburied.stdout.startswith("Unburied fc-2. Comes up in sessions as scheduled.")


def test_item_commands_refuse_an_unknown_id_in_one_line(run_cli, tmp_path):
    db = _db(run_cli, tmp_path)
    result = run_cli("item", "suspend", "fc-9", "--vault", str(VAULT), "--db", db)
    assert result.exit_code == 1
    assert result.stderr.strip().splitlines() == [
        "Error: no item with id 'fc-9'; did you mean fc-3, fc-2, fc-1?"
    ]


def test_item_commands_refuse_changes_that_change_nothing(run_cli, tmp_path):
    db = _db(run_cli, tmp_path)
    args = ("--vault", str(VAULT), "--db", db)
    assert run_cli("item", "unsuspend", "fc-1", *args).stderr.strip() == (
        "Error: Item 'fc-1' is not suspended."
    )
    assert run_cli("item", "unbury", "fc-1", *args).stderr.strip() == (
        "Error: Item 'fc-1' is not buried."
    )
    assert run_cli("item", "suspend", "fc-1", *args).exit_code == 0
    twice = run_cli("item", "suspend", "fc-1", *args)
    assert (twice.exit_code, twice.stderr.strip()) == (
        1,
        "Error: Item 'fc-1' is suspended already.",
    )
    bury = run_cli("item", "bury", "fc-1", *args)
    assert bury.stderr.strip() == "Error: Item 'fc-1' is suspended: unsuspend it first."


def test_item_help_lists_its_commands_in_words(run_cli):
    shown = run_cli("item", "--help")
    assert shown.exit_code == 0
    for name in ("suspend", "unsuspend", "bury", "unbury", "history"):
        assert name in shown.stdout
    assert "<" not in run_cli("item", "history", "--help").stdout

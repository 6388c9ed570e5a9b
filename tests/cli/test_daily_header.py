"""`sysdrill daily` says plainly what happened: items skipped, or every match suspended."""

from __future__ import annotations

import re

from tests.cli.test_item_cmds import VAULT, _db

EDGE_RECALL = ("--vault", str(VAULT), "--track", "edge", "--zone", "recall")


def test_a_daily_of_skipped_items_ends_saying_none_was_answered(run_cli, tmp_path):
    db = _db(run_cli, tmp_path)
    result = run_cli(
        "daily", "--vault", str(VAULT), "--track", "cloud", "--db", db, input="skip\n" * 3
    )
    assert result.exit_code == 0, result.stderr
    assert re.search(
        r"^Daily \d{4}-\d{2}-\d{2}: session over, 0 of its 3 item\(s\) answered$",
        result.stdout,
        re.MULTILINE,
    )
    assert "done: finished" not in result.stdout


def test_a_daily_whose_only_match_is_suspended_says_so(run_cli, tmp_path):
    db = _db(run_cli, tmp_path)
    first = run_cli("daily", *EDGE_RECALL, "--db", db, input="")
    [shown] = [line for line in first.stdout.splitlines() if line.startswith("[")]
    assert "Int8 size" in shown
    suspended = run_cli("item", "suspend", "e-l1-recall", "--vault", str(VAULT), "--db", db)
    assert suspended.exit_code == 0, suspended.stderr
    again = run_cli("daily", *EDGE_RECALL, "--db", db, input="")
    assert again.exit_code == 0, again.stderr
    assert again.stdout == (
        "No daily items today: all 1 item(s) that match are suspended or buried. "
        "Unsuspend some, or widen the filters.\n"
    )

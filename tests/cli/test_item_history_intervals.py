"""`sysdrill item history` shows a learning step's minutes as they were scheduled."""

from __future__ import annotations

import json

from tests.cli.test_item_cmds import VAULT, _db


def test_history_shows_ten_minutes_after_good_and_one_after_again(run_cli, tmp_path):
    db = _db(run_cli, tmp_path)
    practice = run_cli(
        "practice", "--vault", str(VAULT), "--deck", "dp-cards", "--db", db, input="3\n1\n"
    )
    assert practice.exit_code == 0, practice.stderr
    shown = {}
    for item_id in ("fc-1", "fc-2"):
        table = run_cli("item", "history", item_id, "--vault", str(VAULT), "--db", db)
        assert table.exit_code == 0, table.stderr
        data = json.loads(
            run_cli("item", "history", item_id, "--vault", str(VAULT), "--db", db, "--json").stdout
        )
        [entry] = data["reviews"]
        shown[item_id] = (entry["rating"], entry["interval"], entry["interval_days"] * 24 * 60)
        assert f"│ {entry['rating']:<6} │ {entry['interval']:<8} │" in table.stdout
    assert shown["fc-1"][:2] == ("Good", "10 min")
    assert shown["fc-2"][:2] == ("Again", "1 min")
    assert round(shown["fc-1"][2], 6) == 10 and round(shown["fc-2"][2], 6) == 1

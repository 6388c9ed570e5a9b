"""`sysdrill daily` after `sysdrill undo`: the review taken back is no longer done today."""

from __future__ import annotations

import json
import re

from tests.cli.test_item_cmds import VAULT, _db

DAILY_CARDS = ("daily", "--vault", str(VAULT), "--deck", "dp-cards")
"""The daily set of the three flashcards of deck dp-cards (all three, every day)."""


def _note(stdout: str) -> str:
    found = re.search(r"^Note: Today's items: (.*)\.$", stdout, re.MULTILINE)
    assert found is not None, stdout
    return found.group(1)


def _card_headed(heading: str) -> str:
    """The id of the sample card whose session header reads ``heading``."""
    from sysdrill.content.loader import load_vault
    from sysdrill.study.sessions.text import plain_title

    [found] = [item.id for item in load_vault(VAULT).items if plain_title(item) == heading]
    return found


def test_daily_asks_again_an_item_whose_review_was_undone(run_cli, tmp_path):
    db = _db(run_cli, tmp_path)
    first = run_cli(*DAILY_CARDS, "--db", db, input="good\nquit\n")
    assert first.exit_code == 0, first.stderr
    assert "1 of its 3 item(s) answered" in first.stdout
    # Untitled cards are headed by their question, which names the card asked.
    [heading] = re.findall(r"^\[1/3\] (.+) \(", first.stdout, re.MULTILINE)
    asked = _card_headed(heading)
    before = run_cli(*DAILY_CARDS, "--db", db, input="")
    assert f"{asked} (done)" in _note(before.stdout)
    assert re.search(rf"^\[1/\d\] {re.escape(heading)} ", before.stdout, re.MULTILINE) is None

    undone = run_cli("undo", "--vault", str(VAULT), "--db", db)
    assert undone.stdout.startswith(f"Undid your Good review of {asked} from ")
    history = run_cli("item", "history", asked, "--vault", str(VAULT), "--db", db, "--json")
    assert json.loads(history.stdout)["reviews"] == []
    after = run_cli(*DAILY_CARDS, "--db", db, input="")
    assert after.exit_code == 0, after.stderr
    assert "(done)" not in _note(after.stdout)
    assert f"[1/3] {heading} " in after.stdout  # the set's order is the day's, as before

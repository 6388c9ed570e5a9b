"""`sysdrill plan` and a new user's first practice, run the way a user would."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta

import pytest
from tests.conftest import starter_plan_size


@pytest.fixture(autouse=True)
def _no_database_url(monkeypatch):
    monkeypatch.delenv("SYSDRILL_DATABASE_URL", raising=False)


def test_plan_list_shows_every_starter_plan_with_its_pace(run_cli) -> None:
    from sysdrill.content.plans import load_plans
    from sysdrill.content.sample import starter_vault_path

    result = run_cli("plan", "list")
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == (
        "refresher-1w  One-week refresher on distributed training (7 days, 19 new items a day)"
    )
    assert lines[-1].startswith("frontier-lab-2w  Two-week frontier lab loop (14 days, ")
    assert [line.split()[0] for line in lines] == [
        plan.name for plan in load_plans(starter_vault_path())
    ]


def test_plan_start_sets_the_deadline_and_show_reports_progress(run_cli) -> None:
    today = datetime.now(UTC).date()
    ends = today + timedelta(days=13)
    started = run_cli("plan", "start", "interview-2w")
    assert started.exit_code == 0, started.stderr
    assert f"Deadline set to {ends.isoformat()}, the plan's last day." in started.stdout
    setting = json.loads(run_cli("settings", "show", "--json").stdout)
    assert setting["deadline"] == ends.isoformat()
    shown = json.loads(run_cli("plan", "show", "--json").stdout)
    assert (shown["plan"], shown["day"], shown["items_seen"], shown["items_total"]) == (
        "interview-2w",
        1,
        0,
        starter_plan_size("interview-2w"),
    )
    assert shown["next_item_ids"][0] == "cloud-2000"


def test_starting_a_second_plan_is_one_error_line(run_cli) -> None:
    assert run_cli("plan", "start", "refresher-1w").exit_code == 0
    result = run_cli("plan", "start", "interview-4w")
    assert result.exit_code == 1
    assert result.stderr == (
        "Error: Plan 'refresher-1w' is already active. "
        "Run `sysdrill plan stop` first, then start the new plan.\n"
    )


def test_unknown_plan_is_one_error_line(run_cli) -> None:
    result = run_cli("plan", "start", "interview-3w")
    assert result.exit_code == 1
    assert result.stderr == (
        "Error: No plan named 'interview-3w'. Known plans: refresher-1w, interview-2w, "
        "interview-4w, stability-and-post-training-1w, frontier-lab-2w "
        "(see `sysdrill plan list`).\n"
    )


def test_show_and_stop_without_a_plan(run_cli) -> None:
    shown = run_cli("plan", "show")
    assert shown.exit_code == 0
    assert shown.stdout == (
        "No plan is active. See `sysdrill plan list`, then `sysdrill plan start NAME`.\n"
    )
    stopped = run_cli("plan", "stop")
    assert stopped.exit_code == 1
    assert (
        stopped.stderr == "Error: No plan is active. Start one with `sysdrill plan start NAME`.\n"
    )


def test_stop_then_start_another_plan(run_cli) -> None:
    assert run_cli("plan", "start", "refresher-1w", "--adaptive").exit_code == 0
    assert run_cli("plan", "stop").stdout == "Stopped plan refresher-1w.\n"
    assert run_cli("plan", "start", "interview-4w").exit_code == 0
    assert json.loads(run_cli("plan", "show", "--json").stdout)["plan"] == "interview-4w"


def test_a_new_user_first_practice_draws_from_the_starter_vault(run_cli) -> None:
    result = run_cli("practice", "--limit", "25", input="")
    assert result.exit_code == 0, result.stderr
    # 20 new items (the daily limit): more than the 12 of the sample vault.
    assert result.stdout.startswith("Practice: 20 items (0 due, 20 new; 0 more new today)\n")
    assert result.stdout.endswith("Items: 0 answered, 20 not reached\n")


def test_practice_under_a_plan_starts_with_the_plan_first_items(run_cli) -> None:
    assert run_cli("plan", "start", "refresher-1w").exit_code == 0
    first = json.loads(run_cli("plan", "show", "--json").stdout)["next_item_ids"][0]
    assert first == "cloud-2000"
    result = run_cli("practice", "--limit", "1", input="")
    assert result.exit_code == 0, result.stderr
    assert "[1/1] Reduce-Scatter and All-Gather Make an All-Reduce (cloud · L1" in result.stdout


def _new_left_today(run_cli) -> int:
    shown = json.loads(run_cli("plan", "show", "--json").stdout)
    return int(shown["new_left_today"])


def test_plan_show_and_practice_agree_on_the_new_items_left_today(run_cli) -> None:
    # refresher-1w asks for 19 new items a day; the setting allows 20.
    assert run_cli("plan", "start", "refresher-1w").exit_code == 0
    shown = run_cli("plan", "show")
    assert re.search(
        r"^Items introduced: 0 of \d+ \(the plan's pace: 19 by today\)$", shown.stdout, re.M
    )
    assert "New items left today: 19\n" in shown.stdout
    practised = run_cli("practice", "--limit", "2", input="")
    assert practised.exit_code == 0, practised.stderr
    # Practice counts the plan's figure, not the setting's 20.
    assert practised.stdout.startswith("Practice: 2 items (0 due, 2 new; 17 more new today)\n")
    # Rate the first item Good and decline its chain's next item: one item introduced.
    first = run_cli("practice", "--limit", "1", input="3\nn\n")
    assert "Recorded: Good" in first.stdout
    assert _new_left_today(run_cli) == 18
    again = run_cli("practice", "--limit", "1", input="")
    assert again.stdout.startswith("Practice: 1 items (0 due, 1 new; 17 more new today)\n")


def test_the_daily_setting_caps_the_plan_figure_and_says_why(run_cli) -> None:
    assert run_cli("settings", "set", "new_per_day", "5").exit_code == 0
    assert run_cli("plan", "start", "refresher-1w").exit_code == 0
    shown = run_cli("plan", "show")
    assert (
        "New items left today: 5 (the plan asks for 19 more, "
        "but the new items per day setting allows 5 more today)\n"
    ) in shown.stdout
    practised = run_cli("practice", "--limit", "25", input="")
    assert practised.stdout.startswith("Practice: 5 items (0 due, 5 new; 0 more new today)\n")
    assert _new_left_today(run_cli) == 5

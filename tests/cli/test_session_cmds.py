"""The session commands driven as a user would: answers files and standard input."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from sysdrill.app.study import open_study
from sysdrill.storage.engine import HEAD_REVISION
from sysdrill.study.ratings import GradedBy, Rating

VAULT = Path(__file__).resolve().parents[1] / "study" / "sessions" / "vault"
"""The session tests' own vault (see tests/study/sessions/conftest.py)."""


def _reviews(db: str | None = None):
    from sysdrill.app.study_vault import open_study_vault

    with open_study(db, vault=open_study_vault(VAULT)) as study:
        return [
            (r.item_id, Rating(r.rating), GradedBy(r.graded_by), r.answer)
            for r in study.store.iter_reviews(study.scope)
        ]


def _answers(tmp_path: Path, text: str) -> str:
    path = tmp_path / "answers.txt"
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_practice_from_an_answers_file_records_each_review(run_cli, tmp_path):
    answers = _answers(tmp_path, "80 GB\ngood\nc\nn\n-\nagain\n")
    result = run_cli(
        "practice", "--vault", str(VAULT), "--track", "cloud", "--limit", "3", "--answers", answers
    )
    assert result.exit_code == 0, result.stderr
    assert "Practice: 3 items (0 due, 3 new; 17 more new today)" in result.stdout
    assert "Recorded: Good; next review in 10 min." in result.stdout
    assert "Score: 2/3 passed (67%): 1 graded right, 0 graded wrong, 2 self-rated" in result.stdout
    assert _reviews() == [
        ("c-l1-hbm", Rating.GOOD, GradedBy.SELF, "80 GB"),
        ("c-l2-mc", Rating.GOOD, GradedBy.MULTIPLE_CHOICE, "c"),
        ("c-l2-net", Rating.AGAIN, GradedBy.SELF, None),
    ]


def test_practice_reads_standard_input_and_filters(run_cli, tmp_path):
    db = f"sqlite:///{tmp_path / 'study.db'}"
    assert run_cli("db", "upgrade", "--db", db).exit_code == 0
    result = run_cli(
        "practice", "--vault", str(VAULT), "--deck", "dp-cards", "--db", db, input="4\n3\n1\n"
    )
    assert result.exit_code == 0, result.stderr
    assert _reviews(db) == [
        ("fc-1", Rating.EASY, GradedBy.SELF, None),
        ("fc-2", Rating.GOOD, GradedBy.SELF, None),
        ("fc-3", Rating.AGAIN, GradedBy.SELF, None),
    ]
    # fc-3 was rated Again, so it comes back once at the end; the input ran out there.
    assert "[4/4] What is gradient accumulation for?" in result.stdout
    assert "(end of answers)" in result.stdout


def test_practice_on_a_new_sqlite_file_creates_it(run_cli, tmp_path):
    # Any SQLite URL is created and migrated on first use (issue 29 item 10);
    # tests/cli/test_embedded_database.py covers the other cases.
    db = f"sqlite:///{tmp_path / 'fresh.db'}"
    result = run_cli("practice", "--vault", str(VAULT), "--db", db, input="")
    assert result.exit_code == 0, result.stderr
    assert run_cli("db", "upgrade", "--db", db).stdout == (
        f"{db} is up to date (schema {HEAD_REVISION}).\n"
    )


def test_db_upgrade_migrates_once_then_reports_up_to_date(run_cli, tmp_path):
    db = f"sqlite:///{tmp_path / 'fresh.db'}"
    first = run_cli("db", "upgrade", "--db", db)
    again = run_cli("db", "upgrade", "--db", db)
    assert (first.exit_code, again.exit_code) == (0, 0)
    assert first.stdout == f"Upgraded {db} from a new database to schema {HEAD_REVISION}.\n"
    assert again.stdout == f"{db} is up to date (schema {HEAD_REVISION}).\n"


def test_practice_unknown_deck_is_one_error_line(run_cli):
    result = run_cli("practice", "--vault", str(VAULT), "--deck", "gpu", input="")
    assert result.exit_code == 1
    assert result.stderr == "Error: No deck named 'gpu'. Known decks: ch26-quiz, dp-cards.\n"


def test_practice_asks_again_after_an_unreadable_line_of_an_answers_file(run_cli, tmp_path):
    answers = _answers(tmp_path, "80 GB\nsure\ngood\n")
    result = run_cli("practice", "--vault", str(VAULT), "--answers", answers)
    assert result.exit_code == 0, result.stderr
    assert result.stderr == ""
    assert (
        "> sure\nUnknown rating 'sure'. Use 1 Again, 2 Hard, 3 Good or 4 Easy "
        "(or the words again, hard, good, easy). Answer again:\n> good\n"
    ) in result.stdout
    assert _reviews()[0][:2] == ("c-l1-hbm", Rating.GOOD)


def test_piped_unreadable_replies_are_asked_again_and_never_end_practice(run_cli):
    piped = "80 GB\nmaybe\ngood\ngood\nc\nmaybe\nn\n-\nagain\n"
    result = run_cli(
        "practice", "--vault", str(VAULT), "--track", "cloud", "--limit", "3", input=piped
    )
    assert result.exit_code == 0, result.stderr
    assert result.stderr == ""
    out = result.stdout
    assert "> maybe\nUnknown rating 'maybe'. Use 1 Again, 2 Hard, 3 Good or 4 Easy " in out
    assert (
        "> good\nUnknown option 'good'. Answer with a letter a-d or a number 1-4. Answer again:"
    ) in out
    assert (
        "> maybe\nUnknown reply 'maybe': the replies are y (yes) and n (no). Answer again:" in out
    )
    assert _reviews() == [
        ("c-l1-hbm", Rating.GOOD, GradedBy.SELF, "80 GB"),
        ("c-l2-mc", Rating.GOOD, GradedBy.MULTIPLE_CHOICE, "c"),
        ("c-l2-net", Rating.AGAIN, GradedBy.SELF, None),
    ]


def test_piped_input_ending_on_an_unreadable_reply_ends_practice_cleanly(run_cli):
    result = run_cli(
        "practice", "--vault", str(VAULT), "--track", "cloud", "--limit", "3", input="-\nsure\n"
    )
    assert result.exit_code == 0, result.stderr
    assert result.stderr == ""
    assert "Answer again:\n(end of answers)\n" in result.stdout
    assert "Items: 0 answered, 3 not reached" in result.stdout
    assert _reviews() == []


def test_practice_deadline_is_saved_and_workload_shown(run_cli):
    result = run_cli(
        "practice",
        "--vault",
        str(VAULT),
        "--deadline",
        "2027-01-15",
        "--limit",
        "1",
        input="quit\n",
    )
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith("Deadline 2027-01-15: ")
    with open_study(vault=None) as study:
        assert study.settings.deadline is not None
        assert study.settings.deadline.isoformat() == "2027-01-15"


def test_practice_with_a_past_deadline_is_refused_and_saves_nothing(run_cli):
    past = (datetime.now(UTC).date() - timedelta(days=1)).isoformat()
    result = run_cli("practice", "--vault", str(VAULT), "--deadline", past, input="quit\n")
    assert result.exit_code == 1
    assert result.stderr.startswith(f"Error: The interview date {past} has passed;")
    assert result.stdout == ""


def test_practice_bad_deadline_is_a_usage_error(run_cli):
    result = run_cli("practice", "--vault", str(VAULT), "--deadline", "soon", input="")
    assert result.exit_code == 2
    assert "'soon' is not a date; write it as YYYY-MM-DD." in result.stderr


def test_practice_missing_answers_file_is_a_usage_error(run_cli, tmp_path):
    result = run_cli("practice", "--vault", str(VAULT), "--answers", str(tmp_path / "none.txt"))
    assert result.exit_code == 2
    assert "does not exist" in result.stderr


def test_quiz_runs_the_deck_in_order_and_scores(run_cli, tmp_path):
    answers = _answers(tmp_path, "the bubble\ngood\ntwo costs\nagain\n")
    result = run_cli("quiz", "ch26-quiz", "--vault", str(VAULT), "--answers", answers)
    assert result.exit_code == 0, result.stderr
    assert result.stdout.index("[1/2] What does") < result.stdout.index("[2/2] Name the two")
    assert "Score: 1/2 passed (50%): 0 graded right, 0 graded wrong, 2 self-rated" in result.stdout
    assert [r[0] for r in _reviews()] == ["quiz-2", "quiz-1"]


def test_quiz_unknown_deck_is_one_error_line(run_cli):
    result = run_cli("quiz", "gpu", "--vault", str(VAULT))
    assert result.exit_code == 1
    assert result.stderr == "Error: No deck named 'gpu'. Known decks: ch26-quiz, dp-cards.\n"


def test_quick_gauntlet_feeds_every_result_to_the_scheduler(run_cli, tmp_path):
    answers = _answers(tmp_path, "one byte\nall\npower budget\nall\n")
    result = run_cli(
        "gauntlet", "--track", "edge", "--seed", "3", "--vault", str(VAULT), "--answers", answers
    )
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith(
        "Note: only 2 of 5 questions available.\n"
        "Gauntlet (quick): 2 questions in 10 minutes\nCountdown: 10:00.\n"
    )
    assert "[1/2] Int8 size (edge · L1 · recall · quantization) - warm-up" in result.stdout
    assert "Score: 100% of 2 questions" in result.stdout
    assert _reviews() == [
        ("e-l1-recall", Rating.EASY, GradedBy.GAUNTLET, "one byte"),
        ("e-l3-spec", Rating.EASY, GradedBy.GAUNTLET, "power budget"),
    ]
    from sysdrill.app.study_vault import open_study_vault

    with open_study(vault=open_study_vault(VAULT)) as study:
        (session,) = study.sessions()
    assert (session.kind, session.meta["format"], session.meta["score_percent"]) == (
        "gauntlet",
        "quick",
        100,
    )


def test_gauntlet_level_picks_a_lower_warmup(run_cli, tmp_path):
    answers = _answers(tmp_path, "\n".join(["answer", "none"] * 5) + "\n")
    result = run_cli(
        "gauntlet",
        "--track",
        "cloud",
        "--level",
        "L5",
        "--seed",
        "1",
        "--vault",
        str(VAULT),
        "--answers",
        answers,
    )
    assert result.exit_code == 0, result.stderr
    warmup = next(line for line in result.stdout.splitlines() if line.startswith("[1/5]"))
    assert " L4 " in warmup and warmup.endswith("- warm-up")
    assert "Score: 0% of 5 questions" in result.stdout
    assert {r[1:3] for r in _reviews()} == {(Rating.AGAIN, GradedBy.GAUNTLET)}


def test_gauntlet_bad_format_exits_2(run_cli):
    result = run_cli("gauntlet", "--format", "huge", "--vault", str(VAULT))
    assert result.exit_code == 2
    assert (
        "Invalid value for --format: 'huge' is not a gauntlet format; "
        "use one of quick, standard, full, design." in result.stderr
    )


def test_design_gauntlet_without_design_questions_is_one_error_line(run_cli):
    result = run_cli("gauntlet", "--format", "design", "--track", "tinyml", "--vault", str(VAULT))
    assert result.exit_code == 1
    assert result.stderr == (
        "Error: No design question (design/realization/specification zone) for track tinyml. "
        "Try another track, or the quick format.\n"
    )


def test_chain_walks_in_order_and_grades_numbers_in_any_unit(run_cli):
    result = run_cli("chain", "hbm-basics", "--vault", str(VAULT), input="80 GB\ng\nc\n40000 us\n")
    assert result.exit_code == 0, result.stderr
    assert "Chain: HBM from recall to analysis (3 items)" in result.stdout
    assert _reviews() == [
        ("c-l1-hbm", Rating.GOOD, GradedBy.SELF, "80 GB"),
        ("c-l2-mc", Rating.GOOD, GradedBy.MULTIPLE_CHOICE, "c"),
        ("c-l3-num", Rating.GOOD, GradedBy.NUMERIC, "40000 us"),
    ]
    assert "Score: 3/3 passed (100%): 2 graded right, 0 graded wrong, 1 self-rated" in result.stdout


def test_chain_wrong_number_is_graded_again(run_cli):
    result = run_cli("chain", "hbm-basics", "--vault", str(VAULT), input="skip\nskip\n4 s\n")
    assert result.exit_code == 0, result.stderr
    assert _reviews() == [("c-l3-num", Rating.AGAIN, GradedBy.NUMERIC, "4 s")]
    assert "Expected 40 ms (within 5 % of it: 38 to 42 ms)." in result.stdout


def test_unknown_chain_is_one_error_line(run_cli):
    result = run_cli("chain", "gpu", "--vault", str(VAULT))
    assert result.exit_code == 1
    assert result.stderr == "Error: No chain with id 'gpu'. Known chains: hbm-basics.\n"


def test_daily_gives_three_items_and_is_done_after_them(run_cli):
    first = run_cli("daily", "--vault", str(VAULT), "--track", "cloud", input="")
    items = [line for line in first.stdout.splitlines() if line.startswith("[")]
    assert first.exit_code == 0 and len(items) == 1  # the script ended at the first item
    assert re.match(
        r"Note: Today's items: [^\n]+\.\nDaily \d{4}-\d{2}-\d{2}\n\n\[1/3\] ", first.stdout
    )
    answers = "\n".join(["skip"] * 3)
    again = run_cli("daily", "--vault", str(VAULT), "--track", "cloud", input=answers)
    shown = [line for line in again.stdout.splitlines() if line.startswith("[")]
    assert len(shown) == 3 and shown[0] == items[0]


def test_daily_done_today_says_so(run_cli, tmp_path):
    answers = _answers(tmp_path, "x\ngood\n" * 3 + "n\n" * 3)
    args = ("daily", "--vault", str(VAULT), "--track", "edge", "--zone", "recall")
    first = run_cli(*args, "--answers", answers)
    assert first.exit_code == 0, first.stderr
    second = run_cli(*args, input="")
    assert second.stdout == (
        "Today's daily items are done. Come back tomorrow. Today's items: Int8 size (done).\n"
    )


def test_daily_offers_todays_items_even_after_they_were_practised(run_cli, tmp_path):
    args = ("--vault", str(VAULT), "--track", "edge", "--zone", "recall")
    first = run_cli("daily", *args, input="")
    todays = [line.split("] ", 1)[1] for line in first.stdout.splitlines() if line.startswith("[")]
    script = _answers(tmp_path, "x\ngood\n" * 3 + "n\n" * 3)
    practised = run_cli("practice", *args, "--answers", script)
    assert practised.exit_code == 0, practised.stderr
    again = run_cli("daily", *args, input="")
    assert again.exit_code == 0, again.stderr
    assert (
        re.search(r"Note: Today's items: Int8 size\.\nDaily \d{4}-\d{2}-\d{2}\n", again.stdout)
        and "[1/1] " in again.stdout
    )
    shown = [line.split("] ", 1)[1] for line in again.stdout.splitlines() if line.startswith("[")]
    assert shown == todays[:1]  # the script ended at the first item, as before


@pytest.mark.parametrize("command", ["practice", "quiz", "gauntlet", "chain", "daily"])
def test_every_session_command_has_help(run_cli, command):
    result = run_cli(command, "--help")
    assert result.exit_code == 0
    assert "--answers" in result.stdout and "--vault" in result.stdout


def test_practice_with_a_deadline_today_says_so_and_goes_on(run_cli):
    from datetime import UTC, datetime

    today = datetime.now(UTC).date().isoformat()
    result = run_cli(
        "practice", "--vault", str(VAULT), "--deadline", today, "--limit", "1", input="quit\n"
    )
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith(
        f"Note: The deadline {today} is today: no days are left to plan."
    )
    assert "Practice: 1 items" in result.stdout


def test_undo_takes_back_the_last_rating_and_asks_the_item_again(run_cli):
    result = run_cli(
        "practice", "--vault", str(VAULT), "--deck", "dp-cards", input="1\nundo\n4\n3\n1\n"
    )
    assert result.exit_code == 0, result.stderr
    asked_again = "> undo\nTook back the last rating; the item is asked again.\n\n[1/3] What does"
    assert asked_again in result.stdout
    assert [(item, rating) for item, rating, _, _ in _reviews()] == [
        ("fc-1", Rating.EASY),
        ("fc-2", Rating.GOOD),
        ("fc-3", Rating.AGAIN),
    ]


def test_undo_before_any_rating_says_there_is_nothing_to_undo(run_cli):
    result = run_cli("practice", "--vault", str(VAULT), "--deck", "dp-cards", input="undo\nquit\n")
    assert result.exit_code == 0, result.stderr
    assert "> undo\nNothing to undo: no item of this session has been rated yet.\n" in (
        result.stdout
    )


def test_practice_new_flag_and_daily_limit_hold_across_sessions(run_cli):
    assert run_cli("settings", "set", "new_per_day", "2").exit_code == 0
    args = ("practice", "--vault", str(VAULT), "--deck", "dp-cards")
    first = run_cli(*args, "--new", "1", input="good\n")
    assert first.exit_code == 0, first.stderr
    assert first.stdout.startswith(
        "Note: 1 new item(s) left out: this session takes 1 new.\n"
        "Practice: 1 items (0 due, 1 new; 1 more new today)\n"
    )
    second = run_cli(*args, input="good\n")
    assert second.stdout.startswith("Practice: 1 items (0 due, 1 new; 0 more new today)\n")
    third = run_cli(*args, input="")
    assert third.exit_code == 0
    assert third.stdout == (
        "Nothing to practise now: no item is due and no new item is allowed "
        "(2 new items a day, 2 new today). Come back tomorrow, or raise the new items "
        "per day in the settings.\n"
    )
    assert [r[0] for r in _reviews()] == ["fc-1", "fc-2"]


def test_quiz_new_flag_leaves_new_items_out_with_a_note(run_cli):
    result = run_cli("quiz", "ch26-quiz", "--vault", str(VAULT), "--new", "1", input="")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith(
        "Note: This quiz asks 1 of the deck's 2 items: 1 new item(s) left out: this session "
        "takes 1 new.\nQuiz: Chapter 26 quiz (1 items)\n"
    )


def test_quiz_asks_the_whole_deck_after_the_days_new_items_are_used(run_cli, tmp_path):
    assert run_cli("settings", "set", "new_per_day", "2").exit_code == 0
    practised = run_cli("practice", "--vault", str(VAULT), "--deck", "dp-cards", input="good\n" * 2)
    assert practised.exit_code == 0, practised.stderr
    answers = _answers(tmp_path, "the bubble\ngood\ntwo costs\ngood\n")
    result = run_cli("quiz", "ch26-quiz", "--vault", str(VAULT), "--answers", answers)
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith("Quiz: Chapter 26 quiz (2 items)\n")
    assert [r[0] for r in _reviews()] == ["fc-1", "fc-2", "quiz-2", "quiz-1"]


@pytest.mark.parametrize("command", [("practice",), ("quiz", "ch26-quiz"), ("daily",)])
def test_a_negative_new_limit_is_a_usage_error(run_cli, command):
    result = run_cli(*command, "--vault", str(VAULT), "--new", "-1")
    assert result.exit_code == 2
    assert "--new" in result.stderr

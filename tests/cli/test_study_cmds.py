from __future__ import annotations

import json
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from sysdrill.app.study import open_study
from sysdrill.study.optimizer import MIN_CROSS_DAY_REVIEWS
from sysdrill.study.service import GradedBy, Rating


@pytest.fixture(autouse=True)
def _no_database_url(monkeypatch):
    monkeypatch.delenv("SYSDRILL_DATABASE_URL", raising=False)


@pytest.fixture
def db_url(tmp_path: Path) -> str:
    """A study database named with --db, upgraded as a user would (``sysdrill db upgrade``)."""
    from sysdrill.app.study import upgrade_study_database

    url = f"sqlite:///{tmp_path / 'cli.sqlite3'}"
    upgrade_study_database(url)
    return url


def _seed(
    db_url: str, item_ids: list[str], *, vault: str | None = None, rating: Rating = Rating.GOOD
) -> None:
    from sysdrill.app.study_vault import open_study_vault

    now = datetime.now(UTC) - timedelta(hours=2)
    with open_study(
        db_url, vault=open_study_vault(None if vault is None else Path(vault))
    ) as study:
        for item_id in item_ids:
            study.record_review(item_id, rating=rating, graded_by=GradedBy.SELF, now=now)


def _sample_vault() -> str:
    from sysdrill.content.sample import sample_vault_path

    return str(sample_vault_path())


def _sample_ids() -> list[str]:
    from sysdrill.content.loader import load_vault
    from sysdrill.content.sample import sample_vault_path

    return [item.id for item in load_vault(sample_vault_path()).items]


def test_progress_json_reports_seen_items(run_cli, db_url):
    ids = _sample_ids()
    _seed(db_url, ids[:2], vault=_sample_vault())
    result = run_cli("progress", "--json", "--db", db_url, "--vault", _sample_vault())
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["items_total"] == len(ids)
    assert data["items_seen"] == min(2, len(ids))
    assert data["reviews_total"] == min(2, len(ids))


def test_progress_table_on_empty_database(run_cli):
    result = run_cli("progress")
    assert result.exit_code == 0, result.stderr
    assert "Coverage" in result.stdout
    assert "No reviews yet. Start with `sysdrill practice`." in result.stdout


def test_progress_uses_database_url_variable(run_cli, db_url, monkeypatch):
    _seed(db_url, ["only-in-this-db"])
    monkeypatch.setenv("SYSDRILL_DATABASE_URL", db_url)
    data = json.loads(run_cli("progress", "--json").stdout)
    assert data["reviews_total"] == 1


def test_state_export_and_import_round_trip(run_cli, db_url, tmp_path):
    _seed(db_url, ["a", "b"])
    out = tmp_path / "state.json"
    exported = run_cli("state", "export", str(out), "--db", db_url)
    assert exported.exit_code == 0, exported.stderr
    assert exported.stdout == f"Exported 2 cards and 2 reviews of vault starter to {out}.\n"
    other = f"sqlite:///{tmp_path / 'other.sqlite3'}"
    assert run_cli("db", "upgrade", "--db", other).exit_code == 0
    imported = run_cli("state", "import", str(out), "--db", other)
    assert imported.exit_code == 0, imported.stderr
    assert imported.stdout == f"Imported 2 reviews from {out} into vault starter.\n"
    again = tmp_path / "again.json"
    run_cli("state", "export", str(again), "--db", other)
    first, second = json.loads(out.read_text()), json.loads(again.read_text())
    first.pop("exported_at")
    second.pop("exported_at")
    assert first == second


def test_state_import_refuses_existing_state_without_replace(run_cli, db_url, tmp_path):
    _seed(db_url, ["a"])
    out = tmp_path / "state.json"
    run_cli("state", "export", str(out), "--db", db_url)
    result = run_cli("state", "import", str(out), "--db", db_url)
    assert result.exit_code == 1
    assert result.stderr == (
        "Error: This learner already has study state. Use --replace to overwrite it "
        "(export it first with `sysdrill state export FILE`).\n"
    )
    assert run_cli("state", "import", str(out), "--replace", "--db", db_url).exit_code == 0


def test_state_import_of_broken_json_names_file_and_line(run_cli, db_url, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{\n  "format": \n}\n')
    result = run_cli("state", "import", str(bad), "--db", db_url)
    assert result.exit_code == 1
    assert result.stderr == f"Error: {bad}:3:1: not valid JSON (Expecting value).\n"


def test_state_import_from_staffml(run_cli, db_url, tmp_path):
    export = tmp_path / "staffml.json"
    export.write_text(
        json.dumps(
            {
                "attempts": [
                    {"questionId": "q-1", "timestamp": "2026-01-05T10:00:00Z", "correct": True}
                ]
            }
        )
    )
    result = run_cli("state", "import", str(export), "--from", "staffml", "--db", db_url)
    assert result.exit_code == 0, result.stderr
    assert result.stdout == f"Imported 1 reviews from {export} into vault starter.\n"


def test_state_import_with_unknown_source_is_a_usage_error(run_cli, tmp_path):
    result = run_cli("state", "import", str(tmp_path / "x.json"), "--from", "anki")
    assert result.exit_code == 2


def test_settings_set_then_show(run_cli, db_url):
    result = run_cli("settings", "set", "desired_retention", "0.85", "--db", db_url)
    assert (result.exit_code, result.stdout) == (0, "desired_retention = 0.85\n")
    shown = json.loads(run_cli("settings", "show", "--json", "--db", db_url).stdout)
    assert shown["desired_retention"] == 0.85
    table = run_cli("settings", "show", "--db", db_url).stdout
    assert "learning_steps_minutes" in table and "1,10" in table


def test_settings_set_rejects_out_of_range_retention(run_cli, db_url):
    result = run_cli("settings", "set", "desired_retention", "1.5", "--db", db_url)
    assert result.exit_code == 1
    assert result.stderr == (
        "Error: Invalid study settings: desired_retention must be between 0.70 and 0.97, got 1.5.\n"
    )


def test_settings_set_unknown_key(run_cli, db_url):
    result = run_cli("settings", "set", "speed", "3", "--db", db_url)
    assert result.exit_code == 1
    assert result.stderr.startswith("Error: Unknown setting 'speed'. Known settings: ")


def test_workload_without_deadline_names_the_fix(run_cli, db_url):
    result = run_cli("workload", "--db", db_url)
    assert result.exit_code == 1
    assert result.stderr == (
        "Error: No deadline set. Set the next one with "
        "`sysdrill settings set deadline YYYY-MM-DD`.\n"
    )


def test_workload_on_a_deadline_today_or_past_says_so(run_cli, db_url):
    from sysdrill.app.study import open_study

    today = datetime.now(UTC).date()
    for day, says in (
        (today, "is today: no days are left to plan."),
        (today - timedelta(days=3), "has passed (3 days ago)."),
    ):
        # Saved while it lay ahead (a past date is refused when set).
        with open_study(db_url, vault=None) as study:
            study.update_settings(deadline=day)
        result = run_cli("workload", "--db", db_url)
        assert result.exit_code == 1
        assert result.stderr.startswith(f"Error: The deadline {day.isoformat()} {says}")
        assert result.stderr.endswith("`sysdrill settings set deadline none`.\n")


def test_settings_set_deadline_in_the_past_is_refused_in_one_line(run_cli, db_url):
    past = (datetime.now(UTC).date() - timedelta(days=2)).isoformat()
    result = run_cli("settings", "set", "deadline", past, "--db", db_url)
    assert result.exit_code == 1
    assert result.stderr.startswith(f"Error: The interview date {past} has passed; give one from ")
    assert result.stderr.endswith(", or none to turn deadline mode off.\n")
    assert result.stderr.count("\n") == 1
    shown = run_cli("settings", "show", "--json", "--db", db_url)
    assert '"deadline": null' in shown.stdout


def test_settings_set_deadline_today_stores_it_with_a_note(run_cli, db_url):
    today = datetime.now(UTC).date()
    result = run_cli("settings", "set", "deadline", today.isoformat(), "--db", db_url)
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines() == [
        f'deadline = "{today.isoformat()}"',
        f"Note: The deadline {today.isoformat()} is today: no days are left to plan. Set the "
        "next one with `sysdrill settings set deadline YYYY-MM-DD`, or turn deadline mode off "
        "with `sysdrill settings set deadline none`.",
    ]
    later = (today + timedelta(days=9)).isoformat()
    result = run_cli("settings", "set", "deadline", later, "--db", db_url)
    assert result.stdout == f'deadline = "{later}"\n'


def test_workload_is_the_same_for_the_same_state_and_day(run_cli, db_url):
    deadline = (datetime.now(UTC) + timedelta(days=30)).date().isoformat()
    assert run_cli("settings", "set", "deadline", deadline, "--db", db_url).exit_code == 0
    assert (
        run_cli("practice", "--db", db_url, "--limit", "3", input="good\nn\ngood\nn\n").exit_code
        == 0
    )
    first = run_cli("workload", "--json", "--db", db_url)
    again = run_cli("workload", "--json", "--db", db_url)
    assert first.exit_code == 0, first.stderr
    assert first.stdout == again.stdout


def test_workload_today_counts_the_new_items_the_banner_says_are_left(run_cli, db_url):
    deadline = (datetime.now(UTC) + timedelta(days=30)).date().isoformat()
    assert run_cli("settings", "set", "deadline", deadline, "--db", db_url).exit_code == 0
    assert run_cli("settings", "set", "new_per_day", "5", "--db", db_url).exit_code == 0
    done = run_cli("practice", "--db", db_url, "--limit", "2", input="good\nn\ngood\nn\n")
    assert done.exit_code == 0, done.stderr
    banner = run_cli("practice", "--db", db_url, input="quit\n").stdout.splitlines()[0]
    assert banner.endswith("3 new; 0 more new today)"), banner
    days = json.loads(run_cli("workload", "--json", "--db", db_url).stdout)
    assert [day["new_items"] for day in days[:2]] == [3, 5]


def test_workload_with_deadline_lists_each_day(run_cli, db_url):
    deadline = (datetime.now(UTC) + timedelta(days=4)).date()
    run_cli("settings", "set", "deadline", deadline.isoformat(), "--db", db_url)
    result = run_cli("workload", "--json", "--db", db_url, "--vault", _sample_vault())
    assert result.exit_code == 0, result.stderr
    days = json.loads(result.stdout)
    assert len(days) == 4
    assert days[0]["new_items"] == min(20, len(_sample_ids()))


def test_optimize_with_short_history_says_so(run_cli, db_url):
    _seed(db_url, ["a"])
    result = run_cli("optimize", "--db", db_url)
    assert result.exit_code == 1
    assert result.stderr.startswith(
        "Error: History too short to fit parameters: 0 reviews on a later day"
    )


def test_bad_database_url_is_one_error_line(run_cli):
    result = run_cli("progress", "--db", "mysql://u@h/db")
    assert result.exit_code == 1
    assert result.stderr == (
        "Error: Unsupported database 'mysql' in mysql://u@h/db. "
        "Use sqlite:///PATH or postgresql+psycopg://USER@HOST/DB.\n"
    )


def test_every_study_command_has_help(run_cli):
    for args in (
        ["progress"],
        ["workload"],
        ["optimize"],
        ["state", "export"],
        ["state", "import"],
        ["settings", "show"],
        ["settings", "set"],
    ):
        result = run_cli(*args, "--help")
        assert result.exit_code == 0, args
        assert "--db" in result.stdout


def test_every_study_command_is_documented():
    text = (Path(__file__).resolve().parents[2] / "docs" / "study.md").read_text()
    for command in (
        "sysdrill progress",
        "sysdrill workload",
        "sysdrill state export",
        "sysdrill state import",
        "sysdrill settings show",
        "sysdrill settings set",
        "sysdrill optimize",
    ):
        assert f"`{command}" in text, command


def test_progress_table_lists_weakest_topics_and_deadline(run_cli, db_url):
    ids = _sample_ids()
    _seed(db_url, ids)
    deadline = (datetime.now(UTC) + timedelta(days=30)).date().isoformat()
    run_cli("settings", "set", "deadline", deadline, "--db", db_url)
    result = run_cli("progress", "--db", db_url)
    assert result.exit_code == 0, result.stderr
    assert "Weakest topics" in result.stdout
    assert f"Deadline: {deadline} (see `sysdrill workload`)." in result.stdout
    assert "Reviews per day, last 30 days:" in result.stdout


def test_progress_says_weakest_topics_need_more_reviews_on_the_first_day(run_cli, db_url):
    _seed(db_url, _sample_ids()[:2], vault=_sample_vault())
    result = run_cli("progress", "--db", db_url, "--vault", _sample_vault())
    assert result.exit_code == 0, result.stderr
    assert " ".join(result.stdout.split()).endswith(
        "Weakest topics: Not enough reviews yet: a topic is ranked once its items have 5 "
        "reviews in the last 30 days, or are being forgotten."
    )


def test_workload_table(run_cli, db_url):
    deadline = (datetime.now(UTC) + timedelta(days=2)).date().isoformat()
    run_cli("settings", "set", "deadline", deadline, "--db", db_url)
    result = run_cli("workload", "--db", db_url)
    assert result.exit_code == 0, result.stderr
    assert "Expected workload until the deadline" in result.stdout


def test_state_export_to_stdout_is_the_document(run_cli, db_url):
    _seed(db_url, ["a"])
    result = run_cli("state", "export", "-", "--db", db_url)
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert (data["format"], len(data["reviews"])) == ("sysdrill-study-state", 1)


def test_state_export_writes_one_entry_a_line_and_quiet_prints_nothing(run_cli, db_url, tmp_path):
    _seed(db_url, ["a", "b", "c"])
    out = tmp_path / "state.json"
    result = run_cli("state", "export", str(out), "--db", db_url, "--quiet")
    assert result.exit_code == 0, result.stderr
    assert result.stdout == ""
    lines = out.read_text(encoding="utf-8").splitlines()
    review_lines = [line for line in lines if line.startswith('  {"item_id"') and "rating" in line]
    assert len(review_lines) == 3  # a review is one line: a large log is written as read
    assert [json.loads(line.rstrip(","))["item_id"] for line in review_lines] == ["a", "b", "c"]
    assert json.loads(out.read_text(encoding="utf-8"))["interviews"] == []


def test_state_export_that_fails_midway_leaves_the_old_file(run_cli, db_url, tmp_path, monkeypatch):
    import sysdrill.study.state_io as state_io

    _seed(db_url, ["a", "b"])
    out = tmp_path / "state.json"
    out.write_text("the earlier export\n", encoding="utf-8")
    real = state_io._review_entry

    def failing(review, position):
        if review.item_id == "b":
            raise OSError(28, "No space left on device")
        return real(review, position)

    monkeypatch.setattr(state_io, "_review_entry", failing)
    result = run_cli("state", "export", str(out), "--db", db_url)
    assert result.exit_code == 1
    assert result.stderr == (
        f"Error: {out}: cannot write (No space left on device). Choose a writable location.\n"
    )
    assert out.read_text(encoding="utf-8") == "the earlier export\n"
    assert [p.name for p in tmp_path.iterdir() if "state" in p.name] == ["state.json"]


def test_state_export_into_missing_folder_fails_cleanly(run_cli, db_url, tmp_path):
    target = tmp_path / "missing" / "state.json"
    result = run_cli("state", "export", str(target), "--db", db_url)
    assert result.exit_code == 1
    assert result.stderr == (
        f"Error: {target}: cannot write (No such file or directory). Choose a writable location.\n"
    )
    assert not target.exists()


def test_state_import_of_missing_file(run_cli, db_url, tmp_path):
    missing = tmp_path / "nope.json"
    result = run_cli("state", "import", str(missing), "--db", db_url)
    assert result.exit_code == 1
    assert result.stderr.startswith(f"Error: {missing}: cannot read (")


def test_state_import_of_a_json_array_is_refused(run_cli, db_url, tmp_path):
    array = tmp_path / "array.json"
    array.write_text("[]")
    result = run_cli("state", "import", str(array), "--db", db_url)
    assert result.exit_code == 1
    assert result.stderr == f"Error: {array}: expected a JSON object at the top level.\n"


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("desired_retention", "-0.9", "desired_retention must be between 0.70 and 0.97, got -0.9."),
        ("maximum_interval_days", "-3", "maximum_interval_days must be at least 1, got -3."),
    ],
)
def test_settings_set_reads_a_negative_value_as_a_value_and_rejects_it(
    run_cli, key, value, message
):
    result = run_cli("settings", "set", key, value)

    assert result.exit_code == 1
    assert result.stderr.strip() == f"Error: Invalid study settings: {message}"


@pytest.mark.parametrize(
    ("url", "message"),
    [
        (
            "sqlite://",
            "Error: sqlite:// keeps nothing after the command ends; give a file, such as "
            "sqlite:///study.sqlite3, or leave --db out for the default.",
        ),
        (
            "sqlite:///:memory:",
            "Error: sqlite:///:memory: keeps nothing after the command ends; give a file, such as "
            "sqlite:///study.sqlite3, or leave --db out for the default.",
        ),
        (
            "postgresql+psycopg://me:hunter2@localhost:abc/db",
            "Error: Cannot read the database URL postgresql+psycopg://me:***@localhost:abc/db "
            "(invalid literal for int() with base 10: 'abc'). Use sqlite:///PATH or "
            "postgresql+psycopg://USER@HOST:PORT/DB with a numeric port.",
        ),
        (
            "postgresql+psycopg://me:hunter2@localhost:99999/db",
            "Error: Cannot use the database URL postgresql+psycopg://me:***@localhost:99999/db: "
            "port 99999 is out of range. Give a port from 1 to 65535 (PostgreSQL's is 5432), "
            "or leave it out.",
        ),
        (
            "/srv/study.db",
            "Error: '/srv/study.db' is not a database URL; for a SQLite file write "
            "sqlite:////srv/study.db, or postgresql+psycopg://USER@HOST:PORT/DB for PostgreSQL.",
        ),
    ],
    ids=["sqlite-no-file", "sqlite-memory", "port-not-a-number", "port-out-of-range", "a-path"],
)
def test_a_db_url_that_cannot_keep_or_reach_data_is_one_error_line(run_cli, url, message):
    result = run_cli("progress", "--db", url)

    assert result.exit_code == 1
    assert result.stderr.splitlines() == [message]


EPOCHS = 4
"""Epochs of the stand-in optimizer."""


@pytest.fixture
def long_history(db_url: str) -> str:
    """One item reviewed once a day, enough days for a fit."""
    start = datetime.now(UTC) - timedelta(days=MIN_CROSS_DAY_REVIEWS + 2)
    from sysdrill.app.study_vault import open_study_vault

    with open_study(db_url, vault=open_study_vault(None)) as study:
        for day in range(MIN_CROSS_DAY_REVIEWS + 1):
            study.record_review(
                "gpu-0001",
                rating=Rating.GOOD,
                graded_by=GradedBy.SELF,
                now=start + timedelta(days=day),
            )
    return db_url


@pytest.fixture
def stand_in_optimizer(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """fsrs's optimizer without PyTorch: one loss per epoch, the defaults as the fit."""
    from fsrs.scheduler import DEFAULT_PARAMETERS
    from tests.study.test_optimizer import stand_in_optimizer

    fitted = [round(p, 4) for p in DEFAULT_PARAMETERS]
    monkeypatch.setitem(sys.modules, "fsrs.optimizer", stand_in_optimizer(EPOCHS, fitted))
    return fitted


def test_optimize_on_a_terminal_shows_the_log_and_epoch_bars(
    run_cli, long_history: str, stand_in_optimizer: list[float], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FORCE_COLOR", "1")

    result = run_cli("optimize", "--db", long_history)

    assert result.exit_code == 0, result.stderr
    assert "Reading the review log" in result.stderr
    reviews = MIN_CROSS_DAY_REVIEWS + 1
    assert f"{reviews}/{reviews}" in result.stderr
    assert "Fitting FSRS parameters" in result.stderr
    assert f"{EPOCHS}/{EPOCHS}" in result.stderr
    assert result.stdout == (
        f"Fitted FSRS parameters to {MIN_CROSS_DAY_REVIEWS} reviews and saved them; "
        "reset with `sysdrill settings set fsrs_parameters none`.\n"
    )
    shown = json.loads(run_cli("settings", "show", "--json", "--db", long_history).stdout)
    assert shown["fsrs_parameters"] == stand_in_optimizer


def test_optimize_quiet_prints_nothing_and_saves_the_fit(
    run_cli, long_history: str, stand_in_optimizer: list[float], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FORCE_COLOR", "1")

    result = run_cli("optimize", "--db", long_history, "--quiet")

    assert (result.exit_code, result.stdout, result.stderr) == (0, "", "")
    shown = json.loads(run_cli("settings", "show", "--json", "--db", long_history).stdout)
    assert shown["fsrs_parameters"] == stand_in_optimizer


def test_optimize_off_a_terminal_prints_only_the_result(
    run_cli, long_history: str, stand_in_optimizer: list[float]
) -> None:
    result = run_cli("optimize", "--db", long_history)

    assert result.exit_code == 0
    assert result.stderr == ""
    assert result.stdout.startswith(f"Fitted FSRS parameters to {MIN_CROSS_DAY_REVIEWS} reviews")


def test_optimize_quiet_with_nothing_to_fit_is_one_error_line(run_cli, db_url: str) -> None:
    result = run_cli("optimize", "--db", db_url, "-q")

    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr.startswith(
        "Error: History too short to fit parameters: 0 reviews on a later day"
    )
    assert result.stderr.count("\n") == 1


def test_optimize_without_the_extra_names_the_install_command(
    run_cli, long_history: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "fsrs.optimizer", None)

    result = run_cli("optimize", "--db", long_history, "--quiet")

    assert result.exit_code == 1
    assert result.stderr == (
        "Error: The optimizer is not installed. "
        "Install it with: pip install 'sysdrill[optimizer]'.\n"
    )


def test_progress_table_gives_each_weak_topics_recent_reviews_and_agains(run_cli, db_url):
    _seed(db_url, [_sample_ids()[0]] * 5, rating=Rating.AGAIN)
    result = run_cli("progress", "--db", db_url)
    assert result.exit_code == 0, result.stderr
    table = result.stdout.split("Weakest topics", 1)[1]
    assert "Rated Again" in table and "Reviews (30 days)" in table
    assert "(100%)" in table

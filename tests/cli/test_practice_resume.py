"""An interrupted practice is offered again at the next start (issue 29 item 9).

The interruption is simulated as it happens to a learner: a session started
(at an injected time) and left with one item rated, or Ctrl-C while the
command waits for the next answer line.
"""

from __future__ import annotations

import io
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sysdrill.app import sessions as use_cases
from sysdrill.app.sessions import StartOptions
from sysdrill.app.study import open_study
from sysdrill.app.study_vault import open_study_vault
from sysdrill.cli.app import main
from sysdrill.study.filters import ItemFilter
from sysdrill.study.sessions.state_machine import SessionKind

VAULT = Path(__file__).resolve().parents[1] / "study" / "sessions" / "vault"
LEFT_AT = (datetime.now(UTC) - timedelta(hours=2)).replace(second=0, microsecond=0)
"""When the left session was started: two hours before the test runs."""


@pytest.fixture
def db(run_cli, tmp_path: Path) -> str:
    url = f"sqlite:///{tmp_path / 'study.db'}"
    assert run_cli("db", "upgrade", "--db", url).exit_code == 0
    return url


def _leave_a_practice(db: str) -> int:
    """Start a practice of deck dp-cards, rate its first card Good and leave it."""
    vault = open_study_vault(VAULT)
    with open_study(db, vault=vault) as study:
        options = StartOptions(SessionKind.PRACTICE, ItemFilter(deck="dp-cards"))
        view = use_cases.start_session(study, vault, options, now=LEFT_AT)
        assert view.session_id is not None
        use_cases.reveal(study, vault, view.session_id, now=LEFT_AT)
        use_cases.rate(study, vault, view.session_id, "3", now=LEFT_AT + timedelta(seconds=20))
        return view.session_id


def _practice(run_cli, db: str, *extra: str, input: str):
    """``sysdrill practice`` of deck dp-cards, the options of the session left."""
    return run_cli(
        "practice", "--vault", str(VAULT), "--deck", "dp-cards", *extra, "--db", db, input=input
    )


def _state(db: str) -> tuple[list[str], list[int], list[int]]:
    """Items reviewed, sessions in progress, sessions ended (by id)."""
    with open_study(db, vault=open_study_vault(VAULT)) as study:
        return (
            [review.item_id for review in study.store.iter_reviews(study.scope)],
            [int(s.session_id) for s in study.store.list_active_sessions(study.scope)],
            [int(s.session_id) for s in study.sessions() if s.ended_at is not None],
        )


def test_a_practice_left_unfinished_is_resumed_where_it_stopped(run_cli, db):
    left = _leave_a_practice(db)
    result = _practice(run_cli, db, input="4\n")
    assert result.exit_code == 0, result.stderr
    started = LEFT_AT.strftime("%Y-%m-%d %H:%M UTC")
    assert result.stdout.splitlines()[0] == (
        f"Resuming your unfinished practice of {started} (1 of 3 items done); "
        "add --new-session to start afresh."
    )
    assert "[1/3]" not in result.stdout and "[2/3] What does ZeRO stage 1 shard?" in result.stdout
    assert "Items: 2 answered, 1 not reached" in result.stdout
    assert _state(db) == (["fc-1", "fc-2"], [], [left])


def test_other_options_start_a_new_practice_and_leave_the_unfinished_one(run_cli, db):
    left = _leave_a_practice(db)
    result = _practice(run_cli, db, "--limit", "2", input="")
    assert result.exit_code == 0, result.stderr
    assert "Resuming" not in result.stdout
    reviewed, in_progress, ended = _state(db)
    assert in_progress == [left] and ended != [] and left not in ended


def test_new_session_ends_the_unfinished_practice_and_starts_afresh(run_cli, db):
    left = _leave_a_practice(db)
    result = _practice(run_cli, db, "--new-session", input="")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines()[0] == (
        "Ended your unfinished practice (1 of 3 items done, reviews kept); starting a new one."
    )
    # fc-1, rated Good two hours ago, is due again: a fresh plan, not the one left.
    assert "Practice: 3 items (1 due, 2 new;" in result.stdout
    reviewed, in_progress, ended = _state(db)
    assert reviewed == ["fc-1"] and in_progress == [] and left in ended and len(ended) == 2


class _KeysThenCtrlC(io.RawIOBase):
    """Standard input that gives some lines, then is interrupted as by Ctrl-C."""

    def __init__(self, text: str) -> None:
        self.left = text.encode()

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:  # type: ignore[no-untyped-def]
        if not self.left:
            raise KeyboardInterrupt
        size = min(len(buffer), len(self.left))
        buffer[:size] = self.left[:size]
        self.left = self.left[size:]
        return size


def _interrupted(*args: str, keys: str) -> tuple[int, str, str]:
    """Run ``sysdrill ARGS`` (in run_cli's environment) with Ctrl-C after ``keys``."""
    with CliRunner().isolation() as (out, err, _):
        # Typer's runner takes text only: the interrupting reader goes in by hand.
        sys.stdin = io.TextIOWrapper(io.BufferedReader(_KeysThenCtrlC(keys)), encoding="utf-8")
        code = main(list(args))
        sys.stdout.flush()
        sys.stderr.flush()
        return code, out.getvalue().decode(), err.getvalue().decode()


def test_ctrl_c_keeps_the_practice_says_how_to_resume_and_exits_130(run_cli, db):
    args = ("practice", "--vault", str(VAULT), "--deck", "dp-cards", "--db", db)
    code, stdout, stderr = _interrupted(*args, keys="3\n")
    assert code == 130
    assert stdout.splitlines()[-1] == (
        "Interrupted: your practice is kept (1 of 3 items done). Run the same command to "
        "resume it, or add --new-session to start afresh."
    )
    assert stderr == ""
    reviewed, in_progress, ended = _state(db)
    assert reviewed == ["fc-1"] and len(in_progress) == 1 and ended == []

    again = _practice(run_cli, db, input="2\n4\n")
    assert again.exit_code == 0, again.stderr
    assert again.stdout.startswith("Resuming your unfinished practice of ")
    assert "Items: 3 answered" in again.stdout
    assert _state(db) == (["fc-1", "fc-2", "fc-3"], [], in_progress)


def test_ctrl_c_in_a_quiz_still_ends_it_with_the_reviews_given(run_cli, db):
    code, stdout, stderr = _interrupted(
        "quiz", "dp-cards", "--vault", str(VAULT), "--db", db, keys="3\n"
    )
    assert code == 130
    assert "Traceback" not in stdout + stderr and "Interrupted" not in stdout
    reviewed, in_progress, ended = _state(db)
    assert reviewed == ["fc-1"] and in_progress == [] and len(ended) == 1

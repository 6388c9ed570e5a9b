"""`sysdrill reports`: the problems the web app stored, read from the study database."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from sysdrill.app.problem_reports import report_problem
from sysdrill.storage.engine import upgrade_database

NOW = datetime(2026, 11, 25, 12, 30, tzinfo=UTC)


@pytest.fixture(autouse=True)
def _no_database_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SYSDRILL_DATABASE_URL", raising=False)


def test_reports_lists_what_the_web_app_stored_in_the_default_database(
    run_cli: Any, tmp_path: Path
) -> None:
    assert run_cli("reports").stdout == "No problem report yet.\n"
    default_db = f"sqlite:///{tmp_path / 'userdata' / 'study.sqlite3'}"
    report_problem(
        default_db, item_id="cloud-0103", kind="wrong-math", message="line 2\nis off", now=NOW
    )
    result = run_cli("reports")
    assert result.exit_code == 0
    assert result.stdout == "2026-11-25 12:30  cloud-0103  wrong-math  line 2 is off\n"
    assert json.loads(run_cli("reports", "--json").stdout) == [
        {
            "item_id": "cloud-0103",
            "kind": "wrong-math",
            "message": "line 2\nis off",
            "reported_at": "2026-11-25T12:30:00+00:00",
            "user": "local",
        }
    ]


def test_reports_reads_the_database_named_with_db(run_cli: Any, tmp_path: Path) -> None:
    served = f"sqlite:///{tmp_path / 'served.sqlite3'}"
    upgrade_database(served)
    report_problem(served, item_id="edge-0101", kind="typo", message="teh", now=NOW, user="dana")
    assert run_cli("reports").stdout == "No problem report yet.\n"
    assert [r["user"] for r in json.loads(run_cli("reports", "--json", "--db", served).stdout)] == [
        "dana"
    ]


def test_reports_on_a_new_sqlite_file_creates_it_and_finds_none(
    run_cli: Any, tmp_path: Path
) -> None:
    blank = tmp_path / "blank.sqlite3"
    result = run_cli("reports", "--db", f"sqlite:///{blank}")
    assert result.exit_code == 0, result.stderr
    assert result.stdout == "No problem report yet.\n"
    assert blank.is_file()

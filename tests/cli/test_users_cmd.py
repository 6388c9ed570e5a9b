"""`sysdrill users`, run the way an operator would: passwords from a prompt or stdin."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

NOW = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)


@pytest.fixture(autouse=True)
def _no_database_url(monkeypatch):
    monkeypatch.delenv("SYSDRILL_DATABASE_URL", raising=False)


def test_add_reads_the_password_from_stdin_and_list_shows_the_account(run_cli) -> None:
    added = run_cli("users", "add", "Alice", "--admin", "--password-stdin", input="s3cret pass!\n")
    assert added.exit_code == 0, added.stderr
    assert added.stdout == "Created admin account 'alice'.\n"
    listed = json.loads(run_cli("users", "list", "--json").stdout)
    assert [(a["name"], a["role"], a["disabled"]) for a in listed["accounts"]] == [
        ("alice", "admin", False)
    ]
    assert listed["signup"] == {"policy": "open", "has_invite_code": False}
    text = run_cli("users", "list").stdout.splitlines()
    assert text[0].split()[:3] == ["alice", "admin", "since"]
    assert text[-1] == "Sign-up: open"


def test_add_asks_for_the_password_twice_at_a_prompt(run_cli) -> None:
    from sysdrill.app.accounts import open_accounts
    from sysdrill.storage.location import default_database_url

    result = run_cli("users", "add", "bob", input="long enough pw\nlong enough pw\n")
    assert result.exit_code == 0, result.stderr
    assert "long enough pw" not in result.stdout
    with open_accounts(default_database_url()) as accounts:
        assert accounts.authenticate("bob", "long enough pw", address="cli", now=NOW).name == "bob"


def test_a_short_password_is_one_error_line(run_cli) -> None:
    result = run_cli("users", "add", "bob", "--password-stdin", input="short\n")
    assert result.exit_code == 1
    assert result.stderr == "Error: The password is too short; use at least 10 characters.\n"


def test_an_empty_stdin_password_is_a_usage_error(run_cli) -> None:
    result = run_cli("users", "add", "bob", "--password-stdin", input="")
    assert result.exit_code == 2
    assert "password expected on standard input, got nothing" in result.stderr


def test_a_taken_name_is_one_error_line(run_cli) -> None:
    run_cli("users", "add", "bob", "--password-stdin", input="long enough pw\n")
    result = run_cli("users", "add", "BOB", "--password-stdin", input="long enough pw\n")
    assert result.exit_code == 1
    assert result.stderr == "Error: The user name 'bob' is taken; choose another.\n"


def test_disable_set_password_and_make_admin(run_cli) -> None:
    run_cli("users", "add", "bob", "--password-stdin", input="long enough pw\n")
    assert run_cli("users", "disable", "bob").stdout == "Disabled account 'bob'.\n"
    assert run_cli("users", "disable", "bob", "--enable").stdout == "Enabled account 'bob'.\n"
    changed = run_cli("users", "set-password", "bob", "--password-stdin", input="other long pw\n")
    assert changed.stdout == "Changed the password of 'bob'.\n"
    assert run_cli("users", "make-admin", "bob").stdout == "'bob' is now an admin.\n"
    assert run_cli("users", "make-admin", "bob", "--learner").stdout == "'bob' is now a learner.\n"
    listed = json.loads(run_cli("users", "list", "--json").stdout)["accounts"]
    assert [(a["name"], a["role"], a["disabled"]) for a in listed] == [("bob", "learner", False)]


@pytest.mark.parametrize("command", ["disable", "set-password", "make-admin"])
def test_an_unknown_account_is_one_error_line(run_cli, command: str) -> None:
    result = run_cli("users", command, "nobody", input="long enough pw\nlong enough pw\n")
    assert result.exit_code == 1
    assert result.stderr == (
        "Error: No account named 'nobody'; `sysdrill users list` shows the accounts.\n"
    )


def test_a_new_sqlite_file_named_with_db_is_created_and_migrated(run_cli, tmp_path) -> None:
    # As every other command does with an SQLite URL (issue 29 item 10).
    url = f"sqlite:///{tmp_path / 'other.sqlite3'}"
    result = run_cli("users", "list", "--db", url)
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith("No accounts yet;")
    added = run_cli("users", "add", "bob", "--db", url, input="long enough pw\nlong enough pw\n")
    assert added.exit_code == 0, added.stderr
    assert "bob" in run_cli("users", "list", "--db", url).stdout


def test_a_file_that_is_not_a_database_is_one_error_line(run_cli, tmp_path) -> None:
    junk = tmp_path / "notes.txt"
    junk.write_text("not a database\n" * 100)
    result = run_cli("users", "list", "--db", f"sqlite:///{junk}")
    assert result.exit_code == 1
    assert result.stderr.startswith("Error: ") and result.stderr.count("\n") == 1
    assert junk.read_text() == "not a database\n" * 100


def test_signup_policy_invite_reads_the_code_and_list_reports_it(run_cli) -> None:
    result = run_cli("users", "signup", "invite", "--invite-code-stdin", input="class-2026\n")
    assert result.exit_code == 0, result.stderr
    assert result.stdout == "Sign-up is now invite.\n"
    listed = json.loads(run_cli("users", "list", "--json").stdout)
    assert listed["signup"] == {"policy": "invite", "has_invite_code": True}
    assert run_cli("users", "signup", "closed").stdout == "Sign-up is now closed.\n"


def test_an_unknown_signup_policy_is_a_usage_error(run_cli) -> None:
    result = run_cli("users", "signup", "maybe")
    assert result.exit_code == 2
    assert "use open, invite or closed, not 'maybe'" in result.stderr


def test_a_bad_or_taken_name_is_refused_before_the_password_prompt(run_cli) -> None:
    bad = run_cli("users", "add", "no spaces")
    assert bad.exit_code == 1
    assert bad.stderr.startswith("Error: The user name 'no spaces' is not allowed;")
    assert "Password" not in bad.stdout
    run_cli("users", "add", "bob", "--password-stdin", input="long enough pw\n")
    taken = run_cli("users", "add", "Bob")
    assert (taken.exit_code, taken.stderr) == (
        1,
        "Error: The user name 'bob' is taken; choose another.\n",
    )
    assert "Password" not in taken.stdout


@pytest.mark.parametrize(
    ("password", "message"),
    [
        (
            "password123",
            "The password is one of the most common passwords; "
            "choose one nobody would guess first.",
        ),
        ("carol at work 2026", "The password contains the user name; choose one without it."),
    ],
)
def test_add_refuses_a_common_password_or_the_name_in_one_line(
    run_cli, password: str, message: str
) -> None:
    result = run_cli("users", "add", "carol", "--password-stdin", input=f"{password}\n")
    assert (result.exit_code, result.stderr) == (1, f"Error: {message}\n")
    assert json.loads(run_cli("users", "list", "--json").stdout)["accounts"] == []


def test_set_password_refuses_a_common_password_in_one_line(run_cli) -> None:
    run_cli("users", "add", "bob", "--password-stdin", input="long enough pw\n")
    result = run_cli("users", "set-password", "bob", "--password-stdin", input="qwertyuiop\n")
    assert result.exit_code == 1
    assert result.stderr == (
        "Error: The password is one of the most common passwords; "
        "choose one nobody would guess first.\n"
    )

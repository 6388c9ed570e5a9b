"""The password policy: long enough, not a common password, not the user name."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

import pytest

from sysdrill.app.accounts import AccountService, open_accounts
from sysdrill.app.password_policy import (
    MIN_PASSWORD_CHARS,
    check_password,
    common_passwords,
)
from sysdrill.errors import UsageError

NOW = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)
PASSWORD = "correct horse battery"
COMMON = "The password is one of the most common passwords; choose one nobody would guess first."
HAS_NAME = "The password contains the user name; choose one without it."


@pytest.fixture
def accounts(migrated_db_url: str) -> Iterator[AccountService]:
    with open_accounts(migrated_db_url) as service:
        yield service


def test_the_bundled_list_holds_hundreds_of_lower_case_passwords() -> None:
    found = common_passwords()
    assert 500 <= len(found) <= 1000
    assert {"password", "123456", "qwerty", "iloveyou", "1234567890"} <= found
    assert all(entry == entry.strip().lower() and entry for entry in found)


@pytest.mark.parametrize(
    "password",
    ["1234567890", "qwertyuiop", "Password123", "PASSWORD1234", "iloveyou12", "dragon2026!!"],
)
def test_a_common_password_or_one_with_digits_around_it_is_refused(password: str) -> None:
    with pytest.raises(UsageError) as caught:
        check_password(password, user_name="dana")
    assert str(caught.value) == COMMON


@pytest.mark.parametrize(
    ("name", "password"),
    [
        ("alice", "alice-in-the-lab"),
        ("alice", "my ALICE account!"),
        ("alice.smith", "AliceSmith-2026"),
        ("bob_99", "it is b.o.b-99 here"),
    ],
)
def test_a_password_containing_the_user_name_is_refused(name: str, password: str) -> None:
    with pytest.raises(UsageError) as caught:
        check_password(password, user_name=name)
    assert str(caught.value) == HAS_NAME


def test_a_short_password_is_refused_with_the_minimum() -> None:
    with pytest.raises(UsageError) as caught:
        check_password("a" * (MIN_PASSWORD_CHARS - 1), user_name="dana")
    assert str(caught.value) == "The password is too short; use at least 10 characters."


@pytest.mark.parametrize(
    ("name", "password"),
    [("dana", PASSWORD), ("jo", "enjoy the journey"), ("alice", "four unrelated words here")],
)
def test_a_good_password_passes(name: str, password: str) -> None:
    assert check_password(password, user_name=name) == password


def test_sign_up_refuses_a_common_password(accounts) -> None:
    with pytest.raises(UsageError, match="most common passwords"):
        accounts.signup("dana", "password123", address="192.0.2.1", now=NOW)


def test_sign_up_refuses_the_user_name_in_the_password(accounts) -> None:
    with pytest.raises(UsageError, match="contains the user name"):
        accounts.signup("dana", "Dana-is-great-42", address="192.0.2.1", now=NOW)


def test_the_operator_cannot_add_or_reset_to_a_weak_password(accounts) -> None:
    with pytest.raises(UsageError, match="most common passwords"):
        accounts.add("dana", "qwertyuiop", now=NOW)
    accounts.add("dana", PASSWORD, now=NOW)
    with pytest.raises(UsageError, match="contains the user name"):
        accounts.set_password("dana", "dana dana dana")


def test_changing_ones_password_applies_the_policy(accounts) -> None:
    dana = accounts.add("dana", PASSWORD, now=NOW)
    with pytest.raises(UsageError, match="most common passwords"):
        accounts.change_password(
            dana, current=PASSWORD, new="1234567890", address="192.0.2.1", now=NOW
        )
    with pytest.raises(UsageError, match="contains the user name"):
        accounts.change_password(
            dana, current=PASSWORD, new="dana's new password", address="192.0.2.1", now=NOW
        )
    assert accounts.authenticate("dana", PASSWORD, address="192.0.2.1", now=NOW) == dana

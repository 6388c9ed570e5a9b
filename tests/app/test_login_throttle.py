"""Failed logins slow down their address and account with backoff; nobody locks the owner out.

Time is passed in (``now``); no test sleeps. Runs on SQLite, and on PostgreSQL when
SYSDRILL_TEST_POSTGRES_URL is set.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest

from sysdrill.app.accounts import AccountService, open_accounts
from sysdrill.app.login_throttle import (
    ACCOUNT_BACKOFF,
    ADDRESS_BACKOFF,
    PAIR_BACKOFF,
    SIGNUP_BACKOFF,
    THROTTLE_WINDOW,
    Backoff,
)
from sysdrill.errors import LoginFailed, LoginThrottled, SignupThrottled

NOW = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)
PASSWORD = "correct horse battery"
OWNER = "192.0.2.10"
ATTACKER = "198.51.100.66"


@pytest.fixture
def accounts(migrated_db_url: str) -> Iterator[AccountService]:
    with open_accounts(migrated_db_url) as service:
        service.add("alice", PASSWORD, now=NOW)
        yield service


def _try(accounts: AccountService, password: str, *, address: str, now: datetime) -> str | int:
    """'ok', 'wrong', or the seconds a throttled attempt is told to wait."""
    try:
        accounts.authenticate("alice", password, address=address, now=now)
    except LoginThrottled as exc:
        return exc.retry_after_s
    except LoginFailed:
        return "wrong"
    return "ok"


def _fail(accounts: AccountService, times: int, *, address: str, now: datetime) -> datetime:
    """Fail to log in ``times`` times from ``address``, waiting whenever told to; the time after."""
    failed = 0
    while failed < times:
        outcome = _try(accounts, "wrong guess", address=address, now=now)
        if isinstance(outcome, int):
            now += timedelta(seconds=outcome)
        else:
            failed += 1
    return now


def test_backoff_is_free_then_doubles_from_one_second_up_to_its_cap() -> None:
    backoff = Backoff(free=3, cap=timedelta(seconds=10))
    delays = [backoff.delay(count).total_seconds() for count in range(9)]
    assert delays == [0, 0, 0, 1, 2, 4, 8, 10, 10]
    assert backoff.delay(10**9) == timedelta(seconds=10)


def test_the_documented_limits() -> None:
    assert (PAIR_BACKOFF.free, PAIR_BACKOFF.cap) == (5, timedelta(hours=1))
    assert (ACCOUNT_BACKOFF.free, ACCOUNT_BACKOFF.cap) == (10, timedelta(minutes=5))
    assert (ADDRESS_BACKOFF.free, ADDRESS_BACKOFF.cap) == (20, timedelta(minutes=15))
    assert (SIGNUP_BACKOFF.free, SIGNUP_BACKOFF.cap) == (60, timedelta(hours=1))
    assert THROTTLE_WINDOW == timedelta(hours=24)


def test_an_attacker_from_one_address_waits_longer_after_each_failure(accounts) -> None:
    now = NOW
    for _ in range(PAIR_BACKOFF.free):
        assert _try(accounts, "wrong guess", address=ATTACKER, now=now) == "wrong"
    waits = []
    for _ in range(6):
        wait = _try(accounts, "wrong guess", address=ATTACKER, now=now)
        assert isinstance(wait, int)
        waits.append(wait)
        # Asking again before the wait is over changes nothing (and is not counted).
        assert _try(accounts, "wrong guess", address=ATTACKER, now=now) == wait
        now += timedelta(seconds=wait)
        assert _try(accounts, "wrong guess", address=ATTACKER, now=now) == "wrong"
    assert waits == [1, 2, 4, 8, 16, 32]


def test_a_throttled_attempt_is_refused_even_with_the_right_password(accounts) -> None:
    for _ in range(PAIR_BACKOFF.free):
        _try(accounts, "wrong guess", address=ATTACKER, now=NOW)
    with pytest.raises(LoginThrottled) as caught:
        accounts.authenticate("alice", PASSWORD, address=ATTACKER, now=NOW)
    assert str(caught.value) == "Too many failed logins; try again in 1 second."
    assert caught.value.retry_after_s == 1


def test_a_third_party_hammering_from_other_addresses_does_not_keep_the_owner_out(
    accounts,
) -> None:
    outcomes = set()
    for attempt in range(300):
        address = f"203.0.113.{attempt % 50}"
        outcomes.add(type(_try(accounts, "wrong guess", address=address, now=NOW)))
    assert outcomes == {str, int}  # wrong guesses, then the attackers were made to wait
    assert _try(accounts, PASSWORD, address=OWNER, now=NOW) == "ok"


def test_the_owners_typo_during_an_attack_costs_a_bounded_wait(accounts) -> None:
    for attempt in range(300):
        _try(accounts, "wrong guess", address=f"203.0.113.{attempt % 50}", now=NOW)
    assert _try(accounts, "a typo", address=OWNER, now=NOW) == "wrong"
    wait = _try(accounts, PASSWORD, address=OWNER, now=NOW)
    assert wait == ACCOUNT_BACKOFF.cap.total_seconds()
    # The attack goes on; the owner's wait runs from the owner's own failure.
    later = NOW + timedelta(seconds=wait)
    for attempt in range(50):
        _try(accounts, "wrong guess", address=f"203.0.113.{attempt}", now=later)
    assert _try(accounts, PASSWORD, address=OWNER, now=later) == "ok"


def test_one_address_guessing_many_names_is_slowed_for_every_name(accounts) -> None:
    for attempt in range(ADDRESS_BACKOFF.free):
        with pytest.raises(LoginFailed):
            accounts.authenticate(f"guess{attempt}", "wrong guess", address=ATTACKER, now=NOW)
    with pytest.raises(LoginThrottled) as caught:
        accounts.authenticate("alice", PASSWORD, address=ATTACKER, now=NOW)
    assert caught.value.retry_after_s == 1
    assert accounts.authenticate("alice", PASSWORD, address=OWNER, now=NOW).name == "alice"


def test_an_unknown_name_is_slowed_with_the_same_answer_as_a_known_one(accounts) -> None:
    answers = []
    for name in ("alice", "nobody"):
        for _ in range(PAIR_BACKOFF.free):
            with pytest.raises(LoginFailed):
                accounts.authenticate(name, "wrong guess", address=name, now=NOW)
        with pytest.raises(LoginThrottled) as caught:
            accounts.authenticate(name, "wrong guess", address=name, now=NOW)
        answers.append((str(caught.value), caught.value.retry_after_s))
    assert answers[0] == answers[1]


def test_a_successful_login_forgets_the_failures_of_its_name_from_its_address(accounts) -> None:
    for _ in range(PAIR_BACKOFF.free - 1):
        _try(accounts, "a typo", address=OWNER, now=NOW)
    assert _try(accounts, PASSWORD, address=OWNER, now=NOW) == "ok"
    for _ in range(PAIR_BACKOFF.free - 1):
        assert _try(accounts, "a typo", address=OWNER, now=NOW) == "wrong"
    assert _try(accounts, PASSWORD, address=OWNER, now=NOW) == "ok"


def test_failures_older_than_the_window_no_longer_count(accounts) -> None:
    _fail(accounts, PAIR_BACKOFF.free + 3, address=ATTACKER, now=NOW)
    assert isinstance(_try(accounts, PASSWORD, address=ATTACKER, now=NOW), int)
    after = NOW + THROTTLE_WINDOW + timedelta(seconds=1)
    assert _try(accounts, PASSWORD, address=ATTACKER, now=after) == "ok"


def test_a_long_wait_is_told_in_minutes(accounts) -> None:
    now = _fail(accounts, PAIR_BACKOFF.free + 8, address=ATTACKER, now=NOW)
    with pytest.raises(LoginThrottled) as caught:
        accounts.authenticate("alice", PASSWORD, address=ATTACKER, now=now)
    assert caught.value.retry_after_s == 256
    assert str(caught.value) == "Too many failed logins; try again in 5 minutes."


# -- the password-change form is a password check too ----------------------------------


def test_guessing_the_current_password_at_password_change_is_slowed(accounts) -> None:
    alice = accounts.get("alice")
    now = NOW
    for _ in range(PAIR_BACKOFF.free):
        with pytest.raises(LoginFailed, match="The current password is wrong."):
            accounts.change_password(
                alice, current="wrong guess", new="a brand new pass", address=ATTACKER, now=now
            )
    with pytest.raises(LoginThrottled) as caught:
        accounts.change_password(
            alice, current=PASSWORD, new="a brand new pass", address=ATTACKER, now=now
        )
    assert caught.value.retry_after_s == 1
    # The same guesses count against logging in from that address.
    assert _try(accounts, PASSWORD, address=ATTACKER, now=now) == 1
    now += timedelta(seconds=1)
    accounts.change_password(
        alice, current=PASSWORD, new="a brand new pass", address=ATTACKER, now=now
    )
    assert accounts.authenticate("alice", "a brand new pass", address=OWNER, now=now) == alice


# -- sign-up ---------------------------------------------------------------------------


def test_sign_ups_from_one_address_are_slowed_after_the_free_allowance(accounts) -> None:
    for n in range(SIGNUP_BACKOFF.free):
        accounts.signup(f"learner-{n}", PASSWORD, address=ATTACKER, now=NOW)
    with pytest.raises(SignupThrottled) as caught:
        accounts.signup("one-more", PASSWORD, address=ATTACKER, now=NOW)
    assert str(caught.value) == "Too many sign-ups from this address; try again in 1 second."
    assert caught.value.retry_after_s == 1
    assert accounts.signup("one-more", PASSWORD, address=OWNER, now=NOW).name == "one-more"
    later = NOW + timedelta(seconds=1)
    assert accounts.signup("and-another", PASSWORD, address=ATTACKER, now=later).name


def test_wrong_invite_codes_and_taken_names_count_as_sign_ups(accounts) -> None:
    from sysdrill.app.accounts import SignupPolicy
    from sysdrill.errors import AccountExists, SignupRefused

    accounts.set_signup_policy(SignupPolicy.INVITE, invite_code="class-of-2026")
    for n in range(SIGNUP_BACKOFF.free // 2):
        with pytest.raises(SignupRefused):
            accounts.signup(f"n{n}", PASSWORD, invite_code=f"guess-{n}", address=ATTACKER, now=NOW)
    accounts.set_signup_policy(SignupPolicy.OPEN)
    for _ in range(SIGNUP_BACKOFF.free - SIGNUP_BACKOFF.free // 2):
        with pytest.raises(AccountExists):
            accounts.signup("alice", PASSWORD, address=ATTACKER, now=NOW)
    with pytest.raises(SignupThrottled):
        accounts.signup("dana", PASSWORD, address=ATTACKER, now=NOW)

"""Accounts: argon2id hashes, one answer for every failed login, login sessions.

The slowing down of failed logins: test_login_throttle.py; the password policy:
test_password_policy.py.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
import sqlalchemy as sa

from sysdrill.app.accounts import (
    HASH_PARAMETERS,
    LOGIN_FAILED_MESSAGE,
    LOGIN_SESSION_LIFETIME,
    AccountService,
    Role,
    SignupPolicy,
    open_accounts,
)
from sysdrill.errors import (
    AccountExists,
    AccountNotFound,
    LoginFailed,
    MigrationError,
    SignupRefused,
    UsageError,
)
from sysdrill.storage import schema

NOW = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)
PASSWORD = "correct horse battery"


@pytest.fixture
def db_url(migrated_db_url: str) -> str:
    return migrated_db_url


@pytest.fixture
def accounts(db_url: str) -> Iterator[AccountService]:
    with open_accounts(db_url) as service:
        yield service


def _stored_hash(db_url: str, name: str) -> str:
    engine = sa.create_engine(db_url)
    query = (
        sa.select(schema.accounts.c.password_hash)
        .join_from(schema.accounts, schema.users)
        .where(schema.users.c.name == name)
    )
    with engine.connect() as conn:
        found = conn.execute(query).scalar()
    engine.dispose()
    return str(found)


def test_passwords_are_stored_as_argon2id_with_the_documented_parameters(db_url, accounts):
    from argon2 import Type, extract_parameters

    accounts.add("alice", PASSWORD, now=NOW)
    stored = _stored_hash(db_url, "alice")
    assert PASSWORD not in stored
    params = extract_parameters(stored)
    assert params.type is Type.ID
    assert (params.time_cost, params.memory_cost, params.parallelism) == (2, 19456, 1)
    assert (params.hash_len, params.salt_len) == (32, 16)
    assert HASH_PARAMETERS.to_dict() == {
        "algorithm": "argon2id",
        "time_cost": 2,
        "memory_kib": 19456,
        "parallelism": 1,
        "hash_bytes": 32,
        "salt_bytes": 16,
    }


def test_the_dummy_hash_for_unknown_users_costs_what_a_real_one_does(db_url, accounts):
    from argon2 import extract_parameters

    from sysdrill.app import accounts as module

    accounts.add("alice", PASSWORD, now=NOW)
    assert extract_parameters(module._DUMMY_HASH) == extract_parameters(
        _stored_hash(db_url, "alice")
    )


def test_two_accounts_with_one_password_get_different_hashes(db_url, accounts):
    accounts.add("alice", PASSWORD, now=NOW)
    accounts.add("bob", PASSWORD, now=NOW)
    assert _stored_hash(db_url, "alice") != _stored_hash(db_url, "bob")


def test_the_right_password_authenticates_whatever_the_case_of_the_name(accounts):
    accounts.add("Alice", PASSWORD, role=Role.ADMIN, now=NOW)
    found = accounts.authenticate(" ALICE ", PASSWORD, address="10.0.0.1", now=NOW)
    assert (found.name, found.role, found.is_admin) == ("alice", Role.ADMIN, True)


def test_unknown_user_wrong_password_and_disabled_account_get_one_answer(accounts):
    accounts.add("alice", PASSWORD, now=NOW)
    accounts.add("carol", PASSWORD, now=NOW)
    accounts.set_disabled("carol")
    answers = []
    for name, password in (("alice", "wrong password"), ("nobody", PASSWORD), ("carol", PASSWORD)):
        with pytest.raises(LoginFailed) as caught:
            accounts.authenticate(name, password, address="10.0.0.1", now=NOW)
        answers.append(str(caught.value))
    assert answers == [LOGIN_FAILED_MESSAGE] * 3


def test_a_login_session_is_stored_as_the_hash_of_its_token(db_url, accounts):
    alice = accounts.add("alice", PASSWORD, now=NOW)
    login = accounts.login("alice", PASSWORD, address="10.0.0.1", now=NOW)
    assert login.account == alice
    assert login.expires_at == NOW + LOGIN_SESSION_LIFETIME
    assert login.max_age_s == 14 * 24 * 3600
    engine = sa.create_engine(db_url)
    with engine.connect() as conn:
        stored = conn.execute(sa.select(schema.login_sessions.c.token_sha256)).scalars().all()
    engine.dispose()
    assert stored == [hashlib.sha256(login.token.encode()).hexdigest()]
    assert accounts.account_for_token(login.token, now=NOW) == alice


def test_a_login_session_ends_at_expiry_logout_and_disabling(accounts):
    accounts.add("alice", PASSWORD, now=NOW)
    first = accounts.login("alice", PASSWORD, address="a", now=NOW)
    assert accounts.account_for_token(first.token, now=first.expires_at) is None
    accounts.logout(first.token)
    assert accounts.account_for_token(first.token, now=NOW) is None
    second = accounts.login("alice", PASSWORD, address="a", now=NOW)
    accounts.set_disabled("alice")
    assert accounts.account_for_token(second.token, now=NOW) is None
    assert accounts.account_for_token("", now=NOW) is None
    assert accounts.account_for_token("not-a-token", now=NOW) is None


def test_changing_ones_password_ends_the_other_logins_only(accounts):
    alice = accounts.add("alice", PASSWORD, now=NOW)
    here = accounts.login("alice", PASSWORD, address="a", now=NOW)
    elsewhere = accounts.login("alice", PASSWORD, address="b", now=NOW)
    with pytest.raises(LoginFailed, match="The current password is wrong."):
        accounts.change_password(
            alice, current="nope nope nope", new="another password", address="a", now=NOW
        )
    accounts.change_password(
        alice,
        current=PASSWORD,
        new="another password",
        keep_token=here.token,
        address="a",
        now=NOW,
    )
    assert accounts.account_for_token(here.token, now=NOW) == alice
    assert accounts.account_for_token(elsewhere.token, now=NOW) is None
    assert accounts.authenticate("alice", "another password", address="a", now=NOW) == alice


def test_the_operator_sets_a_password_and_every_login_ends(accounts):
    accounts.add("alice", PASSWORD, now=NOW)
    login = accounts.login("alice", PASSWORD, address="a", now=NOW)
    accounts.set_password("alice", "a brand new one")
    assert accounts.account_for_token(login.token, now=NOW) is None
    with pytest.raises(LoginFailed):
        accounts.authenticate("alice", PASSWORD, address="a", now=NOW)
    assert accounts.authenticate("alice", "a brand new one", address="a", now=NOW).name == "alice"


def test_make_admin_disable_and_list(accounts):
    accounts.add("bob", PASSWORD, now=NOW)
    accounts.add("alice", PASSWORD, now=NOW)
    assert accounts.set_role("bob", Role.ADMIN).role is Role.ADMIN
    assert accounts.set_disabled("alice").disabled is True
    assert accounts.set_disabled("alice", False).disabled is False
    assert [(a.name, a.role.value) for a in accounts.list_accounts()] == [
        ("alice", "learner"),
        ("bob", "admin"),
    ]
    assert accounts.get("bob").to_dict() == {
        "name": "bob",
        "role": "admin",
        "disabled": False,
        "created_at": "2026-11-25T12:00:00+00:00",
    }


def test_unknown_accounts_and_taken_names_are_errors_that_name_the_fix(accounts):
    accounts.add("alice", PASSWORD, now=NOW)
    with pytest.raises(AccountExists, match="The user name 'alice' is taken; choose another."):
        accounts.add("ALICE", PASSWORD, now=NOW)
    with pytest.raises(AccountNotFound, match="`sysdrill users list` shows the accounts"):
        accounts.set_disabled("nobody")


@pytest.mark.parametrize("name", ["a", "-dash", "has space", "x" * 41, "émile", "a/b"])
def test_names_outside_the_rules_are_refused(accounts, name):
    with pytest.raises(UsageError, match="is not allowed"):
        accounts.add(name, PASSWORD, now=NOW)


def test_short_and_huge_passwords_are_refused(accounts):
    with pytest.raises(UsageError, match="at least 10 characters"):
        accounts.add("alice", "short", now=NOW)
    with pytest.raises(UsageError, match="at most 1024 characters"):
        accounts.add("alice", "x" * 1025, now=NOW)


def test_sign_up_is_open_by_default_and_refuses_reserved_names(accounts):
    assert accounts.signup_settings().to_dict() == {"policy": "open", "has_invite_code": False}
    assert accounts.signup("dana", PASSWORD, address="a", now=NOW).role is Role.LEARNER
    with pytest.raises(UsageError, match="The user name 'Local' is reserved"):
        accounts.signup("Local", PASSWORD, address="a", now=NOW)


def test_closed_sign_up_refuses_everyone(accounts):
    accounts.set_signup_policy(SignupPolicy.CLOSED)
    with pytest.raises(SignupRefused, match="Sign-up is closed on this server"):
        accounts.signup("dana", PASSWORD, address="a", now=NOW)


def test_invite_only_sign_up_needs_the_code(accounts):
    with pytest.raises(UsageError, match="at least 8 characters"):
        accounts.set_signup_policy(SignupPolicy.INVITE, invite_code="short")
    settings = accounts.set_signup_policy(SignupPolicy.INVITE, invite_code="class-of-2026")
    assert settings.to_dict() == {"policy": "invite", "has_invite_code": True}
    with pytest.raises(SignupRefused, match="The invite code is wrong"):
        accounts.signup("dana", PASSWORD, invite_code="class-of-2025", address="a", now=NOW)
    assert (
        accounts.signup("dana", PASSWORD, invite_code=" class-of-2026 ", address="a", now=NOW).name
        == "dana"
    )


def test_a_weaker_stored_hash_is_upgraded_at_the_next_login(db_url, accounts):
    from argon2 import PasswordHasher, extract_parameters

    alice = accounts.add("alice", PASSWORD, now=NOW)
    weak = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1).hash(PASSWORD)
    engine = sa.create_engine(db_url)
    with engine.begin() as conn:
        conn.execute(
            schema.accounts.update()
            .where(schema.accounts.c.user_id == alice.user_id)
            .values(password_hash=weak)
        )
    engine.dispose()
    accounts.authenticate("alice", PASSWORD, address="a", now=NOW)
    assert extract_parameters(_stored_hash(db_url, "alice")).memory_cost == 19456


def test_an_account_for_a_learner_who_already_studied_keeps_their_history(db_url: str) -> None:
    from sysdrill.app.study import open_study

    with open_study(db_url, vault=None) as study:
        local_id = study.user_id
    with open_accounts(db_url) as accounts:
        assert accounts.add("local", PASSWORD, now=NOW).user_id == local_id


def test_naive_times_are_refused(accounts):
    accounts.add("alice", PASSWORD, now=NOW)
    with pytest.raises(ValueError, match="timezone-aware UTC"):
        accounts.authenticate("alice", PASSWORD, address="a", now=datetime(2026, 11, 25))


def test_an_unmigrated_database_names_the_upgrade_command(tmp_path):
    with pytest.raises(MigrationError, match="run `sysdrill db upgrade`"):
        with open_accounts(f"sqlite:///{tmp_path / 'blank.sqlite3'}"):
            pass


def test_simultaneous_sign_ups_of_one_name_create_one_account(db_url: str) -> None:
    from concurrent.futures import ThreadPoolExecutor

    def sign_up(attempt: int) -> str:
        with open_accounts(db_url) as accounts:
            try:
                accounts.signup("same-name", f"{PASSWORD} {attempt}", address="a", now=NOW)
            except AccountExists:
                return "taken"
            return "created"

    with ThreadPoolExecutor(max_workers=4) as pool:
        outcomes = sorted(pool.map(sign_up, range(4)))
    assert outcomes == ["created", "taken", "taken", "taken"]
    with open_accounts(db_url) as accounts:
        assert [a.name for a in accounts.list_accounts()] == ["same-name"]

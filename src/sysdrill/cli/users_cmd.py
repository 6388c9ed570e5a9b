"""``sysdrill users``: the operator's accounts of the multi-user web app.

Passwords are read from a hidden prompt (typed twice) or, for scripts, from the
first line of standard input with ``--password-stdin``; never from the command
line, where other users of the machine and the shell history would see them.
"""

from __future__ import annotations

import sys
from datetime import UTC, datetime
from typing import Annotated

import typer

from sysdrill.cli.study_cmds import DbOption

__all__ = ["register"]

StdinOption = Annotated[
    bool,
    typer.Option(
        "--password-stdin",
        help="Read the password from the first line of standard input instead of a prompt.",
    ),
]
NameArgument = Annotated[str, typer.Argument(help="The account's user name.")]


def _now() -> datetime:
    return datetime.now(UTC)


def _read_secret(from_stdin: bool, *, what: str = "Password") -> str:
    if from_stdin:
        line = sys.stdin.readline()
        secret = line.rstrip("\r\n")
        if not secret:
            raise typer.BadParameter(f"{what.lower()} expected on standard input, got nothing")
        return secret
    secret = typer.prompt(what, hide_input=True, confirmation_prompt=True)
    return str(secret)


def register(app: typer.Typer) -> None:
    """Add the ``users`` command group to the app."""
    users_app = typer.Typer(
        help="Manage the accounts of the multi-user web app (sysdrill serve --multi-user).",
        no_args_is_help=True,
    )
    app.add_typer(users_app, name="users")

    @users_app.command("add")
    def add_cmd(
        name: NameArgument,
        admin: Annotated[
            bool, typer.Option("--admin", help="Give the account the admin role.")
        ] = False,
        password_stdin: StdinOption = False,
        db: DbOption = None,
    ) -> None:
        """Create an account (whatever the sign-up policy); the first one is usually --admin."""
        from sysdrill.app.accounts import Role, open_cli_accounts

        with open_cli_accounts(db) as accounts:
            # Refuse a bad or taken name before asking for a password nobody will use.
            accounts.check_name_available(name)
            password = _read_secret(password_stdin)
            role = Role.ADMIN if admin else Role.LEARNER
            account = accounts.add(name, password, role=role, now=_now())
        typer.echo(f"Created {account.role.value} account {account.name!r}.")

    @users_app.command("list")
    def list_cmd(
        as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
        db: DbOption = None,
    ) -> None:
        """List the accounts with their role and whether they are disabled."""
        import json

        from sysdrill.app.accounts import open_cli_accounts

        with open_cli_accounts(db) as accounts:
            found = accounts.list_accounts()
            signup = accounts.signup_settings()
        if as_json:
            payload = {
                "accounts": [a.to_dict() for a in found],
                "signup": signup.to_dict(),
            }
            typer.echo(json.dumps(payload, indent=2))
            return
        if not found:
            typer.echo(
                "No accounts yet; create the first admin with `sysdrill users add NAME --admin`."
            )
        for account in found:
            state = "  (disabled)" if account.disabled else ""
            created = account.created_at.date().isoformat()
            typer.echo(f"{account.name:<24} {account.role.value:<8} since {created}{state}")
        typer.echo(f"Sign-up: {signup.policy.value}")

    @users_app.command("disable")
    def disable_cmd(
        name: NameArgument,
        enable: Annotated[
            bool, typer.Option("--enable", help="Enable the account again instead.")
        ] = False,
        db: DbOption = None,
    ) -> None:
        """Disable an account (it is logged out and cannot log in; its history is kept)."""
        from sysdrill.app.accounts import open_cli_accounts

        with open_cli_accounts(db) as accounts:
            account = accounts.set_disabled(name, not enable)
        typer.echo(f"{'Enabled' if enable else 'Disabled'} account {account.name!r}.")

    @users_app.command("set-password")
    def set_password_cmd(
        name: NameArgument, password_stdin: StdinOption = False, db: DbOption = None
    ) -> None:
        """Give an account a new password (it is logged out everywhere)."""
        from sysdrill.app.accounts import open_cli_accounts

        with open_cli_accounts(db) as accounts:
            accounts.get(name)
            password = _read_secret(password_stdin)
            account = accounts.set_password(name, password)
        typer.echo(f"Changed the password of {account.name!r}.")

    @users_app.command("make-admin")
    def make_admin_cmd(
        name: NameArgument,
        learner: Annotated[
            bool, typer.Option("--learner", help="Take the admin role away instead.")
        ] = False,
        db: DbOption = None,
    ) -> None:
        """Give an account the admin role (imports content, manages users, reads reports)."""
        from sysdrill.app.accounts import Role, open_cli_accounts

        with open_cli_accounts(db) as accounts:
            account = accounts.set_role(name, Role.LEARNER if learner else Role.ADMIN)
        typer.echo(
            f"{account.name!r} is now {'an' if account.is_admin else 'a'} {account.role.value}."
        )

    @users_app.command("signup")
    def signup_cmd(
        policy: Annotated[
            str,
            typer.Argument(help="open (anyone), invite (needs the invite code) or closed."),
        ],
        code_stdin: Annotated[
            bool,
            typer.Option(
                "--invite-code-stdin",
                help="Read the invite code from standard input instead of a prompt.",
            ),
        ] = False,
        db: DbOption = None,
    ) -> None:
        """Set who may create an account on the sign-up page."""
        from sysdrill.app.accounts import SignupPolicy, open_cli_accounts

        try:
            chosen = SignupPolicy(policy.strip().lower())
        except ValueError:
            raise typer.BadParameter(
                f"use open, invite or closed, not {policy!r}", param_hint="POLICY"
            ) from None
        code = _read_secret(code_stdin, what="Invite code") if chosen is SignupPolicy.INVITE else ""
        with open_cli_accounts(db) as accounts:
            settings = accounts.set_signup_policy(chosen, invite_code=code)
        typer.echo(f"Sign-up is now {settings.policy.value}.")

"""The ``sysdrill`` command: one Typer app, one error handler.

Each command module exposes ``register(app)``; modules import heavy libraries
inside their command functions so that ``sysdrill --help`` stays fast.
Any :class:`~sysdrill.errors.SysdrillError`, and any operating-system error (a
folder that cannot be written, a path under a file), becomes one ``Error: <message>``
line on stderr and exit code 1; usage mistakes exit 2; Ctrl-C exits 130; a reader
that stops reading (``sysdrill stats | head``) ends the command with 0.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Sequence

import typer

from sysdrill import __version__
from sysdrill.cli.help_words import plain_help
from sysdrill.errors import SysdrillError

__all__ = ["COMMAND_MODULES", "build_app", "main"]

COMMAND_MODULES: tuple[str, ...] = (
    "sysdrill.cli.init_cmd",
    "sysdrill.cli.check_cmd",
    "sysdrill.cli.vault_cmds",
    "sysdrill.cli.napkin_cmd",
    "sysdrill.cli.calc_cmd",
    "sysdrill.cli.hw_cmd",
    "sysdrill.cli.study_cmds",
    "sysdrill.cli.session_cmds",
    "sysdrill.cli.item_cmds",
    "sysdrill.cli.interview_cmd",
    "sysdrill.cli.plan_cmd",
    "sysdrill.cli.db_cmd",
    "sysdrill.cli.users_cmd",
    "sysdrill.cli.import_cmd",
    "sysdrill.cli.export_cmd",
    "sysdrill.cli.serve_cmd",
    "sysdrill.cli.reports_cmd",
)
"""Modules whose ``register(app)`` adds commands, in the order help lists them."""


def _version(value: bool) -> None:
    if value:
        typer.echo(f"sysdrill {__version__}")
        raise typer.Exit()


def build_app() -> typer.Typer:
    """Create the Typer app with every command registered."""
    app = typer.Typer(
        name="sysdrill",
        help=(
            "Drill ML-systems interview questions: check a question vault, verify "
            "napkin math, and practise with spaced repetition."
        ),
        no_args_is_help=True,
        pretty_exceptions_enable=False,
        add_completion=True,
        rich_markup_mode="rich",
    )

    @app.callback()
    def _root(
        version: bool = typer.Option(
            False, "--version", callback=_version, is_eager=True, help="Show the version."
        ),
        debug: bool = typer.Option(
            False, "--debug", help="Show a traceback instead of a one-line error."
        ),
    ) -> None:
        if debug:
            os.environ["SYSDRILL_DEBUG"] = "1"

    for name in COMMAND_MODULES:
        importlib.import_module(name).register(app)
    return app


def _is_usage_error(exc: BaseException) -> bool:
    """Whether ``exc`` is one of Click's errors that print themselves (usage mistakes).

    Typer vendors Click in newer releases and re-exports none of its exception
    base classes, so they are recognised by the interface they share in every
    Typer release rather than by a private import path.
    """
    return callable(getattr(exc, "show", None)) and isinstance(getattr(exc, "exit_code", None), int)


def _name_the_range(exc: BaseException) -> None:
    """Say the whole allowed range when a bounded number is refused.

    Typer names only the bound a value crossed (``Input should be less than or equal
    to 100000``) or only the type (``Input should be a valid integer``); the learner
    is better served by both ends, so every bounded option answers the same way.
    """
    param = getattr(exc, "param", None)
    low, high = getattr(param, "min", None), getattr(param, "max", None)
    message = getattr(exc, "message", None)
    if low is None or high is None or not isinstance(message, str):
        return
    if message.startswith("Input should be "):
        number = "a whole number" if isinstance(low, int) and isinstance(high, int) else "a number"
        exc.message = f"Input should be {number} from {low} to {high}."  # type: ignore[attr-defined]


def _os_message(exc: OSError) -> str:
    """One line for an operating-system error: the path, what went wrong, the fix."""
    what = (exc.strerror or str(exc)).rstrip(".").lower()
    if exc.filename is None:
        return f"{what}; check the paths you passed and their permissions"
    return f"{exc.filename}: {what}; check that the path exists and that you may write there"


def _silence_stdout() -> None:
    """Point stdout at the null device, so the interpreter's last flush cannot fail."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # no real descriptor (captured output in tests)
        pass


def main(argv: Sequence[str] | None = None, *, app: typer.Typer | None = None) -> int:
    """Run the CLI and return its exit code.

    Args:
        argv: Arguments without the program name; ``sys.argv[1:]`` when None.
        app: The Typer app to run; the full ``sysdrill`` app when None.

    Returns:
        0 on success, 1 on a :class:`SysdrillError`, 2 on misuse, 130 on Ctrl-C.
    """
    args = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in args
    command = plain_help(typer.main.get_command(app or build_app()))
    try:
        result = command.main(args=args, prog_name="sysdrill", standalone_mode=False)
    except typer.Exit as exc:
        return int(exc.exit_code)
    except (typer.Abort, KeyboardInterrupt):
        typer.echo("Aborted.", err=True)
        return 130
    except SysdrillError as exc:
        if debug:
            raise
        typer.echo(f"Error: {exc}", err=True)
        return 1
    except BrokenPipeError:
        _silence_stdout()
        return 0
    except OSError as exc:
        if debug:
            raise
        typer.echo(f"Error: {_os_message(exc)}", err=True)
        return 1
    except Exception as exc:
        if not _is_usage_error(exc):
            raise
        # Usage mistakes (unknown options, bad values): click's own message, exit 2.
        _name_the_range(exc)
        exc.show()  # type: ignore[attr-defined]
        return int(exc.exit_code)  # type: ignore[attr-defined]
    finally:
        os.environ.pop("SYSDRILL_DEBUG", None)
    return result if isinstance(result, int) else 0

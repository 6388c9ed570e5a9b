"""The CLI shell: exit codes, the one error line, help and version."""

from __future__ import annotations

import subprocess
import sys

import pytest
import typer
from typer.testing import CliRunner

from sysdrill import __version__
from sysdrill.cli.app import COMMAND_MODULES, build_app, main
from sysdrill.errors import DeckNotFound


def _app_raising(exc: BaseException) -> typer.Typer:
    app = typer.Typer()

    @app.command()
    def boom() -> None:
        raise exc

    @app.command()
    def ok() -> None:
        typer.echo("fine")

    return app


def _run(app: typer.Typer, *args: str) -> tuple[int, str, str]:
    runner = CliRunner()
    with runner.isolation() as (out, err, _):
        code = main(list(args), app=app)
        sys.stdout.flush()
        sys.stderr.flush()
        return code, out.getvalue().decode(), err.getvalue().decode()


def test_sysdrill_error_becomes_one_error_line_and_exit_1():
    app = _app_raising(DeckNotFound("no deck named 'gpu'; run 'sysdrill stats' to list decks"))
    code, out, err = _run(app, "boom")
    assert code == 1
    assert out == ""
    assert err == "Error: no deck named 'gpu'; run 'sysdrill stats' to list decks\n"


def test_keyboard_interrupt_exits_130():
    code, out, _ = _run(_app_raising(KeyboardInterrupt()), "boom")
    assert code == 130
    assert out == ""


def test_bad_parameter_is_a_usage_error_exit_2():
    code, _, err = _run(_app_raising(typer.BadParameter("must be positive")), "boom")
    assert code == 2
    assert "must be positive" in err


def test_unknown_command_exits_2(run_cli):
    result = run_cli("no-such-command")
    assert result.exit_code == 2
    assert "No such command" in result.stderr


def test_debug_flag_shows_the_traceback_instead():
    app = _app_raising(DeckNotFound("missing"))

    @app.callback()
    def _root(debug: bool = typer.Option(False, "--debug")) -> None:
        """Root options."""

    runner = CliRunner()
    with runner.isolation(), pytest.raises(DeckNotFound):
        main(["--debug", "boom"], app=app)


def test_success_exits_0():
    code, out, _ = _run(_app_raising(RuntimeError()), "ok")
    assert (code, out) == (0, "fine\n")


def test_version_prints_the_package_version(run_cli):
    result = run_cli("--version")
    assert result.exit_code == 0
    assert result.stdout == f"sysdrill {__version__}\n"


def test_help_lists_every_registered_command(run_cli):
    result = run_cli("--help")
    assert result.exit_code == 0
    command = typer.main.get_command(build_app())
    assert command.commands  # type: ignore[attr-defined]
    for name in command.commands:  # type: ignore[attr-defined]
        assert name in result.stdout


def test_every_command_module_registers(run_cli):
    assert len(COMMAND_MODULES) == len(set(COMMAND_MODULES))
    build_app()


def test_help_does_not_import_heavy_libraries():
    # `sysdrill --help` must start fast: the heavy libraries load inside commands.
    code = (
        "import sys; from sysdrill.cli.app import build_app; build_app(); "
        "heavy = [m for m in ('pint', 'sqlalchemy', 'genanki', 'textual', 'fsrs', 'fastapi') "
        "if m in sys.modules]; print(','.join(heavy))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == ""


def test_python_dash_m_runs_the_cli():
    proc = subprocess.run(
        [sys.executable, "-m", "sysdrill", "--version"], capture_output=True, text=True
    )
    assert proc.returncode == 0
    assert proc.stdout.strip() == f"sysdrill {__version__}"

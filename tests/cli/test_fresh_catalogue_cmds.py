"""Commands over a fresh catalogue parse no item file (issue 30's guard)."""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

import pytest

import sysdrill.content.compile as compile_module
import sysdrill.content.loader as loader
from sysdrill.content.sample import sample_vault_path

HOUR_AGO = time.time() - 3600


@pytest.fixture(autouse=True)
def _no_database_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SYSDRILL_DATABASE_URL", raising=False)


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    """A copy of the sample vault whose files and folders are an hour old.

    A catalogue trusts a folder's time only when it lies well before the catalogue
    was written (a vault written just now is looked at file by file instead).
    """
    target = tmp_path / "vault"
    shutil.copytree(sample_vault_path(), target)
    for folder, _, files in os.walk(target, topdown=False):
        for name in files:
            os.utime(Path(folder) / name, (HOUR_AGO, HOUR_AGO))
        os.utime(folder, (HOUR_AGO, HOUR_AGO))
    return target


@pytest.fixture
def db_url(tmp_path: Path) -> str:
    from sysdrill.app.study import upgrade_study_database

    url = f"sqlite:///{tmp_path / 'study.sqlite3'}"
    upgrade_study_database(url)
    return url


def _refuse_item_files(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make every road to an item's content fail: the YAML reader, validation, compiling."""

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"an item file was parsed: {args[1:2]}")

    monkeypatch.setattr(loader, "parse_text", refuse)
    monkeypatch.setattr(loader, "validate_item", refuse)
    monkeypatch.setattr(compile_module, "parse_yaml", refuse)


def _report(text: str) -> dict[str, object]:
    data = json.loads(text)
    data.pop("generated_at")
    return data


def test_progress_and_stats_parse_no_item_file_when_the_catalogue_is_fresh(
    run_cli, vault: Path, db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    progress = ("progress", "--json", "--vault", str(vault), "--db", db_url)
    stats = ("stats", "--json", "--vault", str(vault))
    first_progress, first_stats = run_cli(*progress), run_cli(*stats)
    assert (first_progress.exit_code, first_stats.exit_code) == (0, 0), first_progress.stderr
    _refuse_item_files(monkeypatch)
    again_progress, again_stats = run_cli(*progress), run_cli(*stats)
    assert (again_progress.exit_code, again_stats.exit_code) == (0, 0), (
        again_progress.stderr + again_stats.stderr
    )
    assert _report(again_progress.stdout) == _report(first_progress.stdout)
    assert _report(again_progress.stdout)["items_total"] == 12
    assert json.loads(again_stats.stdout) == json.loads(first_stats.stdout)


def test_workload_parses_no_item_file_when_the_catalogue_is_fresh(
    run_cli, vault: Path, db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert run_cli("settings", "set", "deadline", "2099-01-31", "--db", db_url).exit_code == 0
    workload = ("workload", "--json", "--vault", str(vault), "--db", db_url)
    first = run_cli(*workload)
    assert first.exit_code == 0, first.stderr
    _refuse_item_files(monkeypatch)
    again = run_cli(*workload)
    assert again.exit_code == 0, again.stderr
    assert again.stdout == first.stdout


def test_stats_counts_what_loads_and_warns_of_the_rest(run_cli, vault: Path) -> None:
    (vault / "questions" / "broken.yaml").write_text("id: [unclosed\n", encoding="utf-8")
    result = run_cli("stats", "--json", "--vault", str(vault))
    assert result.exit_code == 0
    assert json.loads(result.stdout)["total"] == 12
    assert result.stderr.startswith("Warning: 1 item file(s) did not load and are not counted")


def test_show_and_stats_refuse_a_vault_and_a_database_together(run_cli, vault: Path) -> None:
    for command in (("show", "cloud-0101"), ("stats",)):
        result = run_cli(*command, "--vault", str(vault), "--db", "x.db")
        assert result.exit_code == 2
        assert "give --vault or --db, not both" in result.stderr


def test_plan_list_show_and_stop_parse_no_item_file_without_an_active_plan(
    run_cli, vault: Path, db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert run_cli("stats", "--vault", str(vault)).exit_code == 0  # builds the catalogue
    listed = run_cli("plan", "list", "--json", "--vault", str(vault))
    assert listed.exit_code == 0, listed.stderr
    _refuse_item_files(monkeypatch)

    again = run_cli("plan", "list", "--json", "--vault", str(vault))
    shown = run_cli("plan", "show", "--vault", str(vault), "--db", db_url)
    stopped = run_cli("plan", "stop", "--vault", str(vault), "--db", db_url)

    assert again.exit_code == 0 and again.stdout == listed.stdout, again.stderr
    assert shown.exit_code == 0, shown.stderr
    assert shown.stdout.startswith("No plan is active.")
    assert stopped.exit_code == 1
    assert stopped.stderr.strip() == (
        "Error: No plan is active. Start one with `sysdrill plan start NAME`."
    )


def _large_vault(tmp_path: Path, count: int) -> Path:
    """A vault of ``count`` copies of one sample item, each with its own id."""
    target = tmp_path / "large"
    shutil.copytree(sample_vault_path(), target, ignore=shutil.ignore_patterns("questions"))
    source = (sample_vault_path() / "questions/cloud/cloud-0101.yaml").read_text("utf-8")
    folder = target / "questions" / "cloud"
    folder.mkdir(parents=True)
    for n in range(count):
        item_id = f"cloud-{9000 + n}"
        text = source.replace("id: cloud-0101", f"id: {item_id}")
        (folder / f"{item_id}.yaml").write_text(text, "utf-8")
    return target


def test_a_first_catalogue_build_draws_a_bar_on_a_terminal_and_quiet_draws_none(
    run_cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import io

    from rich.console import Console

    import sysdrill.cli.console as console_module

    large = _large_vault(tmp_path, 600)
    drawn = io.StringIO()

    def terminal() -> Console:
        return Console(file=drawn, force_terminal=True, width=100, color_system=None)

    monkeypatch.setattr(console_module, "err_console", terminal)
    quiet = run_cli("stats", "--json", "--quiet", "--vault", str(large))
    assert quiet.exit_code == 0, quiet.stderr
    assert drawn.getvalue() == ""
    shutil.rmtree(tmp_path / "cache")

    shown = run_cli("stats", "--json", "--vault", str(large))

    assert shown.exit_code == 0, shown.stderr
    assert "Reading item files" in drawn.getvalue()
    assert "600/600" in drawn.getvalue()
    assert json.loads(shown.stdout)["total"] == 600
    assert shown.stdout == quiet.stdout.replace(
        json.loads(quiet.stdout)["built_at"], json.loads(shown.stdout)["built_at"]
    )

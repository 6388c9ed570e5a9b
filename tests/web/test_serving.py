"""The server's settings as environment variables, and the app factory workers use."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from sysdrill.errors import StorageUnavailable, UsageError
from sysdrill.storage.engine import upgrade_database
from sysdrill.web import serving
from sysdrill.web.serving import ServerSettings, app_from_environment, refuse_unsafe_setup


def test_settings_survive_the_trip_through_the_environment(tmp_path: Path) -> None:
    settings = ServerSettings(
        db_url="postgresql+psycopg://learner@db/sysdrill",
        vault=tmp_path,
        multi_user=True,
        threads=3,
        pin_cpus=True,
    )
    assert ServerSettings.from_environment(settings.to_environment()) == settings


def test_unset_variables_mean_the_default_database_the_starter_vault_and_one_learner(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SYSDRILL_DATA_DIR", str(tmp_path))
    monkeypatch.delenv("SYSDRILL_DATABASE_URL", raising=False)
    found = ServerSettings.from_environment({})
    assert found == ServerSettings(db_url=f"sqlite:///{tmp_path / 'study.sqlite3'}")


@pytest.mark.parametrize(("flag", "multi_user"), [("yes", True), ("ON", True), ("0", False)])
def test_the_multi_user_flag_reads_yes_and_no_words(flag: str, multi_user: bool) -> None:
    environ = {"SYSDRILL_DATABASE_URL": "sqlite:///s.sqlite3", "SYSDRILL_MULTI_USER": flag}
    assert ServerSettings.from_environment(environ).multi_user is multi_user


def test_an_unreadable_multi_user_flag_names_the_values_it_takes() -> None:
    environ = {"SYSDRILL_DATABASE_URL": "sqlite:///s.sqlite3", "SYSDRILL_MULTI_USER": "maybe"}
    with pytest.raises(UsageError, match=r"SYSDRILL_MULTI_USER='maybe' is neither yes nor no"):
        ServerSettings.from_environment(environ)


def test_threads_come_from_the_environment_and_default_to_two() -> None:
    environ = {"SYSDRILL_DATABASE_URL": "sqlite:///s.sqlite3"}
    assert ServerSettings.from_environment(environ).threads == 2
    environ["SYSDRILL_THREADS"] = "6"
    assert ServerSettings.from_environment(environ).threads == 6


@pytest.mark.parametrize("threads", ["0", "17", "lots"])
def test_an_unreadable_thread_count_names_the_range_it_takes(threads: str) -> None:
    environ = {"SYSDRILL_DATABASE_URL": "sqlite:///s.sqlite3", "SYSDRILL_THREADS": threads}
    with pytest.raises(UsageError, match=r"set a whole number from 1 to 16"):
        ServerSettings.from_environment(environ)


def test_an_in_memory_database_is_refused_for_a_server() -> None:
    with pytest.raises(StorageUnavailable, match="keeps nothing"):
        ServerSettings.from_environment({"SYSDRILL_DATABASE_URL": "sqlite://"})


@pytest.mark.parametrize(
    ("url", "multi_user", "workers", "refused"),
    [
        ("sqlite:///s.sqlite3", True, 2, True),
        ("sqlite+pysqlite:///s.sqlite3", True, 4, True),
        ("sqlite:///s.sqlite3", True, 1, False),
        ("sqlite:///s.sqlite3", False, 2, False),
        ("postgresql+psycopg://u@h/db", True, 2, False),
    ],
)
def test_only_multi_user_sqlite_on_several_workers_is_refused(
    url: str, multi_user: bool, workers: int, refused: bool
) -> None:
    settings = ServerSettings(db_url=url, multi_user=multi_user)
    if refused:
        with pytest.raises(UsageError, match="needs PostgreSQL"):
            refuse_unsafe_setup(settings, workers=workers)
    else:
        refuse_unsafe_setup(settings, workers=workers)


def test_the_factory_builds_an_app_serving_the_vault_and_database_of_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from sysdrill.content.sample import sample_vault_path

    db_url = f"sqlite:///{tmp_path / 'study.sqlite3'}"
    upgrade_database(db_url)
    monkeypatch.setenv("SYSDRILL_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("SYSDRILL_DATA_DIR", str(tmp_path / "data"))
    environ = ServerSettings(db_url=db_url, vault=sample_vault_path()).to_environment()
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    with TestClient(app_from_environment(), base_url="http://localhost") as client:
        sample = client.get("/api/dashboard").json()
    from sysdrill.content.loader import load_vault

    expected = len(load_vault(sample_vault_path(), cache_dir=tmp_path / "cache").items)
    assert sample["items_total"] == expected
    assert sample["reviews_total"] == 0


def test_the_factory_passes_the_modes_to_create_app(monkeypatch: pytest.MonkeyPatch) -> None:
    import sysdrill.web.app as web_app

    built: dict[str, Any] = {}

    def create_app(
        *,
        vault: Any,
        db_url: str,
        multi_user: bool = False,
        behind_proxy: bool = False,
        threads: int = 4,
        allowed_hosts: Any = (),
    ) -> str:
        built.update(
            vault=vault,
            db_url=db_url,
            multi_user=multi_user,
            behind_proxy=behind_proxy,
        )
        return "the app"

    monkeypatch.setattr(web_app, "create_app", create_app)
    monkeypatch.setenv("SYSDRILL_DATABASE_URL", "postgresql+psycopg://u@h/db")
    monkeypatch.setenv("SYSDRILL_MULTI_USER", "1")
    monkeypatch.setenv("SYSDRILL_BEHIND_PROXY", "yes")
    monkeypatch.delenv("SYSDRILL_VAULT", raising=False)
    assert serving.app_from_environment() == "the app"  # type: ignore[comparison-overlap]
    assert built == {
        "vault": None,
        "db_url": "postgresql+psycopg://u@h/db",
        "multi_user": True,
        "behind_proxy": True,
    }


@pytest.mark.parametrize(("flag", "kept"), [("1", True), ("0", False)])
def test_a_worker_keeps_to_a_cpu_only_when_told_to(
    monkeypatch: pytest.MonkeyPatch, flag: str, kept: bool
) -> None:
    import sysdrill.web.app as web_app
    import sysdrill.web.worker_cpus as worker_cpus

    calls: list[str] = []
    monkeypatch.setattr(worker_cpus, "keep_to_a_cpu", lambda: calls.append("kept") or 0)
    monkeypatch.setattr(web_app, "create_app", lambda **settings: "the app")
    monkeypatch.setenv("SYSDRILL_DATABASE_URL", "postgresql+psycopg://u@h/db")
    monkeypatch.setenv("SYSDRILL_PIN_CPUS", flag)
    assert serving.app_from_environment() == "the app"  # type: ignore[comparison-overlap]
    assert calls == (["kept"] if kept else [])


def test_a_bad_pin_cpus_variable_is_refused_with_the_fix(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SYSDRILL_PIN_CPUS", "sometimes")
    with pytest.raises(UsageError, match="SYSDRILL_PIN_CPUS='sometimes' is neither yes nor no"):
        serving.ServerSettings.from_environment(dict(os.environ))


def test_a_bad_behind_proxy_variable_is_refused_with_the_fix(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("SYSDRILL_BEHIND_PROXY", "maybe")
    with pytest.raises(UsageError, match="SYSDRILL_BEHIND_PROXY='maybe' is neither yes nor no"):
        serving.ServerSettings.from_environment(dict(os.environ))

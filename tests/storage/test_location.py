from __future__ import annotations

from pathlib import Path

from sysdrill.storage.location import data_dir, default_database_url


def test_data_dir_defaults_to_the_platform_user_data_folder(monkeypatch):
    monkeypatch.delenv("SYSDRILL_DATA_DIR", raising=False)
    from platformdirs import user_data_dir

    assert data_dir() == Path(user_data_dir("sysdrill", appauthor=False))


def test_data_dir_variable_overrides_the_default(monkeypatch, tmp_path):
    monkeypatch.setenv("SYSDRILL_DATA_DIR", str(tmp_path))
    assert data_dir() == tmp_path


def test_database_url_prefers_the_variable(monkeypatch, tmp_path):
    monkeypatch.setenv("SYSDRILL_DATA_DIR", str(tmp_path))
    monkeypatch.delenv("SYSDRILL_DATABASE_URL", raising=False)
    assert default_database_url() == f"sqlite:///{tmp_path / 'study.sqlite3'}"
    monkeypatch.setenv("SYSDRILL_DATABASE_URL", "postgresql+psycopg://me@db/study")
    assert default_database_url() == "postgresql+psycopg://me@db/study"

"""Server secrets: made once per database, then the same for every reader."""

from __future__ import annotations

import threading
from datetime import UTC, datetime

import pytest

from sysdrill.errors import MigrationError
from sysdrill.storage.server_secrets import load_or_create_secret

NOW = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)


def test_the_first_reader_makes_the_secret_and_later_ones_read_it(sql_url: str) -> None:
    made: list[str] = []

    def make() -> str:
        made.append(f"secret-{len(made)}")
        return made[-1]

    first = load_or_create_secret(sql_url, "csrf", make=make, now=NOW)
    again = load_or_create_secret(sql_url, "csrf", make=make, now=NOW)
    assert (first, again, made) == ("secret-0", "secret-0", ["secret-0"])
    assert load_or_create_secret(sql_url, "other", make=lambda: "x", now=NOW) == "x"


def test_racing_workers_all_end_with_the_one_stored_secret(sql_url: str) -> None:
    found: list[str] = []
    start = threading.Barrier(6)

    def worker(number: int) -> None:
        start.wait()
        found.append(load_or_create_secret(sql_url, "csrf", make=lambda: f"w{number}", now=NOW))

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(found) == 6
    assert len(set(found)) == 1


def test_a_database_never_migrated_names_the_upgrade(blank_sql_url: str) -> None:
    with pytest.raises(MigrationError, match="run `sysdrill db upgrade`"):
        load_or_create_secret(blank_sql_url, "csrf", make=lambda: "x", now=NOW)

"""Benchmark: what one login costs the server, with the shipped argon2id parameters.

Creates one account in a fresh SQLite study database, then times COUNT logins of the
right password, COUNT of a wrong one and COUNT of an unknown user (these verify the
dummy hash), and COUNT look-ups of a login session's token (what every request of a
logged-in browser pays). Prints p50 and p99 of each in milliseconds, so the figures
show that an unknown user costs what a known one does.

Usage: ``python bench/login_bench.py [COUNT]``.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

from sysdrill.app.accounts import HASH_PARAMETERS, open_accounts
from sysdrill.errors import LoginFailed
from sysdrill.storage.engine import upgrade_database

PASSWORD = "correct horse battery"


def _times_ms(count: int, action: Callable[[int], object]) -> list[float]:
    found = []
    for index in range(count):
        start = time.perf_counter()
        action(index)
        found.append((time.perf_counter() - start) * 1000)
    return found


def _p(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("count", nargs="?", type=int, default=50, help="logins of each kind")
    count = parser.parse_args().count
    start = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)
    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite:///{Path(folder) / 'study.sqlite3'}"
        upgrade_database(url)
        with open_accounts(url) as accounts:
            accounts.add("alice", PASSWORD, now=start)

            def at(index: int) -> datetime:
                # A new address and an hour apart: no rate limit interferes.
                return start + timedelta(hours=index)

            def wrong(index: int, name: str) -> None:
                try:
                    accounts.authenticate(
                        name, "wrong password", address=f"a{index}", now=at(index)
                    )
                except LoginFailed:
                    pass

            right = _times_ms(
                count,
                lambda i: accounts.authenticate("alice", PASSWORD, address=f"r{i}", now=at(i)),
            )
            wrong_password = _times_ms(count, lambda i: wrong(i, "alice"))
            unknown_user = _times_ms(count, lambda i: wrong(i, "nobody"))
            login = accounts.start_session(accounts.get("alice"), now=start)
            lookup = _times_ms(
                count * 10, lambda _: accounts.account_for_token(login.token, now=start)
            )
    print(f"argon2id {HASH_PARAMETERS.to_dict()}, {count} of each")
    for label, values in (
        ("login, right password", right),
        ("login, wrong password", wrong_password),
        ("login, unknown user", unknown_user),
        ("session token look-up", lookup),
    ):
        print(
            f"{label:<24} p50 {_p(values, 0.5):8.2f} ms   p99 {_p(values, 0.99):8.2f} ms   "
            f"mean {statistics.fmean(values):8.2f} ms"
        )


if __name__ == "__main__":
    main()

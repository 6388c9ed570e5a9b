"""Web pages at scale: p50 and p99 of the dashboard, progress and vault pages (issue 30).

Serves a vault and a study database with one app through FastAPI's TestClient
(single user, SQLite), the way ``sysdrill serve`` serves one learner, and times
each page over ``--requests`` requests after one unmeasured request each (the
first request of a page loads the vault, the first search compiles it; both are
printed apart). The vault and database are those ``bench/study_bench.py --cli``
imports and seeds (100,000 items and 1,000,000 review rows for the issue's
figures); the database is copied first, since the app brings it up to date.
Target (issue 30): p99 <= 100 ms for each page at 100,000 items.
Run: .venv/bin/python bench/web_pages.py --vault VAULT --db STUDY.sqlite3 [--requests N]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

sys.path.insert(0, str(Path(__file__).resolve().parent))

from web_bench import time_calls  # noqa: E402

if TYPE_CHECKING:
    from fastapi.testclient import TestClient  # noqa: TID251

NOW = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)
"""The seeded history's present (``bench/study_bench.py``)."""
TARGET_P99_MS = 100.0
PAGES = ("/", "/progress", "/vault", "/vault?q=bandwidth")


def _percentile(ordered: list[float], fraction: float) -> float:
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def main() -> None:
    """Serve the vault and database, and time each page."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vault", type=Path, required=True, help="the vault folder")
    parser.add_argument("--db", type=Path, required=True, help="a SQLite study database")
    parser.add_argument("--requests", type=int, default=100, help="timed requests a page")
    args = parser.parse_args()

    # A benchmark drives the web app as a client would; fastapi stays out of src/ outside web/.
    from fastapi.testclient import TestClient  # noqa: TID251

    from sysdrill.storage.engine import upgrade_database
    from sysdrill.web.app import create_app

    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        copy = root / "study.sqlite3"
        shutil.copyfile(args.db, copy)
        db_url = f"sqlite:///{copy}"
        upgrade_database(db_url)
        app = create_app(
            vault=args.vault,
            db_url=db_url,
            cache_dir=root / "cache",
            data_dir=root / "data",
            clock=lambda: NOW,
        )
        # A served name: the app refuses TestClient's default host, testserver.
        with TestClient(app, base_url="http://localhost") as client:
            measure(client, args.requests)
    print(f"load average: {os.getloadavg()[0]:.1f} (2 cores)")


def measure(client: TestClient, requests: int) -> None:
    """Print the first request of each page, then p50 and p99 of ``requests`` more."""

    def get(url: str) -> None:
        answer = client.get(url)
        if answer.status_code != 200:
            raise SystemExit(f"{url} answered {answer.status_code}")

    for page in PAGES:
        [first] = time_calls(lambda page=page: get(page), 1)
        print(f"{page:<22} first request {first * 1000:9.0f} ms")
    for page in PAGES:
        ordered = sorted(time_calls(lambda page=page: get(page), requests))
        p50, p99 = statistics.median(ordered) * 1000, _percentile(ordered, 0.99) * 1000
        verdict = "meets" if p99 <= TARGET_P99_MS else "MISSES"
        print(
            f"{page:<22} p50 {p50:8.1f} ms   p99 {p99:8.1f} ms   "
            f"({verdict} p99 <= {TARGET_P99_MS:.0f} ms, {requests} requests)"
        )


if __name__ == "__main__":
    main()

"""Web pages at scale: p50 and p99 of the dashboard, progress and vault pages (issue 30).

Serves a vault and a study database with one app through FastAPI's TestClient
(single user, SQLite), the way ``sysdrill serve`` serves one learner, and times
each page over ``--requests`` requests after one unmeasured request each (the
first request of a page loads the vault, the first search compiles it; both are
printed apart). The vault and database are those ``bench/study_bench.py --cli``
imports and seeds (100,000 items and 1,000,000 review rows for the issue's
figures); the database is copied first, since the app brings it up to date.
Target (issue 30): p99 <= 100 ms for each page at 100,000 items. Each request's
process CPU time is printed beside its wall time: on a busy shared host the wall
time waits for a core, the CPU time measures the work.
With ``--profile PAGE`` it profiles ``--requests`` requests of that one page in
process (cProfile) after the first, and prints the 25 costliest calls by own and
cumulative time instead of the percentiles.
Run: .venv/bin/python bench/web_pages.py --vault VAULT --db STUDY.sqlite3 [--requests N]
     [--profile /vault?q=bandwidth]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable

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
    parser.add_argument("--profile", metavar="PAGE", help="profile this page in process instead")
    parser.add_argument(
        "--cache-from",
        type=Path,
        help="start from a copy of this cache folder (a compiled vault: no first compilation)",
    )
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
        if args.cache_from:
            shutil.copytree(args.cache_from, root / "cache")
        app = create_app(
            vault=args.vault,
            db_url=db_url,
            cache_dir=root / "cache",
            data_dir=root / "data",
            clock=lambda: NOW,
        )
        # A served name: the app refuses TestClient's default host, testserver.
        with TestClient(app, base_url="http://localhost") as client:
            if args.profile:
                profile(client, args.profile, args.requests)
            else:
                measure(client, args.requests)
    print(f"load average: {os.getloadavg()[0]:.1f} (2 cores)")


def _timed(call: Callable[[], object], count: int) -> tuple[list[float], list[float]]:
    """Wall and process CPU seconds of each of ``count`` calls of ``call``."""
    walls, cpus = [], []
    for _ in range(count):
        wall, cpu = time.perf_counter(), time.process_time()
        call()
        cpus.append(time.process_time() - cpu)
        walls.append(time.perf_counter() - wall)
    return walls, cpus


def _get(client: TestClient, url: str) -> None:
    answer = client.get(url)
    if answer.status_code != 200:
        raise SystemExit(f"{url} answered {answer.status_code}")


def profile(client: TestClient, page: str, requests: int) -> None:
    """Print where ``requests`` requests of ``page`` spend their time, after one unmeasured."""
    import cProfile
    import pstats

    import fastapi.dependencies.utils as dependencies  # noqa: TID251
    import fastapi.routing as routing  # noqa: TID251

    profiler = cProfile.Profile()
    plain = routing.run_in_threadpool

    async def profiled(func: Callable[..., object], *args: object, **kwargs: object) -> object:
        # The app's sync endpoints and dependencies run on worker threads, which a
        # profiler enabled on this thread does not see: profile each call where it runs.
        return await plain(profiler.runcall, func, *args, **kwargs)

    _get(client, page)
    routing.run_in_threadpool = dependencies.run_in_threadpool = profiled  # type: ignore[assignment]
    try:
        for _ in range(requests):
            _get(client, page)
    finally:
        routing.run_in_threadpool = dependencies.run_in_threadpool = plain
    stats = pstats.Stats(profiler)
    stats.sort_stats("tottime").print_stats(25)
    stats.sort_stats("cumulative").print_stats(25)


def measure(client: TestClient, requests: int) -> None:
    """Print the first request of each page, then p50 and p99 of ``requests`` more."""

    def get(url: str) -> None:
        _get(client, url)

    for page in PAGES:
        [first], [first_cpu] = _timed(lambda page=page: get(page), 1)
        print(f"{page:<22} first request {first * 1000:9.0f} ms ({first_cpu * 1000:.0f} ms CPU)")
    for page in PAGES:
        walls, cpus = (sorted(times) for times in _timed(lambda page=page: get(page), requests))
        p50, p99 = statistics.median(walls) * 1000, _percentile(walls, 0.99) * 1000
        cpu50, cpu99 = statistics.median(cpus) * 1000, _percentile(cpus, 0.99) * 1000
        verdict = "meets" if p99 <= TARGET_P99_MS else "MISSES"
        print(
            f"{page:<22} p50 {p50:8.1f} ms   p99 {p99:8.1f} ms   "
            f"({verdict} p99 <= {TARGET_P99_MS:.0f} ms, {requests} requests); "
            f"CPU p50 {cpu50:6.1f} ms, p99 {cpu99:6.1f} ms"
        )


if __name__ == "__main__":
    main()

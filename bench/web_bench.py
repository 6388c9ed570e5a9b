"""Web pages benchmark: render time of the main pages on a 10,000-item vault.

Serves a synthetic vault (``bench/synthetic_vault.py``) with one app through
FastAPI's TestClient (single user, SQLite) and times the dashboard, the
practice page, item pages (a different item each request), the vault browser
with a full-text query, explore, a study session's page (rebuilt from its saved
moves) and one move through the study API (read the state, answer or rate). The
first request loads and compiles the vault and is reported apart; the others
reuse the app's vault cache. Prints p50 and p99 wall-clock milliseconds per
page and whether p99 meets the 50 ms target.
Run: .venv/bin/python bench/web_bench.py [--items N] [--requests N] [--vault DIR]
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

sys.path.insert(0, str(Path(__file__).resolve().parent))

from synthetic_vault import generate_vault  # noqa: E402

if TYPE_CHECKING:
    from fastapi.testclient import TestClient  # noqa: TID251

NOW = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)
TARGET_P99_MS = 50.0


def time_calls(call: Callable[[], object], count: int) -> list[float]:
    """Seconds each of ``count`` calls of ``call`` took."""
    found = []
    for _ in range(count):
        start = time.perf_counter()
        call()
        found.append(time.perf_counter() - start)
    return found


def _report(name: str, samples: list[float]) -> None:
    ordered = sorted(samples)
    p50 = statistics.median(ordered) * 1000
    p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))] * 1000
    verdict = "meets" if p99 <= TARGET_P99_MS else "misses"
    print(f"{name:<28} p50 {p50:7.1f} ms   p99 {p99:7.1f} ms   ({verdict} p99 <= 50 ms)")


def main() -> None:
    """Generate (or reuse) the vault, serve it, and time each page."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--requests", type=int, default=100)
    parser.add_argument("--vault", type=Path, help="use (or create) this synthetic vault")
    args = parser.parse_args()

    # A benchmark drives the web app as a client would; fastapi stays out of src/ outside web/.
    from fastapi.testclient import TestClient  # noqa: TID251

    from sysdrill.content.loader import load_vault
    from sysdrill.storage.engine import upgrade_database
    from sysdrill.web.app import create_app

    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        vault = args.vault or root / "vault"
        if not (vault / "questions").is_dir():
            generate_vault(vault, args.items)
        ids = [item.id for item in load_vault(vault, cache_dir=root / "cache").items]
        print(f"vault: {len(ids)} items")
        db_url = f"sqlite:///{root / 'study.sqlite3'}"
        upgrade_database(db_url)
        app = create_app(
            vault=vault,
            db_url=db_url,
            cache_dir=root / "cache",
            data_dir=root / "data",
            clock=lambda: NOW,
        )
        # A served name: the app refuses TestClient's default host, testserver.
        with TestClient(app, base_url="http://localhost") as client:
            # Writes carry a CSRF token, as any API client's do (docs/web.md).
            client.headers["X-CSRF-Token"] = client.get("/api/csrf").json()["csrf_token"]

            def get(url: str) -> None:
                answer = client.get(url)
                if answer.status_code != 200:
                    raise SystemExit(f"{url} answered {answer.status_code}")

            [first] = time_calls(lambda: get("/"), 1)
            print(f"first request (loads the vault): {first * 1000:.0f} ms")
            [first] = time_calls(lambda: get("/vault?q=bandwidth"), 1)
            print(f"first search (compiles the vault): {first * 1000:.0f} ms")
            pages = itertools.cycle(ids[:: max(1, len(ids) // args.requests)])
            _report("/ (dashboard)", time_calls(lambda: get("/"), args.requests))
            _report("/practice", time_calls(lambda: get("/practice"), args.requests))
            _report("/items/{id}", time_calls(lambda: get(f"/items/{next(pages)}"), args.requests))
            _report(
                "/vault?q=bandwidth", time_calls(lambda: get("/vault?q=bandwidth"), args.requests)
            )
            _report("/explore", time_calls(lambda: get("/explore"), args.requests))
            _time_session(client, args.requests)


def _time_session(client: TestClient, requests: int) -> None:
    """Time a practice session's page and one move through the study API."""
    started = client.post(
        "/sessions",
        data={"kind": "practice", "limit": str(requests + 5)},
        follow_redirects=False,
    )
    page = started.headers["location"]
    _report("/sessions/{id}", time_calls(lambda: client.get(page), requests))
    api = f"/api/study/sessions/{page.rsplit('/', 1)[1]}"

    def move() -> None:
        state = client.get(api).json()
        mode = (state["item"] or {}).get("mode")
        if state["phase"] == "answer":
            text = {"multiple-choice": "a", "numeric": "1 s"}.get(mode or "", "-")
            client.post(f"{api}/answer", json={"text": text})
        elif state["phase"] == "rate":
            client.post(f"{api}/rate", json={"rating": "good"})
        elif state["phase"] == "chain":
            client.post(f"{api}/chain", json={"accept": False})

    _report("one study API move", time_calls(move, requests))


if __name__ == "__main__":
    main()

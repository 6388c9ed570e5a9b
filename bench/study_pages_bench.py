"""Study pages benchmark: the practice page and a session's pages on a 10,000-item vault.

Times, through FastAPI's TestClient against one app (single user, SQLite): the
practice start page, a session page (restored from its saved moves) and a
rating (one move saved, then the redirect followed). The first request loads
the vault and is reported apart; later ones reuse the app's loaded vault.
Prints p50 and p99 wall-clock milliseconds per kind of request.
Run: .venv/bin/python bench/study_pages_bench.py [--items N] [--requests N] [--vault DIR]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from synthetic_vault import generate_vault  # noqa: E402

NOW = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)


def _percentiles(samples: list[float]) -> str:
    ordered = sorted(samples)
    p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
    return f"p50 {statistics.median(ordered) * 1000:.1f} ms, p99 {p99 * 1000:.1f} ms"


def _time(call: Callable[[], object], count: int) -> list[float]:
    found = []
    for _ in range(count):
        start = time.perf_counter()
        call()
        found.append(time.perf_counter() - start)
    return found


def main() -> None:
    """Generate (or reuse) the vault, serve it, and time the study pages."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--requests", type=int, default=50)
    parser.add_argument("--vault", type=Path, help="use (or create) this synthetic vault")
    args = parser.parse_args()

    # A benchmark drives the web app as a client would; fastapi stays out of src/ outside web/.
    from fastapi.testclient import TestClient  # noqa: TID251

    from sysdrill.storage.engine import upgrade_database
    from sysdrill.web.app import create_app

    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        vault = args.vault or root / "vault"
        if not (vault / "questions").is_dir():
            generate_vault(vault, args.items)
        db_url = f"sqlite:///{root / 'study.sqlite3'}"
        upgrade_database(db_url)
        app = create_app(
            vault=vault,
            db_url=db_url,
            cache_dir=root / "cache",
            data_dir=root / "data",
            clock=lambda: NOW,
        )
        with TestClient(app) as client:
            [first] = _time(lambda: client.get("/practice"), 1)
            print(f"first /practice (loads the vault): {first * 1000:.0f} ms")
            practice = _time(lambda: client.get("/practice"), args.requests)
            print(f"/practice: {_percentiles(practice)}")
            started = client.post(
                "/sessions",
                data={"kind": "practice", "limit": str(args.requests + 5)},
                follow_redirects=False,
            )
            page = started.headers["location"]
            shown = _time(lambda: client.get(page), args.requests)
            print(f"session page: {_percentiles(shown)}")

            session_id = page.rsplit("/", 1)[1]
            api = f"/api/study/sessions/{session_id}"

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

            moved = _time(move, args.requests)
            print(
                f"one move through the API (read the state, make the move): {_percentiles(moved)}"
            )


if __name__ == "__main__":
    main()

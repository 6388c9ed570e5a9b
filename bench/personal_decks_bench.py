"""Personal decks benchmark: what they add to a request, on a 10,000-item shared vault.

Loads a synthetic shared vault (``bench/synthetic_vault.py``) and a SQLite study
database with one learner who has no personal deck and one who imported a deck of
``--deck-items`` flashcards. Times, per call, in wall-clock microseconds:

- ``no decks``: what a request of the learner without decks adds (one indexed
  read of their deck version; they study the shared vault object itself);
- ``decks, cached``: the same read for the learner with a deck, whose merged
  vault the app context already holds;
- ``decks, merge``: building the merged vault again (after an import or a
  deletion, once per worker);
- ``import``: importing the deck file (``--imports`` times, each into a new deck).

Prints p50 and p99 of each, and checks that the learner without decks got the
shared vault object (nothing copied).
Run: .venv/bin/python bench/personal_decks_bench.py [--items N] [--deck-items N] [--requests N]
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


def _time(call: Callable[[], object], count: int) -> list[float]:
    found = []
    for _ in range(count):
        start = time.perf_counter()
        call()
        found.append(time.perf_counter() - start)
    return found


def _report(name: str, samples: list[float]) -> None:
    ordered = sorted(samples)
    p50 = statistics.median(ordered) * 1e6
    p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))] * 1e6
    print(f"{name:<16} p50 {p50:10.0f} us   p99 {p99:10.0f} us   ({len(ordered)} calls)")


def main() -> None:
    """Generate the vault and the deck, then time each path."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--deck-items", type=int, default=200)
    parser.add_argument("--requests", type=int, default=500)
    parser.add_argument("--imports", type=int, default=5)
    args = parser.parse_args()

    from sysdrill.app.personal_decks import import_personal_deck
    from sysdrill.app.personal_vault import PersonalVaultCache, merge_personal
    from sysdrill.app.study_vault import open_study_vault
    from sysdrill.storage.engine import acquire_engine, release_engine, upgrade_database
    from sysdrill.storage.personal_store import PersonalDeckStore

    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        generate_vault(root / "vault", args.items)
        shared = open_study_vault(root / "vault", cache_dir=root / "cache")
        print(f"shared vault: {len(shared.items)} items; personal deck: {args.deck_items} cards")
        db_url = f"sqlite:///{root / 'study.sqlite3'}"
        upgrade_database(db_url)
        # Held for the run, as the web app holds it (one pool, schema checked once).
        engine = acquire_engine(db_url)
        deck = root / "cards.csv"
        rows = [f"Question {n} of my deck?,Answer {n}" for n in range(args.deck_items)]
        deck.write_text("Front,Back\n" + "\n".join(rows) + "\n", encoding="utf-8")

        def import_one(number: int) -> None:
            import_personal_deck(
                deck, db_url=db_url, user="owner", shared=shared, title=f"deck {number}", now=NOW
            )

        numbers = iter(range(args.imports))
        imports = _time(lambda: import_one(next(numbers)), args.imports)
        cache = PersonalVaultCache()
        plain = cache.studied_vault(shared, db_url=db_url, user="plain")
        cache.studied_vault(shared, db_url=db_url, user="owner")
        with PersonalDeckStore(db_url) as store:
            _, decks, items = store.load_items("owner")
        _report(
            "no decks",
            _time(lambda: cache.studied_vault(shared, db_url=db_url, user="plain"), args.requests),
        )
        _report(
            "decks, cached",
            _time(lambda: cache.studied_vault(shared, db_url=db_url, user="owner"), args.requests),
        )
        _report("decks, merge", _time(lambda: merge_personal(shared, decks, items), 20))
        _report("import", imports)
        print(f"no decks studies the shared vault object: {plain is shared}")
        release_engine(db_url, engine)


if __name__ == "__main__":
    main()

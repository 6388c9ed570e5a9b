"""Study benchmark: 10,000 items and 200,000 review-log rows on SQLite.

Measures (1) choosing the next item plus recording a review, per iteration,
target p99 <= 5 ms; (2) building the progress report, target <= 300 ms.
Both wall-clock and CPU (thread) time are printed: on a shared, loaded machine
wall-clock tails measure the wait for a core, CPU time the work done.
Run: .venv/bin/python bench/study_bench.py [--items N] [--reviews N] [--iterations N]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from sysdrill.app.study import open_study
from sysdrill.content.models import Item
from sysdrill.study.card_state import CardRecord, CardState
from sysdrill.study.review_log import ReviewRecord
from sysdrill.study.service import GradedBy, Rating
from sysdrill.study.user_state import UserState

NOW = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)
TRACKS = ["cloud", "edge", "mobile", "tinyml", "global"]
AREAS = ["compute", "memory", "latency", "networking", "parallelism", "data"]


def make_items(count: int) -> list[Item]:
    return [
        Item.model_validate(
            {
                "id": f"bench-{n:05d}",
                "track": TRACKS[n % len(TRACKS)],
                "competency_area": AREAS[n % len(AREAS)],
                "topic": f"topic-{n % 80}",
                "question": "?",
            }
        )
        for n in range(count)
    ]


def make_history(items: list[Item], reviews: int, rng: random.Random) -> UserState:
    per_item = reviews // len(items)
    settings = {"desired_retention": 0.9, "fuzz": True}
    state = UserState(settings={"new_per_day": 20, "reviews_per_day": 100000})
    seen = items[: int(len(items) * 0.9)]  # 10 % stay new
    for item in seen:
        interval = 1.0
        when = NOW
        for k in range(per_item):
            # Spread each item's history evenly over the past year, all before NOW.
            when = NOW - timedelta(days=365 - k * (360 / per_item), minutes=rng.randint(0, 600))
            rating = 1 if rng.random() < 0.1 else 3
            state.reviews.append(
                ReviewRecord(
                    item_id=item.id,
                    rating=rating,
                    graded_by="self",
                    answer=None,
                    duration_ms=rng.randint(2000, 30000),
                    reviewed_at=when,
                    state_before=CardState.NEW if k == 0 else CardState.REVIEW,
                    interval_before_days=None if k == 0 else interval,
                    first_of_day=True,
                    settings=settings,
                )
            )
            interval = max(1.0, interval * (0.5 if rating == 1 else 1.3))
        due = NOW + timedelta(days=rng.uniform(-30, 30))
        state.cards.append(
            CardRecord(
                item_id=item.id,
                state=CardState.REVIEW,
                step=None,
                stability_days=rng.uniform(1, 120),
                difficulty=rng.uniform(2, 9),
                due=due,
                last_review=min(when, NOW - timedelta(hours=1)),
                reps=per_item,
                lapses=rng.randint(0, 3),
                never_seen=False,
            )
        )
    extra = reviews - len(state.reviews)
    for k in range(extra):
        item = seen[k % len(seen)]
        state.reviews.append(
            ReviewRecord(
                item.id,
                3,
                "self",
                None,
                1000,
                NOW - timedelta(days=400 - k % 30),
                CardState.REVIEW,
                5.0,
                True,
                settings,
            )
        )
    state.reviews.sort(key=lambda r: r.reviewed_at)
    return state


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--reviews", type=int, default=200_000)
    parser.add_argument("--iterations", type=int, default=2_000)
    args = parser.parse_args()
    rng = random.Random(0)
    items = make_items(args.items)
    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite:///{Path(folder) / 'bench.sqlite3'}"
        started = time.perf_counter()
        with open_study(url, vault=None, upgrade=True) as study:
            study.store.replace_user_state(study.scope, make_history(items, args.reviews, rng))
        print(
            f"setup: {args.items} items, {args.reviews} review rows "
            f"in {time.perf_counter() - started:.1f} s"
        )

        with open_study(url, vault=None, upgrade=True) as study:
            study.next_items(items, now=NOW, limit=1)  # warm the caches once
            timings: list[float] = []
            cpu: list[float] = []
            moment = NOW
            for n in range(args.iterations):
                moment += timedelta(seconds=3)
                begin = time.perf_counter()
                begin_cpu = time.thread_time()
                [item] = study.next_items(items, now=moment, limit=1)
                study.record_review(
                    item.id,
                    rating=Rating.GOOD if n % 7 else Rating.AGAIN,
                    graded_by=GradedBy.SELF,
                    answer=None,
                    duration_ms=4000,
                    now=moment,
                )
                timings.append((time.perf_counter() - begin) * 1000)
                cpu.append((time.thread_time() - begin_cpu) * 1000)
            for label, values in (("wall", timings), ("cpu", cpu)):
                print(
                    f"next item + record review, {label} ({args.iterations} iterations): "
                    f"p50 {statistics.median(values):.2f} ms, "
                    f"p95 {percentile(values, 0.95):.2f} ms, "
                    f"p99 {percentile(values, 0.99):.2f} ms, max {max(values):.2f} ms "
                    "(target p99 <= 5 ms)"
                )
            runs = []
            runs_cpu = []
            for _ in range(7):
                begin = time.perf_counter()
                begin_cpu = time.thread_time()
                report = study.progress(items, now=moment)
                runs.append((time.perf_counter() - begin) * 1000)
                runs_cpu.append((time.thread_time() - begin_cpu) * 1000)
            print(
                f"progress report ({report.reviews_total} reviews, {report.items_seen} seen): "
                f"wall median {statistics.median(runs):.0f} ms, max {max(runs):.0f} ms; "
                f"cpu median {statistics.median(runs_cpu):.0f} ms (target <= 300 ms)"
            )
            print(f"load average during the run: {os.getloadavg()[0]:.1f} (2 cores)")


if __name__ == "__main__":
    main()

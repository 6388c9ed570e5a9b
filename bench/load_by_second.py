"""Run ``web_load.py`` and print its answers' and ratings' latency second by second.

    python bench/load_by_second.py --seconds 30 --only postgresql --vault DIR

takes ``web_load.py``'s arguments, runs it as usual (its report is printed too),
then prints, for each second of the load, how many answers and ratings finished
and their p50, p99 and slowest latency. It tells a tail spread through every
second (queueing) from one made by slow seconds (the host, a stall).
"""

from __future__ import annotations

import atexit
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import web_load  # noqa: E402

MOVES = ("answer", "rate")
MIN_PER_SECOND = 20
"""Seconds with fewer moves (the ramp, the end) are left out."""

_finished: list[tuple[float, str, float]] = []
_latency = web_load.Tally.latency


def _noted(self: web_load.Tally, kind: str, seconds: float) -> None:
    _finished.append((time.monotonic(), kind, seconds))
    _latency(self, kind, seconds)


def by_second(finished: list[tuple[float, str, float]]) -> list[str]:
    """One line per second: moves finished, p50, p99 and max latency in ms."""
    if not finished:
        return []
    start = finished[0][0]
    seconds: dict[int, list[float]] = {}
    for at, kind, latency in finished:
        if kind in MOVES:
            seconds.setdefault(int(at - start), []).append(1000 * latency)
    lines = []
    for second in sorted(seconds):
        values = sorted(seconds[second])
        if len(values) < MIN_PER_SECOND:
            continue
        p50, p99 = values[len(values) // 2], values[int(len(values) * 0.99)]
        lines.append(
            f"second {second:3d}: {len(values):4d} moves  p50 {p50:6.1f} ms  "
            f"p99 {p99:6.1f} ms  max {values[-1]:6.1f} ms"
        )
    return lines


def _report() -> None:
    for line in by_second(_finished):
        print(line)


if __name__ == "__main__":
    web_load.Tally.latency = _noted  # type: ignore[method-assign]
    atexit.register(_report)
    web_load.main()

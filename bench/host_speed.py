"""How fast this host runs plain Python right now: a yardstick for the other benches.

The shared 2-core machine's speed drifts by a third or more within minutes, which
is more than most changes measured by the load benchmarks. Run this beside them: the
CPU seconds of a fixed loop (ten million additions) say which phase a figure came
from. Lower is faster; compare only figures taken in the same phase.

Run: python bench/host_speed.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import time


def loop_cpu_s(count: int = 10_000_000) -> float:
    """CPU seconds of ``count`` additions in a Python loop."""
    started = time.process_time()
    total = 0
    for number in range(count):
        total += number
    return time.process_time() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="loops to time (default 3)")
    args = parser.parse_args()
    figures = [loop_cpu_s() for _ in range(args.repeat)]
    shown = ", ".join(f"{figure:.3f}" for figure in figures)
    print(f"ten million additions: {shown} s of CPU (best {min(figures):.3f} s)")


if __name__ == "__main__":
    main()

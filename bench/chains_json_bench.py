"""Benchmark: read a StaffML-sized ``chains.json`` (about 1 MB) as JSON and as YAML.

Generates COUNT chains of four questions each, shaped like StaffML's (``chain_id``,
``track``, ``topic``, ``levels``, ``questions`` with ``id``/``level``/``title``/
``bloom``, a ``rationale``), then prints the best of N runs of: the JSON road the
loader takes (``parse_shared``), the YAML parser the same bytes would otherwise go
through, and locating one member's line in each of the chains.

Usage: ``python bench/chains_json_bench.py [COUNT] [--repeat N]``.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from sysdrill.content.json_source import JsonLocator
from sysdrill.content.loader import parse_shared, parse_yaml

LEVELS = ("L1", "L2", "L3", "L4")


def _chains(count: int) -> list[dict[str, object]]:
    return [
        {
            "chain_id": f"cloud-chain-auto-{index:04d}",
            "track": "cloud",
            "topic": "kv-cache-management",
            "competency_area": "memory",
            "levels": list(LEVELS),
            "questions": [
                {
                    "level": level,
                    "id": f"cloud-{index * 4 + step:05d}",
                    "title": f"Sizing the Cache of Request Class {index} at Level {level}",
                    "bloom": "apply",
                }
                for step, level in enumerate(LEVELS)
            ],
            "rationale": "From the size of one token's cache to how many requests fit. " * 3,
            "tier": "primary",
        }
        for index in range(count)
    ]


def _best(action: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return min(times)


def _locate_members(locator: JsonLocator, count: int) -> list[tuple[int, int]]:
    step = max(1, count // 100)
    return [locator.locate((index, "questions", 3, "level")) for index in range(0, count, step)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("count", nargs="?", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    data = json.dumps(_chains(args.count), indent=2).encode("utf-8")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "chains.json"
        path.write_bytes(data)
        as_json = _best(lambda: parse_shared(data, "chains.json"), args.repeat)
        as_yaml = _best(lambda: parse_yaml(data, "chains.json"), args.repeat)
        # One locator per file, as the vault rules keep it: each container is scanned once.
        located = _best(
            lambda: _locate_members(JsonLocator(path), args.count),
            args.repeat,
        )
    print(f"chains.json: {args.count} chains, {len(data) / 1e6:.2f} MB")
    print(f"  JSON parse (the loader's road): {as_json * 1000:8.1f} ms")
    print(f"  YAML parse of the same bytes:   {as_yaml * 1000:8.1f} ms")
    print(f"  100 member lines located:       {located * 1000:8.1f} ms")


if __name__ == "__main__":
    main()

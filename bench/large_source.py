"""Write a large importable card list: a CSV of N flashcards, for the scale benchmark.

Each row is a distinct question and answer drawn from a seeded RNG (a quantity,
a hardware figure and a short napkin line), spread over 25 decks with two tags
each, so an import parses, validates and writes N different items. The file
has the header ``front,back,deck,tags`` that ``sysdrill import`` reads as CSV.

Usage: ``python bench/large_source.py OUT.csv [COUNT] [--seed N]`` (COUNT 100000 by
default, the most rows one CSV import accepts).
"""

from __future__ import annotations

import argparse
import csv
import random
from pathlib import Path

__all__ = ["write_card_csv"]

_SUBJECTS = (
    ("HBM bandwidth of one accelerator", "TB/s", 1.0, 8.0),
    ("PCIe Gen5 x16 bandwidth", "GB/s", 32.0, 64.0),
    ("KV cache per token of a 7B model", "KiB", 128.0, 1024.0),
    ("all-reduce time of a 1 GB gradient over 8 GPUs", "ms", 5.0, 80.0),
    ("weights of a 70B model in bf16", "GB", 120.0, 160.0),
    ("tokens per second of one decoder at batch 1", "tok/s", 20.0, 200.0),
    ("SRAM of one streaming multiprocessor", "KiB", 128.0, 256.0),
    ("latency of a cross-region round trip", "ms", 40.0, 200.0),
)
_DECKS = tuple(f"scale::deck-{n:02d}" for n in range(25))
_TAGS = ("memory", "compute", "network", "latency", "storage", "serving", "training")


def _row(n: int, rng: random.Random) -> tuple[str, str, str, str]:
    subject, unit, low, high = _SUBJECTS[n % len(_SUBJECTS)]
    value = round(rng.uniform(low, high), 1)
    factor = rng.randint(2, 64)
    question = (
        f"Card {n}: estimate the {subject} when the workload is scaled by {factor}x "
        f"(case {rng.randint(1000, 9999)})."
    )
    answer = (
        f"About {value} {unit} per unit, so {factor} x {value} {unit} = "
        f"{round(factor * value, 1)} {unit}. Check the assumption against the datasheet."
    )
    tags = " ".join(rng.sample(_TAGS, 2))
    return question, answer, _DECKS[n % len(_DECKS)], tags


def write_card_csv(path: Path, count: int, *, seed: int = 0, start: int = 0) -> None:
    """Write ``count`` flashcards to ``path`` as CSV (header front, back, deck, tags).

    ``start`` numbers the first card: lists written with different starts (and
    seeds) hold different cards, so a vault larger than one import's limit is
    several imports of such lists.
    """
    rng = random.Random(seed)
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(("front", "back", "deck", "tags"))
        for n in range(start, start + count):
            writer.writerow(_row(n, rng))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("count", type=int, nargs="?", default=100_000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    write_card_csv(args.out, args.count, seed=args.seed)
    print(f"wrote {args.count} cards to {args.out}")


if __name__ == "__main__":
    main()

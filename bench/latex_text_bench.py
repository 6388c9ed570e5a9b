r"""Time LaTeX-to-text on napkin lines that hold LaTeX: the napkin lexer and the session text.

The synthetic vault (bench/synthetic_vault.py) writes no LaTeX, so the napkin
and vault benchmarks do not exercise the converter; this one does. It builds
LINES deterministic lines from templates in the style of real vault answers
(``$\frac{70 \times 10^9 \times 2}{3.35 \times 10^{12}}$ ...``), then times, in
this process:

- ``normalize`` (napkin lexer) over every line;
- ``check_claims`` over the lines joined into one text;
- ``readable_math`` (session text) over every line.

It imports only names that exist before and after the pylatexenc change, so
the same script compares two source trees:
``PYTHONPATH=OLD/src python bench/latex_text_bench.py`` then with the new tree.

Usage: ``python bench/latex_text_bench.py [LINES] [--repeat N]``.
"""

from __future__ import annotations

import argparse
import random
import time

from sysdrill.napkin import check_claims
from sysdrill.napkin.lexer import normalize
from sysdrill.study.sessions.text import readable_math

TEMPLATES = (
    r"Weights: $%(a)d \times 10^9 \times 2\,\text{B} = %(b)d\,\text{GB}$ in BF16.",
    r"Time $= \frac{%(a)d \times 10^9 \times 2}{3.35 \times 10^{12}} \approx %(c).1f\,\text{ms}$",
    r"$\text{Bubble} = \frac{%(d)d}{%(e)d} \approx 0.%(d)d$ of the step.",
    r"Per GPU: $\frac{%(b)d\,\text{GB}}{%(d)d} = %(c).2f\,\text{GB}$;"
    r" so $%(d)d \cdot %(e)d = %(f)d$.",
    r"$\sqrt{%(g)d} = %(d)d$ and $%(a)d\%% \times %(e)d \leq %(f)d$ at \$3.50/GPU-hour",
    r"With $\alpha = %(d)d\,\mu\text{s}$ and $\beta = %(e)d\,\text{GB/s}$ the ring takes longer.",
)


def build_lines(count: int) -> list[str]:
    """``count`` LaTeX-bearing lines with varied numbers (seeded, so every run is equal)."""
    rng = random.Random(0)
    lines = []
    for index in range(count):
        d, e = rng.randint(2, 9), rng.randint(10, 99)
        values = {
            "a": rng.randint(7, 405),
            "b": rng.randint(14, 810),
            "c": rng.uniform(1, 99),
            "d": d,
            "e": e,
            "f": d * e,
            "g": d * d,
        }
        lines.append(TEMPLATES[index % len(TEMPLATES)] % values)
    return lines


def best_of(repeat: int, action: object) -> float:
    """Shortest wall time of ``repeat`` calls of ``action``, in seconds."""
    assert callable(action)
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        action()
        times.append(time.perf_counter() - started)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("lines", type=int, nargs="?", default=3000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    lines = build_lines(args.lines)
    text = "\n".join(lines)

    started = time.perf_counter()
    normalize(lines[0])
    readable_math(lines[0])
    print(f"first conversion (imports included): {(time.perf_counter() - started) * 1e3:.1f} ms")
    normalize_s = best_of(args.repeat, lambda: [normalize(line) for line in lines])
    claims_s = best_of(args.repeat, lambda: list(check_claims(text)))
    readable_s = best_of(args.repeat, lambda: [readable_math(line) for line in lines])
    per_line = 1e6 / len(lines)
    print(f"lines: {len(lines)} (each holds LaTeX)")
    print(f"napkin normalize: {normalize_s:.3f} s ({normalize_s * per_line:.0f} us/line)")
    print(f"napkin check_claims: {claims_s:.3f} s ({claims_s * per_line:.0f} us/line)")
    print(f"session readable_math: {readable_s:.3f} s ({readable_s * per_line:.0f} us/line)")
    print(f"best of {args.repeat}")


if __name__ == "__main__":
    main()

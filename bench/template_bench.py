"""Benchmark: draw and audit the starter vault's templates, and time ``check`` on the vault.

Prints the best of N runs of: drawing every template once (``draw_template``), auditing
one draw of every template (draw, render, napkin check: what ``template-draw`` does per
seed), and a cold ``run_check`` of the whole starter vault without its cache (the
``template-draw`` rule draws each template 50 times inside it).

Usage: ``python bench/template_bench.py [--repeat N]``.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path

from sysdrill.check.runner import run_check
from sysdrill.content.loader import load_vault
from sysdrill.napkin.templates import audit_draw, draw_template

STARTER = Path(__file__).resolve().parents[1] / "src/sysdrill/content/starter_vault"


def _best(run: Callable[[], object], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    templates = [item for item in load_vault(STARTER).items if item.is_template]
    count = len(templates)
    draw_s = _best(lambda: [draw_template(t, 1) for t in templates], args.repeat)
    audit_s = _best(lambda: [audit_draw(t, 1) for t in templates], args.repeat)
    print(f"templates: {count}")
    print(f"draw: {draw_s / count * 1e3:.3f} ms per template")
    print(f"audit (draw + napkin check): {audit_s / count * 1e3:.3f} ms per template")
    check_s = _best(lambda: run_check(STARTER, workers=1), args.repeat)
    print(f"check of the starter vault, no cache: {check_s:.2f} s")


if __name__ == "__main__":
    main()

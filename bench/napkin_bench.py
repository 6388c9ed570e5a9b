"""Benchmark the napkin tier of ``sysdrill check`` over the synthetic vault.

Generates the 10,711-item synthetic vault (bench/synthetic_vault.py), loads it
once with the real loader (not timed here: that is the vault benchmark), then
times ``napkin_findings`` over every item file that validated, in a fresh process
so the pint registry build and the unit compilation are included.

Usage: ``python bench/napkin_bench.py [COUNT] [--vault DIR]``.
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from synthetic_vault import generate_vault  # noqa: E402

from sysdrill.content.loader import load_vault  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("count", type=int, nargs="?", default=10_711)
    parser.add_argument("--vault", type=Path, help="reuse (or create) the vault here")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        root = args.vault or Path(tmp) / "vault"
        if not (root / "questions").is_dir():
            started = time.perf_counter()
            generate_vault(root, args.count, seed=0)
            print(f"generated {args.count} items in {time.perf_counter() - started:.1f} s")
        vault = load_vault(root)
        files = [f for f in vault.files if f.item is not None]
        print(f"items that validated: {len(files)}")

        started = time.perf_counter()
        import sysdrill.napkin  # noqa: F401  (cheap: no pint yet)

        import_s = time.perf_counter() - started
        from sysdrill.check.napkin_rules import napkin_findings
        from sysdrill.napkin.claims import check_claims

        started = time.perf_counter()
        cpu_started = time.process_time()
        findings = [finding for f in files for finding in napkin_findings(f)]
        tier_s = time.perf_counter() - started
        tier_cpu_s = time.process_time() - cpu_started

        texts = [
            text
            for f in files
            for text in (f.item.details.napkin_math, f.item.details.realistic_solution)
            if f.item is not None and text
        ]
        started = time.perf_counter()
        verdicts = [v for text in texts for v in check_claims(text)]
        warm_s = time.perf_counter() - started

        tally: dict[str, int] = {}
        for verdict in verdicts:
            tally[verdict.verdict.value] = tally.get(verdict.verdict.value, 0) + 1

        # What the tier adds to `sysdrill check` (default workers: 2 processes).
        # Runs with and without the tier alternate, so that load changes on this
        # shared machine hit both alike; CPU counts the forked worker too.
        from sysdrill.check import runner

        def timed_check() -> tuple[float, float]:
            def cpu() -> float:
                own = resource.getrusage(resource.RUSAGE_SELF)
                kids = resource.getrusage(resource.RUSAGE_CHILDREN)
                return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime

            began, began_cpu = time.perf_counter(), cpu()
            runner.run_check(root)
            return time.perf_counter() - began, cpu() - began_cpu

        hook = runner._napkin_hook
        with_runs: list[tuple[float, float]] = []
        without_runs: list[tuple[float, float]] = []
        for _ in range(3):
            with_runs.append(timed_check())
            runner._napkin_hook = lambda: None  # type: ignore[assignment]
            try:
                without_runs.append(timed_check())
            finally:
                runner._napkin_hook = hook
        with_tier = min(wall for wall, _ in with_runs)
        without_tier = min(wall for wall, _ in without_runs)
        with_cpu = min(used for _, used in with_runs)
        without_cpu = min(used for _, used in without_runs)

        print(f"import sysdrill.napkin: {import_s * 1000:.1f} ms")
        print(f"napkin tier alone, one process: {tier_s:.2f} s wall, {tier_cpu_s:.2f} s CPU")
        print(f"pint imported by the tier: {'pint' in sys.modules}")
        print(f"napkin tier alone, second run: {warm_s:.2f} s wall")
        print(f"claims judged: {len(verdicts)} ({', '.join(f'{n} {k}' for k, n in tally.items())})")
        print(f"findings: {len(findings)}")
        for finding in findings[:5]:
            print("  ", finding.render())
        print(
            f"sysdrill check with the napkin tier: {with_tier:.2f} s wall, "
            f"{with_cpu:.2f} s CPU (best of 3)"
        )
        print(
            f"sysdrill check without it:           {without_tier:.2f} s wall, "
            f"{without_cpu:.2f} s CPU (best of 3)"
        )
        print(f"walls with: {', '.join(f'{w:.2f}' for w, _ in with_runs)}")
        print(f"walls without: {', '.join(f'{w:.2f}' for w, _ in without_runs)}")
        print(
            f"added by the napkin tier: {with_tier - without_tier:.2f} s wall, "
            f"{with_cpu - without_cpu:.2f} s CPU over two processes (target <= 1.5 s wall)"
        )


if __name__ == "__main__":
    main()

"""Benchmark the napkin tier of ``sysdrill check`` over the synthetic vault.

Generates the 10,711-item synthetic vault (bench/synthetic_vault.py), loads it
once with the real loader (not timed here: that is the vault benchmark), then
times ``napkin_findings`` over every item file that validated, cold: first in this
process, before any claim is checked (no stored claim plans, units not yet
resolved), then again, warm, and says so.

Then it times what the tier adds to ``sysdrill check`` (``run_check`` with no cache
folder): each check runs in a fresh child process, alternately with the tier and
without it, so no run inherits another's stored plans and load changes on a shared
machine hit both alike.

Usage: ``python bench/napkin_bench.py [COUNT] [--vault DIR] [--rounds R]``.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from synthetic_vault import generate_vault  # noqa: E402

from sysdrill.content.loader import load_vault  # noqa: E402


def run_child(script: str, *args: str) -> dict[str, float]:
    """Run ``script`` with ``args`` in a fresh Python process; the JSON it prints."""
    out = subprocess.run(
        [sys.executable, script, *args], check=True, capture_output=True, text=True
    ).stdout
    result: dict[str, float] = json.loads(out)
    return result


def check_child(root: Path, tier: str) -> None:
    """Run one cold ``run_check`` in this (fresh) process and print its wall and CPU."""
    from sysdrill.check import runner

    if tier == "without":
        runner._napkin_hook = lambda: None  # type: ignore[assignment]

    def cpu() -> float:
        # The check's forked worker counts too.
        own = resource.getrusage(resource.RUSAGE_SELF)
        kids = resource.getrusage(resource.RUSAGE_CHILDREN)
        return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime

    began, began_cpu = time.perf_counter(), cpu()
    runner.run_check(root)
    print(json.dumps({"wall_s": time.perf_counter() - began, "cpu_s": cpu() - began_cpu}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("count", type=int, nargs="?", default=10_711)
    parser.add_argument("--vault", type=Path, help="reuse (or create) the vault here")
    parser.add_argument("--rounds", type=int, default=3, help="checks with and without the tier")
    parser.add_argument("--check-child", choices=("with", "without"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.check_child:
        check_child(args.vault, args.check_child)
        return

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
        from sysdrill.napkin import claims
        from sysdrill.napkin.claims import check_claims

        assert not claims._PLANS, "claims were checked before the cold run"
        started = time.perf_counter()
        cpu_started = time.process_time()
        findings = [finding for f in files for finding in napkin_findings(f)]
        tier_s = time.perf_counter() - started
        tier_cpu_s = time.process_time() - cpu_started
        shapes = len(claims._PLANS)

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

        def timed_check(tier: str) -> tuple[float, float]:
            run = run_child(__file__, "--check-child", tier, "--vault", str(root))
            return run["wall_s"], run["cpu_s"]

        with_runs: list[tuple[float, float]] = []
        without_runs: list[tuple[float, float]] = []
        for _ in range(args.rounds):
            with_runs.append(timed_check("with"))
            without_runs.append(timed_check("without"))
        with_tier = min(wall for wall, _ in with_runs)
        without_tier = min(wall for wall, _ in without_runs)
        with_cpu = min(used for _, used in with_runs)
        without_cpu = min(used for _, used in without_runs)

        print(f"import sysdrill.napkin: {import_s * 1000:.1f} ms")
        print(f"napkin tier alone, cold, one process: {tier_s:.2f} s wall, {tier_cpu_s:.2f} s CPU")
        print(f"pint imported by the tier: {'pint' in sys.modules}")
        print(f"napkin tier alone, warm (plans stored by the cold run): {warm_s:.2f} s wall")
        print(f"claims judged: {len(verdicts)} ({', '.join(f'{n} {k}' for k, n in tally.items())})")
        print(
            f"claim plans stored by the cold run (distinct shapes): {shapes}; "
            f"{tier_cpu_s / len(verdicts) * 1e6:.0f} µs of CPU per claim, cold"
        )
        print(f"findings: {len(findings)}")
        for finding in findings[:5]:
            print("  ", finding.render())
        print(
            f"sysdrill check with the napkin tier: {with_tier:.2f} s wall, "
            f"{with_cpu:.2f} s CPU (best of {args.rounds}, cold)"
        )
        print(
            f"sysdrill check without it:           {without_tier:.2f} s wall, "
            f"{without_cpu:.2f} s CPU (best of {args.rounds}, cold)"
        )
        print(f"walls with: {', '.join(f'{w:.2f}' for w, _ in with_runs)}")
        print(f"walls without: {', '.join(f'{w:.2f}' for w, _ in without_runs)}")
        print(
            f"added by the napkin tier: {with_tier - without_tier:.2f} s wall, "
            f"{with_cpu - without_cpu:.2f} s CPU over two processes (target <= 1.5 s wall)"
        )


if __name__ == "__main__":
    main()

"""Measure what replaying claim plans (``napkin/replay.py``) saves the napkin tier, cold.

Generates the 10,711-item synthetic vault (``bench/synthetic_vault.py``) once, then
runs the napkin tier (``napkin_findings`` on every item that validated) in fresh
child processes, alternately with replay and without it, so every run starts with
no stored plans and no compiled replay functions, and load changes on a shared
machine hit both modes alike. Each child loads the vault first (not timed) and
times only the tier: wall and CPU seconds. "Without replay" means every reused
plan re-parses its sides (``ClaimChecker._record`` returns None).

Usage: ``python bench/napkin_replay_bench.py [--count N] [--rounds R] [--vault DIR]``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from napkin_bench import run_child  # noqa: E402
from synthetic_vault import generate_vault  # noqa: E402

MODES = ("replay", "parse")


def child(root: Path, mode: str) -> None:
    """Time the napkin tier over the vault in this (fresh) process and print JSON."""
    from sysdrill.check.napkin_rules import napkin_findings
    from sysdrill.content.loader import load_vault
    from sysdrill.napkin import claims

    files = [f for f in load_vault(root).files if f.item is not None]
    if mode == "parse":
        claims.ClaimChecker._record = lambda self, tokens, plan: None  # type: ignore[method-assign]
    started, cpu_started = time.perf_counter(), time.process_time()
    findings = sum(len(napkin_findings(f)) for f in files)
    wall_s, cpu_s = time.perf_counter() - started, time.process_time() - cpu_started
    print(json.dumps({"wall_s": wall_s, "cpu_s": cpu_s, "findings": findings, "items": len(files)}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--count", type=int, default=10_711)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--vault", type=Path, help="reuse (or create) the vault here")
    parser.add_argument("--child", choices=MODES, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.vault, args.child)
        return

    with tempfile.TemporaryDirectory() as tmp:
        root = args.vault or Path(tmp) / "vault"
        if not (root / "questions").is_dir():
            generate_vault(root, args.count, seed=0)
        runs: dict[str, list[dict[str, float]]] = {mode: [] for mode in MODES}
        for _ in range(args.rounds):
            for mode in MODES:
                runs[mode].append(run_child(__file__, "--child", mode, "--vault", str(root)))
        findings = {run["findings"] for mode in MODES for run in runs[mode]}
        assert len(findings) == 1, f"the modes disagree on findings: {findings}"
        print(f"items: {runs['replay'][0]['items']:.0f}, findings: {findings.pop():.0f}")
        print(f"napkin tier, cold, {args.rounds} fresh processes per mode:")
        summary: dict[str, dict[str, float]] = {}
        for mode in MODES:
            walls = [run["wall_s"] for run in runs[mode]]
            cpus = [run["cpu_s"] for run in runs[mode]]
            summary[mode] = {"cpu": statistics.median(cpus), "wall": statistics.median(walls)}
            print(
                f"  {mode:6}: CPU median {statistics.median(cpus):.2f} s (best {min(cpus):.2f}),"
                f" wall median {statistics.median(walls):.2f} s (best {min(walls):.2f})"
            )
        for measure in ("cpu", "wall"):
            saved = 1 - summary["replay"][measure] / summary["parse"][measure]
            print(f"replay saves {saved:.1%} of the tier's median {measure}")


if __name__ == "__main__":
    main()

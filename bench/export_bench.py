"""Benchmark: export 10,000 items to an Anki package (target <= 10 s).

Generates a synthetic vault with H2's ``bench/synthetic_vault.py`` (every
StaffML field, 2.5-4 KB an item), then times ``export_vault`` for each
format. The ``.apkg`` time includes loading and validating the vault, which
is part of what a user waits for.

Usage: ``python bench/export_bench.py [COUNT] [--repeat N]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
import tracemalloc
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from synthetic_vault import generate_vault  # noqa: E402

from sysdrill.content.loader import load_vault  # noqa: E402
from sysdrill.interop.export import ExportFormat, export_vault  # noqa: E402

TARGET_APKG_SECONDS = 10.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("count", nargs="?", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    now = datetime(2026, 11, 21, tzinfo=UTC)
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "vault"
        generate_vault(root, args.count, seed=0)
        start = time.perf_counter()
        items = len(load_vault(root).items)
        load_s = time.perf_counter() - start
        print(f"vault: {items} valid items; load_vault alone {load_s:.2f} s")
        apkg_s = apkg_cpu_s = 0.0
        for fmt in ExportFormat:
            out = Path(folder) / f"out.{fmt.value}"
            times, cpu_times = [], []
            for _ in range(args.repeat):
                start, cpu_start = time.perf_counter(), time.process_time()
                report = export_vault(root, format=fmt, out=out, now=now)
                times.append(time.perf_counter() - start)
                cpu_times.append(time.process_time() - cpu_start)
            median, cpu_median = statistics.median(times), statistics.median(cpu_times)
            if fmt == ExportFormat.APKG:
                apkg_s, apkg_cpu_s = median, cpu_median
            print(
                f"{fmt.value:13s} {report.items} items  wall median {median:.2f} s "
                f"(min {min(times):.2f}, max {max(times):.2f}, n={args.repeat})  "
                f"CPU median {cpu_median:.2f} s  {report.size_bytes / 1_048_576:.1f} MiB"
            )
        cache = Path(folder) / "cache"
        export_vault(
            root, format=ExportFormat.APKG, out=Path(folder) / "w.apkg", now=now, cache_dir=cache
        )
        warm, warm_cpu = [], []
        for _ in range(args.repeat):
            start, cpu_start = time.perf_counter(), time.process_time()
            export_vault(
                root,
                format=ExportFormat.APKG,
                out=Path(folder) / "w.apkg",
                now=now,
                cache_dir=cache,
            )
            warm.append(time.perf_counter() - start)
            warm_cpu.append(time.process_time() - cpu_start)
        print(
            f"apkg, warm load cache: wall median {statistics.median(warm):.2f} s "
            f"(min {min(warm):.2f}), CPU median {statistics.median(warm_cpu):.2f} s"
        )
        tracemalloc.start()
        export_vault(root, format=ExportFormat.APKG, out=Path(folder) / "m.apkg", now=now)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        print(f"apkg peak traced memory: {peak / 1_048_576:.0f} MiB")
        # Other processes on a shared machine stretch wall time; CPU time does not.
        load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
        print(f"load average during the run: {load} (on {os.cpu_count()} cores)")
        verdict = "PASS" if apkg_s <= TARGET_APKG_SECONDS else "FAIL"
        print(
            f"apkg target <= {TARGET_APKG_SECONDS:.0f} s: {verdict} "
            f"(wall {apkg_s:.2f} s, CPU {apkg_cpu_s:.2f} s)"
        )


if __name__ == "__main__":
    main()

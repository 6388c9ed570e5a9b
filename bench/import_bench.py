"""Import speed: the 89-card flashcard deck and the 20-question quiz, each <= 1 s.

Each seed is imported into a fresh temporary vault, five times, through the
library (``import_source``: detect, parse, validate, audit, write) and through
the ``sysdrill import`` command in a new process (start-up included). A
re-import of the same source (nothing to write) is timed too.

With ``--fidelity`` it times nothing: it reads the hand-written Mochi, CrowdAnki
and Markdown-notes fixtures of ``tests/interop/data`` and prints, per source, the
precision and recall of the cards recovered (deck, front and back all equal to
the expected card).

Usage: .venv/bin/python bench/import_bench.py [--seeds ../shared/seeds] [--repeat 5]
       .venv/bin/python bench/import_bench.py --fidelity
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SEEDS = {
    "flashcards (89 cards)": "004_8c6267489fed25a8.txt",
    "quiz (20 questions)": "002_150ee555f9dec9d2.txt",
}
TARGET_S = 1.0


def _time_library(
    source: Path, repeat: int, *, audit: bool
) -> tuple[list[float], list[float], int]:
    from sysdrill.interop.importer import import_source

    first: list[float] = []
    again: list[float] = []
    count = 0
    for _ in range(repeat):
        with tempfile.TemporaryDirectory() as scratch:
            vault = Path(scratch) / "vault"
            start = time.perf_counter()
            report = import_source(source, into=vault, audit=audit, now=datetime.now(UTC))
            first.append(time.perf_counter() - start)
            count = len(report.added)
            start = time.perf_counter()
            import_source(source, into=vault, audit=audit, now=datetime.now(UTC))
            again.append(time.perf_counter() - start)
    return first, again, count


def _time_cli(source: Path | None, repeat: int, *flags: str) -> list[float]:
    """Wall time of `sysdrill import` processes (`sysdrill --version` when source is None)."""
    command = ROOT / ".venv" / "bin" / "sysdrill"
    runs: list[float] = []
    for _ in range(repeat):
        with tempfile.TemporaryDirectory() as scratch:
            args = ["--version"]
            if source is not None:
                args = ["import", str(source), "--into", str(Path(scratch) / "v"), *flags]
            start = time.perf_counter()
            done = subprocess.run(
                [str(command), *args],
                capture_output=True,
                text=True,
            )
            if done.returncode != 0:
                tail = done.stderr.strip().splitlines()[-1:] or ["no output"]
                raise SystemExit(f"`sysdrill import` failed: {tail[0]}")
            runs.append(time.perf_counter() - start)
    return runs


def _fidelity() -> int:
    """Print precision and recall of the cards each new-source fixture gives back."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "interop_fixtures", ROOT / "tests" / "interop" / "conftest.py"
    )
    if spec is None or spec.loader is None:
        raise SystemExit("cannot load tests/interop/conftest.py")
    fixtures = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fixtures)
    from sysdrill.interop.importer import parse_source

    with tempfile.TemporaryDirectory() as scratch:
        for label, (fmt, source, expected) in fixtures.card_fixtures(Path(scratch)).items():
            parsed = parse_source(source)
            precision, recall, unexpected, missed = fixtures.card_scores(parsed, expected)
            print(
                f"{label}: detected as {parsed.format} (expected {fmt}), "
                f"{len(parsed.items)} cards, precision {precision:.3f}, recall {recall:.3f}"
            )
            for card in unexpected:
                print(f"  unexpected: {card}")
            for card in missed:
                print(f"  missed: {card}")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=Path, default=ROOT.parent / "shared" / "seeds")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument(
        "--fidelity", action="store_true", help="print card precision/recall, time nothing"
    )
    args = parser.parse_args()
    if args.fidelity:
        return _fidelity()
    failed = False
    print(f"import benchmark: {args.repeat} runs each, target <= {TARGET_S:.1f} s")
    startup = _time_cli(None, args.repeat)
    print(
        f"`sysdrill --version` process (CLI start-up alone): median "
        f"{statistics.median(startup) * 1000:.0f} ms, min {min(startup) * 1000:.0f} ms"
    )
    for label, name in SEEDS.items():
        source = args.seeds / name
        plain, again, count = _time_library(source, args.repeat, audit=False)
        audited, _, _ = _time_library(source, args.repeat, audit=True)
        cli = _time_cli(source, args.repeat, "--no-audit")
        cli_audit = _time_cli(source, args.repeat)
        # The target is the import's own work; the CLI start-up is measured apart.
        worst = max(statistics.median(plain), statistics.median(audited))
        failed |= worst > TARGET_S
        print(f"{label}: {count} items")
        for what, runs in (
            ("library import (parse, validate, write)", plain),
            ("library re-import (all unchanged)", again),
            ("library import + check audit", audited),
            ("`sysdrill import --no-audit` process", cli),
            ("`sysdrill import` process (with audit)", cli_audit),
        ):
            print(
                f"  {what}: median {statistics.median(runs) * 1000:.0f} ms, "
                f"min {min(runs) * 1000:.0f} ms, max {max(runs) * 1000:.0f} ms"
            )
        print(f"  target <= {TARGET_S:.1f} s: {'OK' if worst <= TARGET_S else 'TOO SLOW'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

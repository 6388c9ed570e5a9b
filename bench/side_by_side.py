"""Run ``web_load.py`` on two checkouts at the same time, to compare code on a noisy host.

This host's speed swings up to twofold within minutes, so two runs one after the
other compare the host's phases as much as the code. Run side by side, both
servers (each with its own PostgreSQL cluster and load generator) share the same
minutes and the same cores: each uses more CPU per request than alone, but the
two figures compare. Each round starts the other checkout first (the second
starts a few seconds later, each with a PostgreSQL port of its own).

    python bench/side_by_side.py /work/wt/base /work/main --rounds 3 --seconds 25 \\
        -- --users 4 --workers 1 --ramp 1

prints, per round, throughput, p99 and the server's and PostgreSQL's CPU per
request of each checkout, then the geometric mean of the ratios of B to A. The
checkout started second runs alone for the last seconds of its run, which favours
it by some percent: with an even number of rounds each starts second as often, and
the mean cancels that out.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
STAGGER_S = 4.0
"""Seconds between the two starts."""
FIRST_POSTGRES_PORT = 25460
"""The first run's cluster port; the second's is ten above (web_load.py skips taken ones)."""


@dataclass(frozen=True)
class Figures:
    reviews_per_s: float
    p99_ms: float
    errors: int
    lost: int
    server_ms: float
    """Server CPU per request, ms."""
    postgres_ms: float
    """PostgreSQL's CPU per request, ms."""


def _number(pattern: str, text: str) -> float:
    found = re.search(pattern, text)
    if found is None:
        raise SystemExit(f"Error: web_load.py printed no figure for {pattern!r}:\n{text[-2000:]}")
    return float(found.group(1))


def figures_of(text: str) -> Figures:
    """The figures of one ``web_load.py --only postgresql`` report."""
    requests = _number(r"requests (\d+) in", text)
    return Figures(
        reviews_per_s=_number(r"throughput\s+([\d.]+)", text),
        p99_ms=_number(r"every request p50\s+[\d.]+ ms\s+p99\s+([\d.]+)", text),
        errors=int(_number(r"errors (\d+)", text)),
        lost=int(_number(r"\(lost\) (\d+)", text)),
        server_ms=1000 * _number(r"server ([\d.]+) s", text) / requests,
        postgres_ms=1000 * _number(r"postgresql ([\d.]+) s", text) / requests,
    )


def _start(
    checkout: Path, extra: list[str], seconds: int, postgres_port: int
) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(checkout / "src")}
    command = [
        sys.executable,
        str(HERE / "web_load.py"),
        "--only",
        "postgresql",
        "--seconds",
        str(seconds),
        # Ports of their own: a slow initdb left the first's port free when the second looked.
        "--postgres-port",
        str(postgres_port),
        *extra,
    ]
    return subprocess.Popen(
        command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )


def one_round(
    a: Path, b: Path, extra: list[str], seconds: int, *, a_first: bool
) -> tuple[Figures, Figures, str]:
    """Both checkouts under load at once; their figures and both reports."""
    order = [a, b] if a_first else [b, a]
    first = _start(order[0], extra, seconds, FIRST_POSTGRES_PORT)
    time.sleep(STAGGER_S)
    second = _start(order[1], extra, seconds, FIRST_POSTGRES_PORT + 10)
    out_first, _ = first.communicate()
    out_second, _ = second.communicate()
    out_a, out_b = (out_first, out_second) if a_first else (out_second, out_first)
    return figures_of(out_a), figures_of(out_b), f"== A {a}\n{out_a}\n== B {b}\n{out_b}\n"


def _line(name: str, f: Figures) -> str:
    return (
        f"  {name}: {f.reviews_per_s:6.1f} reviews/s  p99 {f.p99_ms:6.1f} ms  "
        f"server {f.server_ms:.3f} ms/request  postgresql {f.postgres_ms:.3f} ms/request  "
        f"errors {f.errors}  lost {f.lost}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("a", type=Path, help="checkout A (its src/ is put on PYTHONPATH)")
    parser.add_argument("b", type=Path, help="checkout B")
    parser.add_argument("--rounds", type=int, default=4, help="an even number (default 4)")
    parser.add_argument("--seconds", type=int, default=25, help="load per run (default 25)")
    parser.add_argument("--log", type=Path, help="write both reports of every round here")
    argv = sys.argv[1:]
    split = argv.index("--") if "--" in argv else len(argv)
    args = parser.parse_args(argv[:split])
    args.extra = argv[split + 1 :]  # for web_load.py
    for checkout in (args.a, args.b):
        if not (checkout / "src" / "sysdrill").is_dir():
            raise SystemExit(f"Error: {checkout} holds no src/sysdrill; give a checkout's folder.")
    ratios: dict[str, list[float]] = {"reviews/s": [], "server CPU": [], "postgresql CPU": []}
    logs = []
    print(f"A = {args.a}\nB = {args.b}\n{args.seconds} s a run, {' '.join(args.extra)}")
    for n in range(args.rounds):
        fa, fb, log = one_round(args.a, args.b, args.extra, args.seconds, a_first=n % 2 == 0)
        logs.append(log)
        print(f"round {n + 1} ({'A' if n % 2 == 0 else 'B'} started first)")
        print(_line("A", fa))
        print(_line("B", fb))
        ratios["reviews/s"].append(fb.reviews_per_s / fa.reviews_per_s)
        ratios["server CPU"].append(fb.server_ms / fa.server_ms)
        ratios["postgresql CPU"].append(fb.postgres_ms / fa.postgres_ms)
    for name, values in ratios.items():
        shown = ", ".join(f"{value:.3f}" for value in values)
        print(f"B / A {name}: geometric mean {statistics.geometric_mean(values):.3f} ({shown})")
    if args.log is not None:
        args.log.write_text("".join(logs), encoding="utf-8")


if __name__ == "__main__":
    main()

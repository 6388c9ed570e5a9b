"""Benchmark the vault pipeline on a synthetic vault of StaffML size.

Generates 10,711 items (``bench/synthetic_vault.py``; by default in the
``real`` style of issue 11: about 3.7 KB an item, napkin math of 10-20 claims
mixing units, rates, bold, code and some LaTeX, every claim correct;
``--style classic`` gives the earlier 2.5-3.6 KB items with about 3 simple
claims), then times, each in a fresh child process so every run starts cold
and its peak memory is its own:

- cold ``check`` with the napkin tier: :func:`sysdrill.check.run_check` with an
  empty cache (as the CLI calls it, which uses the cache folder
  ``SYSDRILL_CACHE_DIR``); the findings it reports are counted, and any napkin
  finding is a false alarm, since every generated claim holds;
- the libyaml C loader alone over the same files
  (``yaml.load(..., Loader=yaml.CSafeLoader)``), run alternately with the cold
  check so both see the same machine load;
- warm ``check`` with nothing changed;
- cold ``build``: :func:`sysdrill.app.build.build_vault` with no previous
  database and an empty check cache (it audits the vault in a child process
  while it compiles), and the compilation alone (``check=False``);
- ``build`` after ``check``: the usual sequence, check cache warm, no database;
- warm ``check`` + ``build`` with nothing changed;
- an incremental build after editing one file;
- the baseline: the same files read with pure-Python PyYAML (``yaml.SafeLoader``,
  no libyaml) and validated with the same models.

Each figure is the operation's own time inside the child (best and median of
``--repeat`` runs); the ``sysdrill`` command lines are also timed end to end,
interpreter start-up included. Peak memory is the child's maximum resident set
size (``os.wait4`` rusage). Targets (2 cores): cold check <= 2.5 s or at most
twice the libyaml-only load of the same run (issue 11), warm check <= 0.5 s,
cold build <= 4 s, warm check + build <= 0.5 s, peak memory <= 400 MB.

Usage: ``python bench/vault_bench.py [--count N] [--repeat R] [--vault DIR]
[--style real|classic] [--check-only]``; ``--check-only`` times the check
stages alone (cold, libyaml, warm).
The "CPU s" column is the child's own CPU time (user + system), start-up
included (and that of its children, such as the check's worker process); on
a shared machine it is the steadier figure.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from synthetic_vault import STYLES, generate_vault  # noqa: E402

_PRELUDE = """
import json, sys, time
from datetime import UTC, datetime
from pathlib import Path
root, out, cache = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])
"""

SNIPPETS: dict[str, str] = {
    "check": """
from sysdrill.check import run_check
start = time.perf_counter()
report = run_check(root, cache_dir=cache)
seconds = time.perf_counter() - start
napkin = [f for f in report.findings if f.code.startswith("napkin-")]
assert report.counts["error"] == len([f for f in napkin if f.severity.value == "error"]), [
    f for f in report.findings if not f.code.startswith("napkin-")
][:3]
extra = {"findings": len(report.findings), "napkin": len(napkin),
         "first": [f"{f.path}:{f.line} {f.code} {f.message}" for f in napkin[:3]]}
""",
    "libyaml": """
import yaml
start = time.perf_counter()
files = sorted((root / "questions").rglob("*.yaml"))
documents = [yaml.load(p.read_bytes(), Loader=yaml.CSafeLoader) for p in files]
seconds = time.perf_counter() - start
assert len(documents) == len(files)
""",
    "build": """
from sysdrill.app.build import build_vault
start = time.perf_counter()
report = build_vault(root, out, now=datetime.now(UTC), cache_dir=cache)
seconds = time.perf_counter() - start
assert report.items > 0
""",
    "compile": """
from sysdrill.app.build import build_vault
start = time.perf_counter()
report = build_vault(root, out, now=datetime.now(UTC), check=False)
seconds = time.perf_counter() - start
assert report.items > 0
""",
    "check+build": """
from sysdrill.check import run_check
from sysdrill.app.build import build_vault
start = time.perf_counter()
run_check(root, cache_dir=cache)
report = build_vault(root, out, now=datetime.now(UTC), cache_dir=cache)
seconds = time.perf_counter() - start
""",
    "baseline": """
import yaml
from sysdrill.content.models import validate_item
start = time.perf_counter()
files = sorted((root / "questions").rglob("*.yaml"))
items = [validate_item(yaml.load(p.read_text("utf-8"), Loader=yaml.SafeLoader)) for p in files]
seconds = time.perf_counter() - start
assert len(items) == len(files)
""",
}


Run = tuple[float, float, float, float]
"""One child process: (operation s, process wall s, process CPU s, peak MB)."""

EXTRAS: dict[str, dict[str, object]] = {}
"""Per snippet, the ``extra`` figures its last run printed (the check's finding counts)."""

_EPILOGUE = """
print(json.dumps({"seconds": seconds, "extra": globals().get("extra", {})}))
"""


def run_child(name: str, root: Path, out: Path, cache: Path) -> Run:
    """Run one snippet in a fresh interpreter."""
    code = _PRELUDE + SNIPPETS[name] + _EPILOGUE
    command = [sys.executable, "-c", code, str(root), str(out), str(cache)]
    run, extra = _measure(command, parse=True)
    if extra:
        EXTRAS[name] = extra
    return run


def run_cli(args: list[str]) -> Run:
    """Run a ``sysdrill`` command line (the operation time is the process wall time)."""
    command = [sys.executable, "-m", "sysdrill", *args]
    return _measure(command, parse=False)[0]


def _measure(command: list[str], *, parse: bool) -> tuple[Run, dict[str, object]]:
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdout is not None and process.stderr is not None
    out = process.stdout.read()
    err = process.stderr.read()
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise SystemExit(f"{' '.join(command[:4])} failed:\n{err.decode()[-2000:]}")
    peak_mb = usage.ru_maxrss / 1024  # Linux reports kilobytes
    cpu = usage.ru_utime + usage.ru_stime
    printed = json.loads(out.decode().strip().splitlines()[-1]) if parse else {}
    seconds = printed["seconds"] if parse else wall
    return (seconds, wall, cpu, peak_mb), printed.get("extra", {})


def _fresh(base: Path, label: str) -> Path:
    folder = Path(tempfile.mkdtemp(prefix=f"{label}-", dir=base))
    return folder


def _summary(runs: list[Run]) -> dict[str, float]:
    ops = [r[0] for r in runs]
    return {
        "best_s": min(ops),
        "median_s": statistics.median(ops),
        "process_s": min(r[1] for r in runs),
        "cpu_s": min(r[2] for r in runs),
        "peak_mb": max(r[3] for r in runs),
    }


def bench_check(root: Path, work: Path, repeat: int) -> dict[str, dict[str, float]]:
    """Time cold check, the libyaml-only load (alternately) and warm check."""
    cold_check: list[Run] = []
    libyaml: list[Run] = []
    for _ in range(repeat):
        folder = _fresh(work, "c")
        cold_check.append(run_child("check", root, work / "unused.db", folder / "cache"))
        libyaml.append(run_child("libyaml", root, work / "unused.db", work))
    warm = [run_child("check", root, work / "unused.db", folder / "cache") for _ in range(repeat)]
    return {
        "cold check": _summary(cold_check),
        "libyaml C loader alone (same files)": _summary(libyaml),
        "warm check": _summary(warm),
    }


def bench(root: Path, work: Path, repeat: int) -> dict[str, dict[str, float]]:
    """Time every stage; returns stage -> figures."""
    results = bench_check(root, work, repeat)

    cold_build = []
    for _ in range(repeat):
        folder = _fresh(work, "b")
        cold_build.append(run_child("build", root, folder / "vault.db", folder / "cache"))
    results["cold build"] = _summary(cold_build)
    print(f"compiled vault.db: {(folder / 'vault.db').stat().st_size / 1e6:.0f} MB")

    compile_only = []
    for _ in range(repeat):
        folder = _fresh(work, "p")
        compile_only.append(run_child("compile", root, folder / "vault.db", folder / "cache"))
    results["cold build, compile only (no audit)"] = _summary(compile_only)

    after_check = []
    for _ in range(repeat):
        folder = _fresh(work, "a")
        run_child("check", root, folder / "unused.db", folder / "cache")
        after_check.append(run_child("build", root, folder / "vault.db", folder / "cache"))
    results["build after check"] = _summary(after_check)

    # Warm: the last folder has a checked cache and an up-to-date database.
    warm = [
        run_child("check+build", root, folder / "vault.db", folder / "cache") for _ in range(repeat)
    ]
    results["warm check + build"] = _summary(warm)

    env_cache = folder / "cache"
    os.environ["SYSDRILL_CACHE_DIR"] = str(env_cache)
    cli_check = [run_cli(["check", str(root)]) for _ in range(repeat)]
    cli_build = [
        run_cli(["build", str(root), "--out", str(folder / "vault.db")]) for _ in range(repeat)
    ]
    results["warm `sysdrill check` (process)"] = _summary(cli_check)
    results["warm `sysdrill build` (process)"] = _summary(cli_build)

    one = sorted((root / "questions").rglob("*.yaml"))[len(cli_check)]
    original = one.read_bytes()
    incremental = []
    try:
        for n in range(repeat):
            one.write_bytes(original + f"# edit {n}\n".encode())
            incremental.append(run_child("build", root, folder / "vault.db", folder / "cache"))
    finally:
        one.write_bytes(original)
    results["build after editing one file"] = _summary(incremental)

    results["baseline: pure-Python PyYAML + models"] = _summary(
        [run_child("baseline", root, work / "unused.db", work)]
    )
    return results


def main() -> None:
    """Generate the vault, run the benchmark, print figures, ratios and targets."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=10711, help="items to generate")
    parser.add_argument("--seed", type=int, default=0, help="generator seed")
    parser.add_argument("--repeat", type=int, default=3, help="runs per stage")
    parser.add_argument(
        "--vault", type=Path, help="use (or create) this synthetic vault instead of a temporary one"
    )
    parser.add_argument("--style", choices=STYLES, default="real", help="item style to generate")
    parser.add_argument("--check-only", action="store_true", help="time the check stages only")
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="sysdrill-vault-bench-"))
    try:
        root = args.vault.resolve() if args.vault else work / "vault"
        started = time.perf_counter()
        stats = None
        if not (root / "questions").is_dir():
            stats = generate_vault(root, args.count, seed=args.seed, style=args.style)
        files = sorted((root / "questions").rglob("*.yaml"))
        sizes = [p.stat().st_size for p in files]
        print(
            f"Vault of {len(files)} items ready in {time.perf_counter() - started:.1f} s "
            f"({min(sizes)}-{max(sizes)} bytes, mean {statistics.mean(sizes) / 1e3:.2f} KB, "
            f"{sum(sizes) / 1e6:.1f} MB); "
            f"{os.cpu_count()} CPUs, Python {sys.version.split()[0]}"
        )
        if stats is not None:
            print(
                f"{args.style} style: {stats.claims} claims written "
                f"({stats.claims / len(files):.1f} an item), "
                f"{stats.latex_lines} of them in LaTeX "
                f"({stats.latex_lines / stats.napkin_lines:.1%} of napkin lines)"
            )
        results = (bench_check if args.check_only else bench)(root, work, args.repeat)
        width = max(len(name) for name in results)
        print(
            f"\n{'stage':<{width}}  {'best s':>7}  {'median s':>8}  "
            f"{'process s':>9}  {'CPU s':>6}  {'peak MB':>7}"
        )
        for name, figures in results.items():
            print(
                f"{name:<{width}}  {figures['best_s']:>7.2f}  {figures['median_s']:>8.2f}  "
                f"{figures['process_s']:>9.2f}  {figures['cpu_s']:>6.2f}  "
                f"{figures['peak_mb']:>7.0f}"
            )
        _print_verdicts(results)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _print_verdicts(results: dict[str, dict[str, float]]) -> None:
    check = results["cold check"]["best_s"]
    libyaml = results["libyaml C loader alone (same files)"]["best_s"]
    warm_check = results["warm check"]["best_s"]
    found = EXTRAS.get("check", {})
    print(
        f"\ncold check reports {found.get('findings')} findings, "
        f"{found.get('napkin')} of them napkin findings (every claim holds: "
        "each napkin finding is a false alarm)"
    )
    for line in found.get("first") or []:  # type: ignore[attr-defined]
        print(f"  {line}")
    ratio = check / libyaml
    verdict = "meets" if check <= 2.5 or ratio <= 2 else "MISSES"
    print(
        f"cold check: {check:.2f} s, {ratio:.1f}x the libyaml-only load ({libyaml:.2f} s): "
        f"{verdict} the target (<= 2.5 s or <= 2x libyaml)"
    )
    check_cpu = results["cold check"]["cpu_s"]
    libyaml_cpu = results["libyaml C loader alone (same files)"]["cpu_s"]
    print(
        f"CPU (steadier on a busy machine; start-up included): cold check {check_cpu:.2f} s "
        f"over its 2 processes, libyaml {libyaml_cpu:.2f} s; half the check's CPU is "
        f"{check_cpu / 2 / libyaml_cpu:.1f}x the libyaml CPU"
    )
    targets = [("warm check", warm_check, 0.5, "s")]
    if "cold build" in results:
        base = results["baseline: pure-Python PyYAML + models"]["best_s"]
        build = results["cold build"]["best_s"]
        print(
            f"baseline / cold check: {base / check:.1f}x   "
            f"baseline / cold build: {base / build:.1f}x"
        )
        peak = max(f["peak_mb"] for n, f in results.items() if not n.startswith("baseline"))
        targets += [
            ("cold build", build, 4.0, "s"),
            ("warm check + build", results["warm check + build"]["best_s"], 0.5, "s"),
            ("peak memory", peak, 400, "MB"),
        ]
    for label, value, target, unit in targets:
        verdict = "meets" if value <= target else "MISSES"
        print(f"{label}: {value:.2f} {unit} {verdict} the target of {target:g} {unit}")


if __name__ == "__main__":
    main()

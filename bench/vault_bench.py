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

With ``--real`` (issue 27) the vault is not generated: ``bench/real_copies.py``
copies the real StaffML question files of ``../shared/realdata`` round after round
into a temporary folder (or ``--vault``), each copy with a new id and every number
unchanged, since real claims cost the napkin tier several times what generated ones
do. Only the check stages run, and the targets are issue 27's: cold check at most
twice the libyaml-only load of the same run, warm check at most 0.5 s, judged both
in process and as a whole ``sysdrill check`` process (what a user waits for).
Copies repeat each real line 27 times and the napkin tier keeps what it judged of
a line, so a last pair times each real file once, in one process, against its
libyaml load: the cost a vault of distinct real files would show.

Usage: ``python bench/vault_bench.py [--count N] [--repeat R] [--vault DIR]
[--style real|classic] [--check-only] [--real]``; ``--check-only`` times the check
stages alone (cold, libyaml, warm, and cold and warm ``sysdrill check`` processes).
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

from real_copies import copy_real_vault, real_vault_dir  # noqa: E402
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
others = [f for f in report.findings if not f.code.startswith("napkin-")]
extra = {"findings": len(report.findings), "napkin": len(napkin), "counts": report.counts,
         "napkin_errors": len([f for f in napkin if f.severity.value == "error"]),
         "first": [f"{f.path}:{f.line} {f.code} {f.message}" for f in napkin[:3]],
         "first_other": [f"{f.path}:{f.line} {f.code} {f.message}" for f in others[:3]]}
""",
    "check, one process": """
from sysdrill.check import run_check
start = time.perf_counter()
report = run_check(root, workers=1)
seconds = time.perf_counter() - start
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

COLD_CLI = "cold `sysdrill check` (process)"
WARM_CLI = "warm `sysdrill check` (process)"

CHILD_ENV: dict[str, str] = dict(os.environ)
"""The environment of every child process (see :func:`keep_bytecode`)."""

PAIRED_RATIOS: list[float] = []
"""Cold check over the libyaml-only load, run by run (each pair ran back to back)."""

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


def run_cli(args: list[str], *, cache: Path | None = None) -> Run:
    """Run a ``sysdrill`` command line (the operation time is the process wall time).

    ``cache`` becomes its ``SYSDRILL_CACHE_DIR``. Exit status 1 (findings that fail
    ``check``) counts as a run; only misuse or a crash stops the bench.
    """
    command = [sys.executable, "-m", "sysdrill", *args]
    env = CHILD_ENV if cache is None else {**CHILD_ENV, "SYSDRILL_CACHE_DIR": str(cache)}
    return _measure(command, parse=False, env=env, passing=(0, 1))[0]


def keep_bytecode(work: Path) -> bool:
    """Let the children keep compiled modules, as an installed sysdrill does.

    A host with ``PYTHONDONTWRITEBYTECODE`` set compiles every module from source
    in each process (about 0.1 s of a ``sysdrill`` command here), which no user
    who installed sysdrill pays. The children then keep bytecode in a folder of
    ``work`` (``PYTHONPYCACHEPREFIX``), never beside the sources. Returns whether
    the setting had to be overridden.
    """
    if not os.environ.get("PYTHONDONTWRITEBYTECODE"):
        return False
    CHILD_ENV.pop("PYTHONDONTWRITEBYTECODE", None)
    CHILD_ENV["PYTHONPYCACHEPREFIX"] = str(work / "pycache")
    return True


def _measure(
    command: list[str],
    *,
    parse: bool,
    env: dict[str, str] | None = None,
    passing: tuple[int, ...] = (0,),
) -> tuple[Run, dict[str, object]]:
    started = time.perf_counter()
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env or CHILD_ENV
    )
    assert process.stdout is not None and process.stderr is not None
    out = process.stdout.read()
    err = process.stderr.read()
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode not in passing:
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
    """Time cold check, the libyaml-only load (alternately) and warm check.

    Then the same as a user runs them: whole ``sysdrill check`` processes, cold (a
    new cache folder each) and warm (the last one's cache, nothing changed).
    """
    cold_check: list[Run] = []
    libyaml: list[Run] = []
    for _ in range(repeat):
        folder = _fresh(work, "c")
        cold_check.append(run_child("check", root, work / "unused.db", folder / "cache"))
        libyaml.append(run_child("libyaml", root, work / "unused.db", work))
        PAIRED_RATIOS.append(cold_check[-1][0] / libyaml[-1][0])
    warm = [run_child("check", root, work / "unused.db", folder / "cache") for _ in range(repeat)]
    cold_cli = []
    for _ in range(repeat):
        folder = _fresh(work, "k")
        cold_cli.append(run_cli(["check", str(root)], cache=folder / "cache"))
    warm_cli = [run_cli(["check", str(root)], cache=folder / "cache") for _ in range(repeat)]
    return {
        "cold check": _summary(cold_check),
        "libyaml C loader alone (same files)": _summary(libyaml),
        "warm check": _summary(warm),
        COLD_CLI: _summary(cold_cli),
        WARM_CLI: _summary(warm_cli),
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
    cli_check = [run_cli(["check", str(root)], cache=env_cache) for _ in range(repeat)]
    cli_build = [
        run_cli(["build", str(root), "--out", str(folder / "vault.db")], cache=env_cache)
        for _ in range(repeat)
    ]
    results["warm `sysdrill check` after build (process)"] = _summary(cli_check)
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
    """Make the vault, run the benchmark, print figures, ratios and targets."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=10711, help="items to generate")
    parser.add_argument("--seed", type=int, default=0, help="generator seed")
    parser.add_argument("--repeat", type=int, default=3, help="runs per stage")
    parser.add_argument(
        "--vault", type=Path, help="use (or create) this vault instead of a temporary one"
    )
    parser.add_argument("--style", choices=STYLES, default="real", help="item style to generate")
    parser.add_argument("--check-only", action="store_true", help="time the check stages only")
    parser.add_argument(
        "--real",
        action="store_true",
        help="copy the real StaffML files (../shared/realdata) with new ids instead of "
        "generating items; times the check stages only",
    )
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="sysdrill-vault-bench-"))
    try:
        root = args.vault.resolve() if args.vault else work / "vault"
        started = time.perf_counter()
        made = None
        if not (root / "questions").is_dir():
            made = _make_vault(root, args)
        files = sorted((root / "questions").rglob("*.yaml"))
        sizes = [p.stat().st_size for p in files]
        print(
            f"Vault of {len(files)} items ready in {time.perf_counter() - started:.1f} s "
            f"({min(sizes)}-{max(sizes)} bytes, mean {statistics.mean(sizes) / 1e3:.2f} KB, "
            f"{sum(sizes) / 1e6:.1f} MB); "
            f"{os.cpu_count()} CPUs, Python {sys.version.split()[0]}, "
            f"load average {os.getloadavg()[0]:.1f}"
        )
        if made:
            print(made)
        if keep_bytecode(work):
            print(
                "PYTHONDONTWRITEBYTECODE is set here: the children keep bytecode in a "
                "temporary folder instead, as an installed sysdrill would"
            )
        run_cli(["check", str(root)], cache=work / "warm-up")  # compiles, fills the OS cache
        check_only = args.check_only or args.real
        results = (bench_check if check_only else bench)(root, work, args.repeat)
        if args.real:
            results |= bench_distinct(real_vault_dir(), work, args.repeat)
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
        print(f"load average after the runs: {os.getloadavg()[0]:.1f}")
        (_print_real_verdicts if args.real else _print_verdicts)(results)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _make_vault(root: Path, args: argparse.Namespace) -> str:
    """Write the vault the options ask for; returns a line saying what it holds."""
    if args.real:
        source = real_vault_dir()
        if not (source / "questions").is_dir():
            raise SystemExit(
                f"Error: no real StaffML vault at {source}; put ../shared/realdata next to "
                "the repository or set SYSDRILL_REALDATA to its staffml folder."
            )
        copied = copy_real_vault(root, args.count, source=source)
        return (
            f"copies of {copied.sources} real StaffML files ({source}) in {copied.rounds} "
            "rounds, new ids, every other byte unchanged"
        )
    stats = generate_vault(root, args.count, seed=args.seed, style=args.style)
    return (
        f"{args.style} style: {stats.claims} claims written "
        f"({stats.claims / args.count:.1f} an item), "
        f"{stats.latex_lines} of them in LaTeX "
        f"({stats.latex_lines / stats.napkin_lines:.1%} of napkin lines)"
    )


DISTINCT_CHECK = "distinct files: cold check, one process"
DISTINCT_LIBYAML = "distinct files: libyaml C loader alone"


def bench_distinct(real: Path, work: Path, repeat: int) -> dict[str, dict[str, float]]:
    """Time a check of the real files once each (one process) and their libyaml load.

    Copies repeat every line 27 times, and the napkin tier keeps each line it
    judged, so on copies most lines are judged once for all copies. A vault of
    distinct files gets no such help: this pair shows its cost per file.
    """
    root = work / "distinct"
    copy_real_vault(root, sum(1 for _ in (real / "questions").rglob("*.yaml")), source=real)
    check: list[Run] = []
    libyaml: list[Run] = []
    for _ in range(repeat):
        check.append(run_child("check, one process", root, work / "unused.db", work))
        libyaml.append(run_child("libyaml", root, work / "unused.db", work))
    return {DISTINCT_CHECK: _summary(check), DISTINCT_LIBYAML: _summary(libyaml)}


def _print_real_verdicts(results: dict[str, dict[str, float]]) -> None:
    """Issue 27's targets on copies of the real set: cold <= 2x libyaml, warm <= 0.5 s."""
    found = EXTRAS.get("check", {})
    print(f"\ncheck reports {found.get('findings')} findings {found.get('counts')}")
    check = results["cold check"]["best_s"]
    libyaml = results["libyaml C loader alone (same files)"]["best_s"]
    ratio = check / libyaml
    paired = statistics.median(PAIRED_RATIOS) if PAIRED_RATIOS else ratio
    verdict = "meets" if ratio <= 2 else "MISSES"
    print(
        f"cold check: best {check:.2f} s, {ratio:.2f}x the libyaml-only load's best "
        f"({libyaml:.2f} s), median of the {len(PAIRED_RATIOS)} alternate pairs "
        f"{paired:.2f}x: {verdict} the target (<= 2x libyaml)"
    )
    cold_cpu = results["cold check"]["cpu_s"]
    libyaml_cpu = results["libyaml C loader alone (same files)"]["cpu_s"]
    print(
        f"CPU (start-up included): cold check {cold_cpu:.2f} s over its 2 processes, "
        f"libyaml {libyaml_cpu:.2f} s"
    )
    distinct = results[DISTINCT_CHECK]["best_s"] / results[DISTINCT_LIBYAML]["best_s"]
    print(
        f"distinct files (each real file once, one process): check {distinct:.2f}x the "
        f"libyaml-only load; over 2 processes about {distinct / 2:.2f}x, what a vault of "
        "10,711 distinct files of this kind would show (copies share judged lines)"
    )
    for label, value in (
        ("warm check, in process", results["warm check"]["best_s"]),
        ("warm `sysdrill check`, whole process", results[WARM_CLI]["best_s"]),
    ):
        verdict = "meets" if value <= 0.5 else "MISSES"
        print(f"{label}: best {value:.2f} s: {verdict} the target of 0.5 s")


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
    counts = found.get("counts") or {}
    if counts and counts["error"] != found.get("napkin_errors"):  # type: ignore[index]
        print("ERRORS outside the napkin tier (the generated vault should have none):")
        for line in found.get("first_other") or []:  # type: ignore[attr-defined]
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

"""Where a cold ``check`` spends its CPU on real-sized items: load, item rules, napkin tier.

Generates (or reuses, with ``--vault``) the real-style synthetic vault of
``bench/synthetic_vault.py --style real`` and, in this one process, with no
cache and no worker, times each part of the audit over every file in turn:

- load: ``read_item_file`` (read, hash, parse with the fast YAML road, validate);
- item rules: every rule of ``ITEM_CHECKS``;
- napkin tier: ``napkin_findings`` (every claim in napkin_math, solution, answers),
  with its cost per claim (claims counted by ``check_claims`` verdicts);
- the libyaml C loader alone over the same files, for scale.

Figures are CPU seconds of this process (``time.process_time``), the steadier
measure on a shared machine. As in a cold ``check``'s two processes, the objects that
exist before the audit are frozen and the cyclic garbage collector pauses while the
parts are timed (``gc.freeze``, ``gc.disable``; see ``check/runner.py``).
``--profile N`` also prints the N functions with the most cumulative time in the
napkin tier (cProfile, which slows everything down); ``--sort tottime`` orders them
by time spent in the function itself.

Usage: ``python bench/check_split_bench.py [--vault DIR] [--count N] [--profile N]
[--sort tottime]``.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import pstats
import shutil
import sys
import tempfile
import time
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))

from synthetic_vault import generate_vault  # noqa: E402

from sysdrill.check.context import FileContext  # noqa: E402
from sysdrill.check.registry import napkin_module  # noqa: E402
from sysdrill.check.runner import ITEM_CHECKS  # noqa: E402
from sysdrill.content.loader import list_item_file_names, read_item_file  # noqa: E402
from sysdrill.napkin.claims import check_claims  # noqa: E402
from sysdrill.napkin.filecheck import item_fields  # noqa: E402


def split(root: Path, profile: int, sort: str = "cumulative") -> None:
    """Time each part of the audit over the vault at ``root`` and print the figures."""
    files = list_item_file_names(root)
    napkin = napkin_module().napkin_findings
    gc.freeze()
    gc.disable()

    started = time.process_time()
    loaded = [read_item_file(path, rel) for path, rel in files]
    load_s = time.process_time() - started

    started = time.process_time()
    for item_file in loaded:
        if item_file.item is not None:
            context = FileContext(item_file, item_file.item)
            for rule in ITEM_CHECKS:
                rule(context)
    rules_s = time.process_time() - started

    profiler = cProfile.Profile() if profile else None
    started = time.process_time()
    if profiler is not None:
        profiler.enable()
    findings = sum(len(napkin(item_file)) for item_file in loaded)
    if profiler is not None:
        profiler.disable()
    napkin_s = time.process_time() - started
    gc.enable()
    gc.unfreeze()

    # Counted after the timing, in a second pass (its own cost is not in the figures).
    claims = sum(
        len(check_claims(text))
        for item_file in loaded
        if isinstance(item_file.raw, dict)
        for _, text in item_fields(item_file.raw)
    )

    started = time.process_time()
    for path, _ in files:
        yaml.load(Path(path).read_bytes(), Loader=yaml.CSafeLoader)
    libyaml_s = time.process_time() - started

    total = load_s + rules_s + napkin_s
    print(f"{len(files)} files, {claims} claims ({claims / len(files):.1f} a file)")
    print(f"{'part':<30} {'CPU s':>7} {'share':>6}")
    for name, seconds in (("load", load_s), ("item rules", rules_s), ("napkin tier", napkin_s)):
        print(f"{name:<30} {seconds:>7.2f} {seconds / total:>6.0%}")
    print(f"{'audit in one process':<30} {total:>7.2f}")
    print(f"{'libyaml C loader alone':<30} {libyaml_s:>7.2f}")
    print(
        f"napkin tier: {napkin_s / claims * 1e6:.0f} us a claim, {findings} findings "
        "(0 expected: every generated claim holds)"
    )
    if profiler is not None:
        pstats.Stats(profiler).sort_stats(sort).print_stats(profile)


def main() -> None:
    """Command-line entry: generate or reuse the vault, then print the split."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vault", type=Path, help="use (or create) this real-style vault")
    parser.add_argument("--count", type=int, default=10711, help="items to generate")
    parser.add_argument("--profile", type=int, default=0, help="print the top N napkin functions")
    parser.add_argument(
        "--sort", default="cumulative", choices=("cumulative", "tottime"), help="profile order"
    )
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="sysdrill-check-split-"))
    try:
        root = args.vault.resolve() if args.vault else work / "vault"
        if not (root / "questions").is_dir():
            generate_vault(root, args.count, style="real")
        split(root, args.profile, args.sort)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()

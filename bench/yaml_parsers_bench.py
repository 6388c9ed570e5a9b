"""Per-file cost of each YAML parser, and the other per-file steps of ``check``.

Reads the item files of a synthetic vault (``bench/synthetic_vault.py``, 2.5-4 KB
each) into memory, then times, over every file, each way of reading it:

- ``yaml_rs`` as the loader's fast road calls it (no datetimes, aliases and
  duplicate keys refused), the parser ``check`` and ``build`` use;
- PyYAML's libyaml loader (``yaml.CSafeLoader``), the careful road;
- PyYAML's pure-Python loader (``yaml.SafeLoader``), the baseline of
  ``bench/vault_bench.py``;
- ``fastyaml-rs`` and ``ryaml`` when installed (``pip install fastyaml-rs ryaml``:
  alternatives measured when yaml_rs was chosen, not dependencies);
- libyaml ``compose`` (the node tree, built only to find the line of a finding),
  ``validate_item`` (pydantic) and SHA-256 of the bytes.

Each row is one pass over all files, repeated ``--repeat`` times in this one
process; it prints the best and median pass divided by the number of files, and
the CPU time of the best pass. It also checks that every parser returns the same
data as libyaml for every file. Nothing is cached between passes: each parser
reads the text afresh.

Usage: ``python bench/yaml_parsers_bench.py [--count N] [--repeat R] [--vault DIR]``.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))

from synthetic_vault import generate_vault  # noqa: E402

from sysdrill.content.models import validate_item  # noqa: E402


def _parsers() -> dict[str, Callable[[str], Any] | str]:
    """Name -> parse function, or the reason it cannot run here."""
    parsers: dict[str, Callable[[str], Any] | str] = {}
    import yaml_rs

    no_aliases = yaml_rs.AliasLimits(max_total_replayed_events=0)

    def fast_road(text: str) -> Any:
        return yaml_rs.loads(
            text,
            parse_datetime=False,
            alias_limits=no_aliases,
            duplicate_key_policy=yaml_rs.DuplicateKeyPolicy.Error,
        )

    parsers[f"yaml_rs {yaml_rs.__version__} (the fast road)"] = fast_road
    parsers["PyYAML CSafeLoader (libyaml)"] = lambda text: yaml.load(text, Loader=yaml.CSafeLoader)
    parsers["PyYAML SafeLoader (pure Python)"] = lambda text: yaml.load(
        text, Loader=yaml.SafeLoader
    )
    for label, module, function in (
        ("fastyaml-rs", "fast_yaml", "safe_load"),
        ("ryaml", "ryaml", "loads"),
    ):
        try:
            found = importlib.import_module(module)
        except ImportError:
            parsers[label] = f"not installed (pip install {label})"
        else:
            version = getattr(found, "__version__", "")
            parsers[f"{label} {version}".strip()] = getattr(found, function)
    return parsers


def _time_passes(step: Callable[[Any], Any], inputs: list[Any], repeat: int) -> list[float]:
    """Wall and CPU seconds of each pass over ``inputs``: [wall..., cpu of best wall]."""
    walls: list[float] = []
    cpus: list[float] = []
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        for value in inputs:
            step(value)
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    best = min(range(repeat), key=walls.__getitem__)
    return [*walls, cpus[best]]


def main() -> None:
    """Generate (or read) the vault, time every step, print per-file figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=1000, help="items to generate")
    parser.add_argument("--repeat", type=int, default=5, help="passes per step")
    parser.add_argument("--vault", type=Path, help="use (or create) this synthetic vault")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as scratch:
        root = args.vault or Path(scratch) / "vault"
        if not (root / "questions").is_dir():
            generate_vault(root, args.count, seed=0)
        paths = sorted((root / "questions").rglob("*.yaml"))
        blobs = [p.read_bytes() for p in paths]
    texts = [b.decode("utf-8") for b in blobs]
    sizes = [len(b) for b in blobs]
    print(
        f"{len(texts)} item files, {min(sizes)}-{max(sizes)} bytes "
        f"(mean {statistics.mean(sizes):.0f}); {args.repeat} passes per step; "
        f"Python {sys.version.split()[0]}"
    )

    reference = [yaml.load(t, Loader=yaml.CSafeLoader) for t in texts]
    steps: dict[str, tuple[Callable[[Any], Any], list[Any]]] = {}
    for name, parse in _parsers().items():
        if isinstance(parse, str):
            print(f"{name}: {parse}")
            continue
        same = sum(parse(t) == r for t, r in zip(texts, reference, strict=True))
        print(f"{name}: same data as libyaml for {same}/{len(texts)} files")
        steps[name] = (parse, texts)
    steps["libyaml compose (node tree, for finding lines)"] = (
        lambda text: yaml.compose(text, Loader=yaml.CSafeLoader),
        texts,
    )
    steps["validate_item (pydantic)"] = (validate_item, reference)
    steps["SHA-256 of the bytes"] = (lambda data: hashlib.sha256(data).digest(), blobs)

    width = max(len(name) for name in steps)
    print(f"\n{'per file':<{width}}  {'best ms':>8}  {'median ms':>9}  {'CPU ms':>7}")
    for name, (step, inputs) in steps.items():
        *walls, cpu = _time_passes(step, inputs, args.repeat)
        n = len(inputs)
        print(
            f"{name:<{width}}  {min(walls) / n * 1e3:>8.3f}  "
            f"{statistics.median(walls) / n * 1e3:>9.3f}  {cpu / n * 1e3:>7.3f}"
        )


if __name__ == "__main__":
    main()

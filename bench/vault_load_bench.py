"""Loading a vault with the cyclic garbage collector running, and paused (as sysdrill does).

    python bench/vault_load_bench.py [--vault DIR] [--items N] [--rounds 3]

Each load runs in a fresh process from a warm load cache: ``load_vault`` and
``StudyVault.of``, what :func:`sysdrill.app.study_vault.open_study_vault` does, once
with the collector running and once inside ``collector_paused()``. Prints the wall and
CPU time of each and how many collections (full ones apart) ran during the load.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from synthetic_vault import generate_vault  # noqa: E402

_ONE_LOAD = """
import gc, json, sys, time
from pathlib import Path
from sysdrill.app.study_vault import StudyVault
from sysdrill.content.gc_pause import collector_paused
from sysdrill.content.loader import load_vault
runs = []
gc.callbacks.append(lambda phase, info: phase == "start" and runs.append(info["generation"]))
vault, cache, paused = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3] == "paused"
wall, cpu = time.perf_counter(), time.process_time()
if paused:
    with collector_paused():
        StudyVault.of(load_vault(vault, cache_dir=cache))
else:
    StudyVault.of(load_vault(vault, cache_dir=cache))
wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
print(json.dumps({"wall": wall, "cpu": cpu, "collections": len(runs), "full": runs.count(2)}))
"""


def main() -> None:
    """Parse the options, warm the cache, time the loads."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--vault", type=Path, help="use (or create) this synthetic vault")
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        vault = args.vault or Path(scratch) / "vault"
        if not (vault / "questions").is_dir():
            generate_vault(vault, args.items)
        cache = Path(scratch) / "cache"

        def load(mode: str) -> dict[str, float]:
            command = [sys.executable, "-c", _ONE_LOAD, str(vault), str(cache), mode]
            done = subprocess.run(command, capture_output=True, text=True, check=True)
            return dict(json.loads(done.stdout))

        load("paused")  # fills the load cache
        for round_ in range(1, args.rounds + 1):
            for mode in ("running", "paused"):
                f = load(mode)
                print(
                    f"round {round_} collector {mode:7}  wall {f['wall']:.2f} s  "
                    f"cpu {f['cpu']:.2f} s  collections {f['collections']:.0f} "
                    f"(full {f['full']:.0f})"
                )


if __name__ == "__main__":
    main()

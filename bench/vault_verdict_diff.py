"""Compare the napkin verdicts of every item file in a folder between two source trees.

``dump`` checks every ``.yaml`` item file under a folder with ``check_document``
(the napkin tier's own entry point) and writes each verdict (file, field, line,
column, verdict, claim, reason) to a JSON file; ``compare`` prints how many
verdicts each dump holds and every file whose verdicts differ (the first few in
full). Use it before and after a change to the napkin checker, e.g. on the
real-style vault of ``bench/synthetic_vault.py --style real``.

Usage, the old tree first::

    PYTHONPATH=OLD/src python bench/vault_verdict_diff.py dump DIR old.json
    python bench/vault_verdict_diff.py dump DIR new.json
    python bench/vault_verdict_diff.py compare old.json new.json
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any


def dump(folder: Path, out: Path) -> None:
    """Write the verdicts of every item file under ``folder`` to ``out``."""
    from sysdrill.napkin.filecheck import check_document

    rows: dict[str, Any] = {}
    total = 0
    for path in sorted(folder.rglob("*.yaml")):
        rel = path.relative_to(folder).as_posix()
        try:
            document = check_document(path.read_text("utf-8"), source=rel)
        except Exception as exc:  # noqa: BLE001 - a failure is a result to compare, too
            rows[rel] = f"raised {type(exc).__name__}: {exc}"
            continue
        rows[rel] = [
            [v.field, v.verdict.line, v.verdict.column, v.verdict.verdict.value]
            + [v.verdict.claim, v.verdict.to_dict()]
            for v in document.verdicts
        ]
        total += len(document.verdicts)
    out.write_text(json.dumps(rows, ensure_ascii=False), "utf-8")
    print(f"{len(rows)} files, {total} verdicts written to {out}")


def compare(old: Path, new: Path, show: int) -> int:
    """Print how two dumps differ; the number of files whose verdicts differ."""
    before = json.loads(old.read_text("utf-8"))
    after = json.loads(new.read_text("utf-8"))
    count_before = sum(len(v) for v in before.values() if isinstance(v, list))
    count_after = sum(len(v) for v in after.values() if isinstance(v, list))
    print(f"verdicts: {count_before} before, {count_after} after")
    differing = sorted(
        name for name in before.keys() | after.keys() if before.get(name) != after.get(name)
    )
    print(f"files whose verdicts differ: {len(differing)} of {len(before.keys() | after.keys())}")
    for name in differing[:show]:
        old_rows, new_rows = before.get(name) or [], after.get(name) or []
        print(f"--- {name}")
        for old_row, new_row in zip(old_rows, new_rows, strict=False):
            if old_row != new_row:
                print(f"  before: {old_row}\n  after:  {new_row}")
        if len(old_rows) != len(new_rows):
            print(f"  {len(old_rows)} verdicts before, {len(new_rows)} after")
    return len(differing)


def main() -> None:
    """Dump or compare, by the first argument."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    dumping = commands.add_parser("dump")
    dumping.add_argument("folder", type=Path)
    dumping.add_argument("out", type=Path)
    comparing = commands.add_parser("compare")
    comparing.add_argument("old", type=Path)
    comparing.add_argument("new", type=Path)
    comparing.add_argument("--show", type=int, default=5)
    args = parser.parse_args()
    if args.command == "dump":
        dump(args.folder, args.out)
    else:
        raise SystemExit(1 if compare(args.old, args.new, args.show) else 0)


if __name__ == "__main__":
    main()
